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
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Callable
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
    ) -> None:
        self.mechanism = mechanism if mechanism is not None else (AUTOGROUP if autogroup_in_effect() else NONE)
        self._call_later = call_later
        self._write = write
        self._read = read
        self.groups: dict[str, Group] = {}
        self._waiting: dict[str, int] = {}  # session id -> the nice its group waits for, shown first
        self._retry: Any = None  # the timer handle, only while writes wait
        self.writes = 0  # group writes done (tests, stats)

    def add(self, session_id: str, pid: int, background: int) -> Group | None:
        """Manage the group of the session led by `pid` (None where nothing can be managed)."""
        if self.mechanism == NONE:
            return None
        base = self._read(pid)
        if base is None:
            return None
        group = self.groups[session_id] = Group(pid, base, background, base)
        return group

    def forget(self, session_id: str) -> None:
        self.groups.pop(session_id, None)
        self._waiting.pop(session_id, None)

    def follow(self, shown: set[str], viewed: bool, visible: frozenset[str] | set[str] = frozenset()) -> None:
        """Focused sessions (`shown`; every session while no view is attached) at their own nice,
        sessions a view shows in another pane (`visible`) halfway to their background nice, the
        rest at their background nice. Only changed groups are written, focused ones first."""
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

    def waiting(self) -> list[str]:
        """Sessions whose group waits for a write, in the order they will get it."""
        return list(self._waiting)
