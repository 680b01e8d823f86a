"""CPU priority follows focus: the scheduling group of every session no view shows is lowered."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from e2e.isolated import descendants
from termux.client import Client
from termux.defaults import OWN_NICE
from termux.server.priority import (
    AUTOGROUP,
    CAP_SYS_NICE,
    RETRY_AFTER,
    CpuPriority,
    IdleCgroup,
    _cpu_hierarchy,
    autogroup_in_effect,
    may_leave_idle,
    raise_own_priority,
    read_group_nice,
)
from tests.conftest import RunningServer
from tests.server.fakes import throwaway_user

# -- the policy, with the kernel replaced by a dict ----------------------------------------------


class FakeKernel:
    def __init__(self) -> None:
        self.nice: dict[int, int] = {}
        self.writes: list[tuple[int, int]] = []
        self.refuse: list[int] = []  # errno for the next writes, in turn
        self.timers: list[tuple[float, Callable[[], None]]] = []

    def write(self, pid: int, nice: int) -> None:
        if self.refuse:
            raise OSError(self.refuse.pop(0), "refused")
        self.nice[pid] = nice
        self.writes.append((pid, nice))

    def call_later(self, delay: float, callback: Callable[[], None]) -> Any:
        self.timers.append((delay, callback))
        return self

    def cancel(self) -> None:
        pass

    def fire(self) -> None:
        _, callback = self.timers.pop(0)
        callback()


def cpu_with(kernel: FakeKernel, sessions: dict[str, tuple[int, int]]) -> CpuPriority:
    cpu = CpuPriority(kernel.call_later, mechanism=AUTOGROUP, write=kernel.write, read=lambda pid: 0)
    for sid, (pid, background) in sessions.items():
        cpu.add(sid, pid, background)
    return cpu


def test_shown_sessions_keep_their_nice_the_others_are_lowered_and_only_while_a_view_is_attached() -> None:
    kernel = FakeKernel()
    cpu = cpu_with(kernel, {"%0": (100, 10), "%1": (101, 10), "%2": (102, 0)})
    cpu.follow(set(), viewed=False)
    assert kernel.writes == []  # nobody looks: nothing to change
    cpu.follow({"%0"}, viewed=True)
    assert kernel.writes == [(101, 10)]  # %2 asked never to be lowered
    kernel.writes.clear()
    cpu.follow({"%1"}, viewed=True)
    assert kernel.writes == [(101, 0), (100, 10)]  # the newly shown one is raised first
    kernel.writes.clear()
    cpu.follow({"%1"}, viewed=True)
    assert kernel.writes == []  # nothing changed, nothing written
    cpu.follow({"%1"}, viewed=False)
    assert kernel.writes == [(100, 0)]  # the last view left: everyone has their own again
    assert cpu.groups["%0"].applied == cpu.groups["%1"].applied == 0
    assert kernel.timers == []


def test_a_write_the_kernel_refuses_for_now_is_retried_once_after_its_interval() -> None:
    kernel = FakeKernel()
    cpu = cpu_with(kernel, {"%0": (100, 10), "%1": (101, 10), "%2": (102, 10)})
    kernel.refuse = [errno.EAGAIN]
    cpu.follow({"%0"}, viewed=True)
    assert kernel.writes == [] and [d for d, _ in kernel.timers] == [RETRY_AFTER]
    assert cpu.waiting() == ["%1", "%2"]
    cpu.follow({"%1"}, viewed=True)  # focus moved meanwhile: no second timer, the wishes updated
    assert len(kernel.timers) == 1 and cpu.waiting() == ["%0", "%2"]  # %1 has its own nice still
    kernel.fire()
    assert kernel.writes == [(100, 10), (102, 10)]  # %1 never left its own nice: nothing to write
    assert cpu.waiting() == [] and kernel.timers == []


def test_a_session_whose_leader_is_gone_is_dropped_quietly() -> None:
    kernel = FakeKernel()
    cpu = cpu_with(kernel, {"%0": (100, 10), "%1": (101, 10)})
    kernel.refuse = [errno.ESRCH]
    cpu.follow({"%0"}, viewed=True)
    assert "%1" not in cpu.groups and cpu.waiting() == [] and kernel.timers == []


# -- a real server, real sessions, the kernel's own view -----------------------------------------

needs_autogroup = pytest.mark.skipif(
    not autogroup_in_effect(), reason="no autogroup scheduling here (off, or processes in a CPU cgroup)"
)


def _task_nice(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])  # field 19: nice


def _execed(pid: int, name: str) -> int:
    """`pid` once it runs `name` ($! is the shell's child before it execs; a child under
    SCHED_IDLE may wait for a CPU a while)."""
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}/comm").read_text().strip() != name:
        assert time.monotonic() < deadline, f"{pid} never ran {name}"
        time.sleep(0.01)
    return pid


def _nices(server: RunningServer) -> dict[str, int | None]:
    listed = json.loads(server.run("ls", "--json").stdout)
    return {s["name"]: s["nice"] for s in listed}


def answered(view: Client) -> None:
    """A round trip on `view`: the CPU priority follows a change of the views once the request that
    made it is answered, before any request sent after that is read (`Server._follow_views`)."""
    view.request("server.stats")


@needs_autogroup
def test_focus_moves_the_group_nice_of_every_process_of_the_session_and_back(server: RunningServer) -> None:
    with server.client() as c:
        shell = c.request("session.new", name="shell", command=["/bin/sh"])["session"]
        other = c.request("session.new", name="other", command=["/bin/cat"])["session"]
    assert read_group_nice(shell["pid"]) == 0 and _nices(server) == {"shell": 0, "other": 0}
    with server.client() as view:
        view.request("client.attach", focus="other")
        answered(view)
        assert read_group_nice(shell["pid"]) == 10 and read_group_nice(other["pid"]) == 0
        # started after the session was lowered, niced by its own user
        server.run("send", "-t", "shell", "nice -n 15 sleep 300 & echo started-$!-", "Enter")
        started = server.run("wait", "-t", "shell", "--match", "started-[0-9]+-", "--timeout", "30")
        sleeper = _execed(int(started.stdout.split("-")[1]), "sleep")
        assert sleeper in descendants(shell["pid"])
        assert (read_group_nice(sleeper), _task_nice(sleeper)) == (10, 15)
        assert _nices(server) == {"shell": 10, "other": 0}
        view.request("client.focus", target="shell")
        answered(view)
        assert read_group_nice(shell["pid"]) == read_group_nice(sleeper) == 0  # the whole session back
        assert _task_nice(sleeper) == 15  # and the command keeps the niceness it was started with
        assert read_group_nice(other["pid"]) == 10
    with server.client() as c:  # once the server has handled the view's hang-up (its event is after it)
        assert c.request("events.read", cursor=0, types=["client.detached"], wait_ms=30_000)["events"]
    assert read_group_nice(other["pid"]) == 0  # no view left: nobody is lowered


@needs_autogroup
def test_a_session_asked_never_to_be_lowered_is_not(server: RunningServer) -> None:
    with server.client() as c:
        build = c.request("session.new", name="build", command=["/bin/cat"], background_nice=0)["session"]
        assert build["background_nice"] == 0
        c.request("session.new", name="shown", command=["/bin/cat"])
    with server.client() as view:
        view.request("client.attach", focus="shown")
        answered(view)
        assert read_group_nice(build["pid"]) == 0
    assert server.run("new", "-d", "--background-nice", "20", "--", "cat").returncode == 2  # 0-19 only


# -- SCHED_IDLE for the processes of the sessions no view shows ----------------------------------

needs_idle = pytest.mark.skipif(not may_leave_idle(), reason="this user may not take a task out of SCHED_IDLE")


def _policies(pid: int) -> set[int]:
    """The scheduling policy of every thread of `pid`."""
    return {os.sched_getscheduler(int(tid)) for tid in os.listdir(f"/proc/{pid}/task")}


def _listed(server: RunningServer) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in json.loads(server.run("ls", "--json").stdout)}


@needs_idle
def test_the_processes_of_a_session_no_view_shows_go_under_sched_idle_and_back(server: RunningServer) -> None:
    with server.client() as c:
        shell = c.request("session.new", name="shell", command=["/bin/sh"])["session"]
        c.request("session.new", name="other", command=["/bin/cat"])
        # asked to keep its processes' own policy
        kept = c.request("session.new", name="kept", command=["/bin/cat"], background_idle=False)["session"]
    # a process of the session started before it was lowered, and one the user put under SCHED_BATCH
    server.run("send", "-t", "shell", "sleep 300 & chrt -b 0 sleep 300 & echo started-$!-", "Enter")
    started = server.run("wait", "-t", "shell", "--match", "started-[0-9]+-", "--timeout", "30").stdout
    _execed(int(started.split("-")[1]), "sleep")
    before = descendants(shell["pid"])
    batch = next(p for p in before if _policies(p) == {os.SCHED_BATCH})
    assert {p for p in before if _policies(p) == {os.SCHED_OTHER}} and _listed(server)["shell"]["idle"] is False
    with server.client() as view:
        view.request("client.attach", focus="other")
        answered(view)
        assert all(_policies(p) == {os.SCHED_IDLE} for p in [shell["pid"], *before] if p != batch)
        assert _policies(batch) == {os.SCHED_BATCH}  # the user's choice is left alone
        assert _policies(kept["pid"]) == {os.SCHED_OTHER}
        listed = _listed(server)
        assert (listed["shell"]["idle"], listed["shell"]["background_idle"]) == (True, True)
        assert (listed["kept"]["idle"], listed["kept"]["background_idle"]) == (False, False)
        # started while the session is lowered: it inherits the policy
        server.run("send", "-t", "shell", "sleep 301 & echo later-$!-", "Enter")
        later = server.run("wait", "-t", "shell", "--match", "later-[0-9]+-", "--timeout", "30").stdout
        later = _execed(int(later.split("-")[1]), "sleep")
        assert _policies(later) == {os.SCHED_IDLE}
        view.request("client.focus", target="shell")
        answered(view)
        assert all(_policies(p) == {os.SCHED_OTHER} for p in [shell["pid"], *before, later] if p != batch)
        assert _policies(batch) == {os.SCHED_BATCH} and _listed(server)["shell"]["idle"] is False
        other = _listed(server)["other"]
        assert other["idle"] is True and _policies(other["pid"]) == {os.SCHED_IDLE}
    with server.client() as c:
        assert c.request("events.read", cursor=0, types=["client.detached"], wait_ms=30_000)["events"]
    assert _policies(other["pid"]) == {os.SCHED_OTHER}  # no view left: everyone has their own


def test_sched_idle_is_used_only_where_it_can_be_undone(tmp_path: Path) -> None:
    status = tmp_path / "status"
    status.write_text("Name:\ttermux\nCapEff:\t0000000000000000\n")
    assert not may_leave_idle(status, nice_limit=0)  # no capability, no room to raise a nice: never lowered
    assert not may_leave_idle(status, nice_limit=19)  # nice 1 at best: a task of nice 0 could not come back
    assert may_leave_idle(status, nice_limit=20)  # nice 0 allowed by the limit
    status.write_text(f"CapEff:\t{1 << CAP_SYS_NICE:016x}\n")
    assert may_leave_idle(status, nice_limit=0)
    kernel = FakeKernel()
    cpu = CpuPriority(kernel.call_later, mechanism=AUTOGROUP, write=kernel.write, read=lambda pid: 0, idle=False)
    group = cpu.add("%0", os.getpid(), 10, idle=True)
    assert group is not None and not group.idle
    cpu.follow(set(), viewed=True)
    assert group.lowered is None and cpu.policy_changes == 0 and os.sched_getscheduler(0) == os.SCHED_OTHER


# -- termux's own processes ----------------------------------------------------------------------


@needs_autogroup
def test_the_server_raises_its_own_priority_where_it_may(server: RunningServer) -> None:
    stats = json.loads(server.run("stats", "--json").stdout)["cpu_priority"]
    if not may_leave_idle():  # the same permission: CAP_SYS_NICE or RLIMIT_NICE
        pytest.skip("this user may not raise a priority")
    assert read_group_nice(server.pid) == OWN_NICE == stats["own_nice"]
    with server.client() as c:  # its sessions do not inherit it: each is a group of its own
        shell = c.request("session.new", name="shell", command=["/bin/cat"])["session"]
    assert read_group_nice(shell["pid"]) == 0


@needs_autogroup
def test_a_normal_user_keeps_its_priority_and_nothing_fails() -> None:
    with throwaway_user() as user:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: its own session, as the other user, asks for a higher priority
            try:
                os.setsid()
                os.setgroups([])
                os.setgid(user.pw_gid)
                os.setuid(user.pw_uid)
                answer = f"{raise_own_priority(-10)} {read_group_nice(os.getpid())} {may_leave_idle()}"
                os.write(write_end, answer.encode())
            finally:
                os._exit(0)
        os.close(write_end)
        with os.fdopen(read_end) as answer:
            said = answer.read()
        os.waitpid(pid, 0)
    assert said.split() == ["None", "0", "False"]  # unchanged, and SCHED_IDLE would not be used either


def test_a_process_that_does_not_lead_its_session_leaves_its_group_alone() -> None:
    assert os.getsid(0) != os.getpid()  # pytest runs in the shell's (or the harness's) session
    before = read_group_nice(os.getpid())
    assert raise_own_priority(-10) is None and read_group_nice(os.getpid()) == before


def test_without_autogroup_sched_idle_alone_is_managed_and_no_group_nice_is_written() -> None:
    kernel = FakeKernel()
    cpu = CpuPriority(kernel.call_later, mechanism="none", write=kernel.write, read=lambda pid: 0, idle=True)
    group = cpu.add("%0", 100, 10, idle=True)
    assert group is not None and group.idle and not group.grouped  # `nice` is reported as null
    assert cpu.add("%1", 101, 10, idle=False) is None  # nothing to manage
    cpu.follow({"%1"}, viewed=False)
    assert kernel.writes == [] and group.applied == group.base


# -- the idle CPU cgroup -------------------------------------------------------------------------


def test_the_cpu_cgroup_is_found_in_the_cpu_hierarchy_the_process_is_in(tmp_path: Path) -> None:
    (tmp_path / "self").mkdir()
    cgroup, mounts = tmp_path / "self/cgroup", tmp_path / "self/mountinfo"
    # cgroup v1, mounted from a sub-cgroup (as in a container): the path is taken relative to it
    cgroup.write_text("3:cpuset:/\n2:cpu,cpuacct:/box/app\n0::/\n")
    mounts.write_text(
        "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
        "32 31 0:29 /box /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
        "40 31 0:31 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
    )
    assert _cpu_hierarchy(tmp_path) == (Path("/sys/fs/cgroup/cpu,cpuacct/app"), "/box/app", False)
    # cgroup v2 alone: the unified hierarchy
    cgroup.write_text("0::/user.slice/term.scope\n")
    assert _cpu_hierarchy(tmp_path) == (
        Path("/sys/fs/cgroup/unified/user.slice/term.scope"),
        "/user.slice/term.scope",
        True,
    )
    mounts.write_text("31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n")  # nothing mounted
    assert _cpu_hierarchy(tmp_path) is None


class FakeCgroup:
    def __init__(self) -> None:
        self.moves: list[tuple[list[int], bool]] = []

    def move(self, pids: list[int], idle: bool) -> int:
        self.moves.append((sorted(pids), idle))
        return len(pids)

    def move_back(self, leader: int) -> int:
        self.moves.append(([leader], False))  # (every process of its session the cgroup holds)
        return 1

    def remove(self) -> None:
        pass


def _session_leader(argv: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, start_new_session=True, stdin=subprocess.DEVNULL)


def test_the_processes_of_a_session_no_view_shows_are_moved_off_the_loop_raised_first() -> None:
    kernel, fake, jobs = FakeKernel(), FakeCgroup(), []
    made: list[int] = []

    def make() -> Any:
        made.append(1)
        return fake

    cpu = CpuPriority(
        kernel.call_later, mechanism=AUTOGROUP, write=kernel.write, read=lambda pid: 0, idle=False,
        cgroup=make, submit=jobs.append,
    )  # fmt: skip
    procs = [_session_leader(["sleep", "60"]) for _ in range(3)]
    plain, one, two = (p.pid for p in procs)
    try:
        assert cpu.add("%0", plain, 10, idle=False) is not None and made == []  # not asked for: not made
        first, second = cpu.add("%1", one, 10, idle=True), cpu.add("%2", two, 10, idle=True)
        assert first is not None and first.idle and made == [1]  # the cgroup alone lets them be lowered
        cpu.follow({"%1"}, viewed=True)
        assert second is not None and second.lowered == {} and fake.moves == []  # a job waits, nothing moved
        jobs.pop()()
        assert fake.moves == [([two], True)]
        assert os.sched_getscheduler(two) == os.SCHED_OTHER  # no SCHED_IDLE where not permitted
        cpu.follow({"%2"}, viewed=True)  # one job: the newly shown session first
        jobs.pop()()
        assert fake.moves[1:] == [([two], False), ([one], True)] and second.lowered is None
        cpu.follow({"%2"}, viewed=True)
        assert jobs == []  # nothing changed: nothing to do
        cpu.close()
        assert jobs == [fake.remove]  # the cgroup's removal, queued behind the moves
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def _cpu_cgroup(pid: int) -> str:
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "cpu" in controllers.split(",") or controllers == "":
            return path
    raise AssertionError(f"{pid} is in no CPU cgroup")


def _moved(server: RunningServer) -> dict[str, Any]:
    """server.stats's cpu_priority once the moves asked for so far are done."""
    deadline = time.monotonic() + 30
    while (stats := json.loads(server.run("stats", "--json").stdout)["cpu_priority"])["cgroup_moves_pending"]:
        assert time.monotonic() < deadline, "the cgroup moves never ended"
        time.sleep(0.01)
    return dict(stats)


