"""CPU priority follows focus: while a view is attached, sessions no view shows run at a lower
CPU priority, and get it back the moment a view shows them again.

The lever is the session's autogroup. With autogroup on (Linux's default where sessions are not
put in cgroups of their own), the kernel schedules each session (setsid) as one group, and a
termux session is a session: its group holds every process it runs, including those started
later (unless one starts a session of its own). Two consequences decide the mechanism:

- A process's own nice only weighs against the other processes of its session, so nicing a
  background session's processes does nothing against the TUI, the server or the focused
  session (each in its own group). The group's nice (`/proc/PID/autogroup`) is what counts.
- The group's nice leaves each process's own nice alone: a command started with `nice` keeps its
  niceness in the background and when shown.

Any user may set the group nice of their own sessions anywhere in 0..19 (raising it back needs
no privilege), but without CAP_SYS_ADMIN the kernel takes one such write per 100 ms machine-wide
and refuses the others (EAGAIN): refused writes wait, the shown sessions' first, and one timer
retries them (armed only while a write waits). Where autogroup is off or not in effect, nothing is
changed (`mechanism` is "none"; docs/protocol.md).

The group's weight decides the share of the CPU a busy background session gets, not how soon a
keystroke's processes (the TUI, the server, the focused program) get a CPU back from it when they
wake: the kernel lets a running task finish its slice first. A task under SCHED_IDLE is preempted
at once by any other that wakes, whatever the groups' weights, and a CPU running only such tasks
counts as free. So the processes of a session no view shows are also put under SCHED_IDLE
(`background_idle`), and put back when a view shows it. The policy is per task, inherited on fork:
every thread of every process of the session (its session id, found in /proc) is set, and what
they start later inherits it. A task the user put under another policy (`chrt`) keeps it: only
SCHED_OTHER tasks are lowered, and each gets back what it had; one started while the session was
lowered gets SCHED_OTHER. The kernel counts leaving SCHED_IDLE as raising the priority: allowed
with CAP_SYS_NICE or an RLIMIT_NICE that permits nice 0, else never (`may_leave_idle`). Without
either the lever is not used, since a session put there could not be given its CPU back.

SCHED_IDLE alone does not do it across groups: the kernel decides a wake-up's preemption between
the two groups' entities, and an autogroup is not idle whatever policy its tasks have, so a
keystroke's process waits behind a background session's busy loop until the next tick all the
same. A CPU cgroup marked idle (`cpu.idle`) is: where the machine lets the server make one under
its own CPU cgroup (`IdleCgroup.make`: a cgroup v1 cpu hierarchy, or a cgroup v2 one whose cpu
controller is on for children), the processes of a session no view shows are moved into it, and
back when a view shows the session (what they start meanwhile is born in it). Moving a process
between cgroups may wait for the kernel (an RCU grace period, milliseconds), so the moves run on
one worker thread (`Mover`), never in the loop. A process the user put in another cgroup is left
there. The cgroup goes when the server stops.
"""

from __future__ import annotations

import errno
import logging
import os
import queue
import resource
import threading
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

RETRY_AFTER = 0.1  # the kernel's interval between unprivileged autogroup writes
AUTOGROUP, NONE = "autogroup", "none"


def autogroup_in_effect(proc: Path = Path("/proc"), cgroups: Path = Path("/sys/fs/cgroup")) -> bool:
    """Autogroup is on and schedules this process's sessions: it is in the root CPU cgroup (a
    task in any other CPU cgroup is scheduled by that cgroup, and its autogroup is not used)."""
    try:
        if (proc / "sys/kernel/sched_autogroup_enabled").read_text().strip() != "1":
            return False
        lines = (proc / "self/cgroup").read_text().splitlines()
        (proc / "self/autogroup").read_text()
    except OSError:
        return False
    unified = None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(","):  # cgroup v1: the cpu hierarchy
            return path == "/"
        if controllers == "":
            unified = path
    if unified is None or unified == "/":
        return True
    # cgroup v2: a CPU cgroup of its own if the cpu controller is on anywhere above the process
    parts = Path(unified).parts[1:]
    for depth in range(len(parts)):
        control = cgroups.joinpath(*parts[:depth], "cgroup.subtree_control")
        try:
            if "cpu" in control.read_text().split():
                return False
        except OSError:
            continue
    return True


def read_group_nice(pid: int) -> int | None:
    """The nice of `pid`'s autogroup (`/autogroup-123 nice 10`), or None."""
    try:
        return int(Path(f"/proc/{pid}/autogroup").read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


def write_group_nice(pid: int, nice: int) -> None:
    with open(f"/proc/{pid}/autogroup", "w") as group:
        group.write(str(nice))


CAP_SYS_NICE = 23


def may_leave_idle(status: Path = Path("/proc/self/status"), nice_limit: int | None = None) -> bool:
    """Whether this process may take its sessions' tasks back out of SCHED_IDLE: with
    CAP_SYS_NICE, or an RLIMIT_NICE (`nice_limit`: its soft limit) that lets a task have nice 0
    (a limit of 20 - 0)."""
    soft = resource.getrlimit(resource.RLIMIT_NICE)[0] if nice_limit is None else nice_limit
    if soft == resource.RLIM_INFINITY or soft >= 20:
        return True
    try:
        for line in status.read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> CAP_SYS_NICE & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


def session_tasks(leaders: Collection[int], proc: Path = Path("/proc")) -> dict[int, dict[int, list[int]]]:
    """The processes of the sessions led by `leaders`, each with its threads, by leader: the
    processes whose session id is a leader's pid (one pass over /proc, whatever the number of
    sessions)."""
    found: dict[int, dict[int, list[int]]] = {leader: {} for leader in leaders}
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"{entry.path}/stat", "rb") as stat:
                line = stat.read()
            sid = int(line[line.rindex(b")") + 2 :].split(maxsplit=4)[3])  # state ppid pgrp session
            if sid in found:
                found[sid][int(entry.name)] = [int(tid) for tid in os.listdir(f"{entry.path}/task")]
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return found


IDLE_CGROUP_PREFIX = "termux-idle-"