needs_cgroup = pytest.mark.skipif(
    os.geteuid() != 0 or _cpu_hierarchy(Path("/proc")) is None, reason="no CPU cgroup this user may make here"
)


@needs_cgroup
def test_the_processes_of_a_session_no_view_shows_go_into_the_idle_cgroup_and_back(server: RunningServer) -> None:
    with server.client() as c:
        shell = c.request("session.new", name="shell", command=["/bin/sh"])["session"]
        c.request("session.new", name="other", command=["/bin/cat"])
    server.run("send", "-t", "shell", "sleep 300 & echo started-$!-", "Enter")
    started = server.run("wait", "-t", "shell", "--match", "started-[0-9]+-", "--timeout", "30").stdout
    sleeper = _execed(int(started.split("-")[1]), "sleep")
    home = _cpu_cgroup(server.pid)
    with server.client() as view:
        view.request("client.attach", focus="other")
        stats = _moved(server)
        idle = stats["cgroup"]
        assert idle is not None and Path(idle, "cpu.idle").read_text().strip() == "1"
        assert _cpu_cgroup(shell["pid"]) == _cpu_cgroup(sleeper) == f"{home.rstrip('/')}/{Path(idle).name}"
        assert _cpu_cgroup(_listed(server)["other"]["pid"]) == home
        view.request("client.focus", target="shell")
        _moved(server)
        assert _cpu_cgroup(shell["pid"]) == _cpu_cgroup(sleeper) == home
    server.stop()
    assert not Path(idle).exists()  # removed with the server