def _cpu_hierarchy(proc: Path) -> tuple[Path, str, bool] | None:
    """This process's CPU cgroup: (its directory, its path as /proc/PID/cgroup says it, whether
    it is cgroup v2), or None where no CPU cgroup hierarchy is mounted."""
    try:
        lines = (proc / "self/cgroup").read_text().splitlines()
        mounts = (proc / "self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    v1 = v2 = None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(","):
            v1 = path
        elif controllers == "":
            v2 = path
    for mount in mounts:
        fields = mount.split()
        try:
            root, point = fields[3], fields[4]
            fstype, options = fields[fields.index("-") + 1], fields[-1].split(",")
        except (IndexError, ValueError):
            continue
        unified = fstype == "cgroup2"
        own = v1 if fstype == "cgroup" and "cpu" in options else v2 if unified and v1 is None else None
        if own is not None and (own == root or own.startswith(root.rstrip("/") + "/")):
            return Path(point) / own[len(root) :].strip("/"), own, unified
    return None


def cgroup_of(pid: int, unified: bool) -> str | None:
    """The path of `pid`'s CPU cgroup in its hierarchy (v1: the cpu controller's; v2: the one)."""
    try:
        for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if (controllers == "") if unified else ("cpu" in controllers.split(",")):
                return path
    except (OSError, ValueError):
        pass
    return None


def _session_of(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except OSError:  # gone meanwhile
        return None


class IdleCgroup:
    """A CPU cgroup marked idle under the server's own (`home`): its tasks run only on CPU time
    no other task wants, and any other task that wakes preempts them at once."""

    def __init__(self, home_dir: Path, home: str, name: str, unified: bool) -> None:
        self.unified = unified
        self.home = home  # paths in the hierarchy, as /proc/PID/cgroup says them
        self.path = f"{home.rstrip('/')}/{name}"
        self._home_dir = home_dir
        self.directory = home_dir / name

    @classmethod
    def make(cls, proc: Path = Path("/proc")) -> IdleCgroup | None:
        """The idle cgroup of this process (made now), or None where the machine offers none: no
        CPU hierarchy, no right to make a cgroup in its own, or (v2) no cpu controller for it."""
        found = _cpu_hierarchy(proc)
        if found is None:
            return None
        home_dir, home, unified = found
        group = cls(home_dir, home, f"{IDLE_CGROUP_PREFIX}{os.getpid()}", unified)
        try:
            if unified and "cpu" not in (group._home_dir / "cgroup.subtree_control").read_text().split():
                return None
            group.directory.mkdir(exist_ok=True)
            (group.directory / "cpu.idle").write_text("1")
        except OSError as exc:
            log.debug("no idle cgroup: %s", exc.strerror)
            group.remove()
            return None
        group.sweep()
        return group

    def move(self, pids: Iterable[int], idle: bool) -> int:
        """Move each of `pids` that is in the server's cgroup into the idle one (`idle`), or each
        that is in the idle one back; a process elsewhere (the user moved it) stays. Returns the
        processes moved. Blocking: on the mover's thread."""
        source, target = (self.home, self.directory) if idle else (self.path, self._home_dir)
        moved = 0
        for pid in pids:
            if cgroup_of(pid, self.unified) != source:
                continue
            try:
                (target / "cgroup.procs").write_text(str(pid))
                moved += 1
            except OSError as exc:  # gone meanwhile, or not ours to move
                if exc.errno != errno.ESRCH:
                    log.debug("process %d: not moved to %s: %s", pid, target, exc.strerror)
        return moved

    def move_back(self, leader: int, passes: int = 4) -> int:
        """Every process of the session led by `leader` in the idle cgroup back to the server's,
        found in the cgroup itself: one the session forked while a pass ran (born in the idle
        cgroup) is found by the next. Returns the processes moved. Blocking: on the mover's thread."""
        moved = 0
        for _ in range(passes):
            try:
                members = [int(p) for p in (self.directory / "cgroup.procs").read_text().split()]
            except OSError:
                return moved
            pids = [pid for pid in members if _session_of(pid) == leader]
            if not pids:
                break
            moved += self.move(pids, idle=False)
        return moved

    def sweep(self) -> None:
        """Remove the idle cgroups of servers that are gone (an empty cgroup is removed, one with
        tasks left refuses)."""
        try:
            entries = list(os.scandir(self._home_dir))
        except OSError:
            return
        for entry in entries:
            pid = entry.name.removeprefix(IDLE_CGROUP_PREFIX)
            if entry.name.startswith(IDLE_CGROUP_PREFIX) and pid.isdigit() and not Path(f"/proc/{pid}").exists():
                try:
                    os.rmdir(entry.path)
                except OSError:
                    pass

    def remove(self) -> None:
        """Every task left in it back to the server's cgroup, and the cgroup removed."""
        try:
            pids = [int(p) for p in (self.directory / "cgroup.procs").read_text().split()]
        except OSError:
            pids = []
        self.move(pids, idle=False)
        try:
            os.rmdir(self.directory)
        except OSError:
            pass


class Mover:
    """One daemon thread that runs cgroup moves in order, off the loop (a move may wait for the
    kernel); started with the first job, ended by `close` after the jobs queued before it."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], object] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.pending = 0  # jobs queued and not done (server.stats)

    def submit(self, job: Callable[[], object]) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="termux-cgroup", daemon=True)
            self._thread.start()
        self.pending += 1
        self._jobs.put(job)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                job()
            except Exception:  # a bug in a move must not end the worker
                log.exception("cgroup move failed")
            finally:
                self.pending -= 1

    def close(self, timeout: float = 2.0) -> None:
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join(timeout)
            self._thread = None


def set_policy(tid: int, policy: int) -> None:
    os.sched_setscheduler(tid, policy, os.sched_param(0))


def raise_own_priority(nice: int) -> int | None:
    """Put this process's scheduling group at `nice` (below 0: ahead of the machine's other
    groups, so that a keystroke's hop through it does not wait for a CPU behind them), where it
    may: it must lead its own session (its group then holds termux's own process alone, not the
    shell it was started from) and be allowed to (CAP_SYS_NICE, or an RLIMIT_NICE that permits
    it; a user without either keeps nice 0). Returns the nice now in force, None when unchanged."""
    if nice >= 0 or os.getsid(0) != os.getpid() or not autogroup_in_effect():
        return None
    try:
        write_group_nice(os.getpid(), nice)
    except OSError as exc:  # EPERM, EACCES: not permitted; the group keeps its nice
        log.debug("keeping this process's CPU priority: %s", exc.strerror)
        return None
    return nice


def visible_nice(background: int) -> int:
    """The nice of a session shown in a pane that is not focused: half its background nice, so
    what a person watches beside the focus runs ahead of what nobody sees, behind the focus."""
    return background // 2


@dataclass
class Group:
    """One session's group: its leader, its nice when shown (as it started) and in the background."""

    pid: int
    base: int
    background: int  # 0: never lowered
    applied: int
    idle: bool = False  # its tasks go under SCHED_IDLE while no view shows it
    grouped: bool = True  # its group nice is managed (False: SCHED_IDLE alone, no autogroup)
    # While its tasks are under SCHED_IDLE: each task lowered (or found there already), with the
    # policy it had; None while they have their own.
    lowered: dict[int, int] | None = None


class CpuPriority:
    """Applies each session's group nice from who is shown (`follow`); sans-loop: the caller gives
    `call_later` (one retry timer) and may give `write`/`read` (tests, other machines)."""

    def __init__(
        self,
        call_later: Callable[[float, Callable[[], None]], Any],
        *,
        mechanism: str | None = None,
        write: Callable[[int, int], None] = write_group_nice,
        read: Callable[[int], int | None] = read_group_nice,
        idle: bool | None = None,
        cgroup: Callable[[], IdleCgroup | None] | None = None,
        submit: Callable[[Callable[[], object]], None] | None = None,
    ) -> None:
        self.mechanism = mechanism if mechanism is not None else (AUTOGROUP if autogroup_in_effect() else NONE)
        # SCHED_IDLE for the sessions no view shows, where it can be undone (None: find out)
        self.idle = may_leave_idle() if idle is None else idle
        # and the idle cgroup, where the machine offers one: `cgroup` makes it when a session first
        # asks for it; its moves go to `submit` (else inline)
        self._make_cgroup = cgroup
        self.cgroup: IdleCgroup | None = None
        self._submit = submit or (lambda job: job())
        self._call_later = call_later
        self._write = write
        self._read = read
        self.groups: dict[str, Group] = {}
        self._waiting: dict[str, int] = {}  # session id -> the nice its group waits for, shown first
        self._retry: Any = None  # the timer handle, only while writes wait
        self.writes = 0  # group writes done (tests, stats)
        self.policy_changes = 0  # tasks whose scheduling policy was set (tests, stats)
        self.cgroup_moves = 0  # batches of cgroup moves submitted (stats)

    def add(self, session_id: str, pid: int, background: int, idle: bool = False) -> Group | None:
        """Manage the group of the session led by `pid` (None where nothing can be managed);
        `idle`: its tasks go under SCHED_IDLE while no view shows it (where this process may)."""
        if idle and self._make_cgroup is not None:
            self.cgroup, self._make_cgroup = self._make_cgroup(), None
        idle = idle and (self.idle or self.cgroup is not None)
        nice = self._read(pid) if self.mechanism != NONE else None
        if nice is None and not idle:
            return None
        base = 0 if nice is None else nice
        background = background if nice is not None else base  # no group nice to change
        group = self.groups[session_id] = Group(pid, base, background, base, idle, nice is not None)
        return group

    def use_cgroup(self, make: Callable[[], IdleCgroup | None]) -> None:
        """The idle cgroup comes from `make`, called when a session first asks for it."""
        if self.cgroup is None:
            self._make_cgroup = make

    def forget(self, session_id: str) -> None:
        self.groups.pop(session_id, None)
        self._waiting.pop(session_id, None)

    def follow(self, shown: set[str], viewed: bool, visible: frozenset[str] | set[str] = frozenset()) -> None:
        """Focused sessions (`shown`; every session while no view is attached) at their own nice,
        sessions a view shows in another pane (`visible`) halfway to their background nice, the
        rest at their background nice (and, those that ask for it, under SCHED_IDLE). Only
        changed groups are written, focused ones first."""
        self._follow_policies(shown, viewed, visible)
        wanted: dict[str, int] = {}
        for sid, group in self.groups.items():
            if not viewed or sid in shown or group.background <= group.base:
                nice = group.base
            elif sid in visible:
                nice = max(group.base, visible_nice(group.background))
            else:
                nice = group.background
            if nice != group.applied:
                wanted[sid] = nice
            else:
                self._waiting.pop(sid, None)  # it has what it needs already
        if not wanted:
            return
        for sid in sorted(wanted, key=lambda s: (s not in shown, s not in visible)):  # raising the shown first
            self._waiting.pop(sid, None)
            self._waiting[sid] = wanted[sid]
        if self._retry is None:  # else the armed retry writes them
            self._flush()

    def _follow_policies(self, shown: set[str], viewed: bool, visible: frozenset[str] | set[str]) -> None:
        """SCHED_IDLE for the tasks of the sessions no view shows that ask for it, their own
        policies back for the others: one pass over /proc when any changes, none otherwise."""
        lower = {sid for sid, g in self.groups.items() if g.idle and viewed and sid not in shown and sid not in visible}
        changing = {sid for sid, g in self.groups.items() if (g.lowered is not None) != (sid in lower)}
        if not changing:
            return
        tasks = session_tasks({self.groups[sid].pid for sid in changing})
        moves: list[tuple[int, list[int], bool]] = []
        for sid in sorted(changing, key=lambda s: s in lower):  # raising first
            group = self.groups[sid]
            processes = tasks[group.pid]
            threads = [tid for tids in processes.values() for tid in tids]
            if sid in lower:
                group.lowered = self._lower(threads) if self.idle else {}
            else:
                if self.idle:
                    self._raise(threads, group.lowered or {})
                group.lowered = None
            moves.append((group.pid, list(processes), sid in lower))
        if self.cgroup is not None:
            cgroup = self.cgroup
            self.cgroup_moves += 1
            # Back: what the cgroup holds of the session (not the scan's list, which misses what it
            # forked since); in: the scan's processes (what they fork after is born in the cgroup).
            self._submit(
                lambda: [cgroup.move(pids, True) if idle else cgroup.move_back(leader) for leader, pids, idle in moves]
            )

    def _lower(self, tids: list[int]) -> dict[int, int]:
        lowered: dict[int, int] = {}
        for tid in tids:
            try:
                policy = os.sched_getscheduler(tid)
                if policy == os.SCHED_OTHER:
                    set_policy(tid, os.SCHED_IDLE)
                    self.policy_changes += 1
                if policy in (os.SCHED_OTHER, os.SCHED_IDLE):
                    lowered[tid] = policy
            except OSError:  # gone, or not ours to change (a setuid program): left as it is
                continue
        return lowered

    def _raise(self, tids: list[int], lowered: dict[int, int]) -> None:
        for tid in tids:
            own = lowered.get(tid, os.SCHED_OTHER)  # started while lowered: the default policy
            try:
                if own != os.SCHED_IDLE and os.sched_getscheduler(tid) == os.SCHED_IDLE:
                    set_policy(tid, own)
                    self.policy_changes += 1
            except OSError as exc:
                if exc.errno == errno.EPERM:
                    log.warning("task %d: cannot take it out of SCHED_IDLE: %s", tid, exc.strerror)
                continue

    def _flush(self) -> None:
        self._retry = None
        while self._waiting:
            sid, nice = next(iter(self._waiting.items()))
            group = self.groups.get(sid)
            try:
                if group is not None:
                    self._write(group.pid, nice)
                    group.applied = nice
                    self.writes += 1
            except OSError as exc:
                if exc.errno == errno.EAGAIN:  # the kernel's rate limit: try again after it
                    self._retry = self._call_later(RETRY_AFTER, self._flush)
                    return
                if exc.errno not in (errno.ESRCH, errno.ENOENT):  # gone: nothing to restore
                    log.warning("session %s: cannot set its CPU priority: %s", sid, exc.strerror)
                self.groups.pop(sid, None)
            del self._waiting[sid]

    def close(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self.cgroup is not None:
            self._submit(self.cgroup.remove)

    def waiting(self) -> list[str]:
        """Sessions whose group waits for a write, in the order they will get it."""
        return list(self._waiting)