@needs_cgroup
def test_moving_a_session_back_takes_what_the_cgroup_holds_of_it_not_a_list() -> None:
    """A process the session forked after the scan that listed its processes is born in the idle
    cgroup: moving back reads the cgroup, so it comes back too (and another session's stays)."""
    group = IdleCgroup.make()
    assert group is not None
    home = _cpu_cgroup(os.getpid())
    shown = subprocess.Popen(["sh", "-c", "sleep 300 & echo $!; wait"], start_new_session=True, stdout=subprocess.PIPE)
    hidden = _session_leader(["sleep", "300"])
    try:
        assert shown.stdout is not None
        child = _execed(int(shown.stdout.readline()), "sleep")
        assert group.move([shown.pid, child, hidden.pid], idle=True) == 3
        assert {_cpu_cgroup(p) for p in (shown.pid, child, hidden.pid)} == {group.path}
        assert group.move_back(shown.pid) == 2  # the leader and the child no list named
        assert _cpu_cgroup(shown.pid) == _cpu_cgroup(child) == home
        assert _cpu_cgroup(hidden.pid) == group.path
    finally:
        for proc in (shown, hidden):
            proc.kill()
            proc.wait()
        subprocess.run(["pkill", "-s", str(shown.pid)], check=False)
        group.remove()
    assert not group.directory.exists()
