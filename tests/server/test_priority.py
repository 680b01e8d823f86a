"""CPU priority follows focus: the scheduling group of every session no view shows is lowered."""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from e2e.isolated import descendants
from termux.server.priority import AUTOGROUP, RETRY_AFTER, CpuPriority, autogroup_in_effect, read_group_nice
from tests.conftest import RunningServer

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


def _nices(server: RunningServer) -> dict[str, int | None]:
    listed = json.loads(server.run("ls", "--json").stdout)
    return {s["name"]: s["nice"] for s in listed}


@needs_autogroup
def test_focus_moves_the_group_nice_of_every_process_of_the_session_and_back(server: RunningServer) -> None:
    with server.client() as c:
        shell = c.request("session.new", name="shell", command=["/bin/sh"])["session"]
        other = c.request("session.new", name="other", command=["/bin/cat"])["session"]
    assert read_group_nice(shell["pid"]) == 0 and _nices(server) == {"shell": 0, "other": 0}
    with server.client() as view:
        view.request("client.attach", focus="other")
        assert read_group_nice(shell["pid"]) == 10 and read_group_nice(other["pid"]) == 0
        # started after the session was lowered, niced by its own user
        server.run("send", "-t", "shell", "nice -n 15 sleep 300 & echo started-$!-", "Enter")
        started = server.run("wait", "-t", "shell", "--match", "started-[0-9]+-", "--timeout", "30")
        sleeper = int(started.stdout.split("-")[1])
        assert sleeper in descendants(shell["pid"])
        assert (read_group_nice(sleeper), _task_nice(sleeper)) == (10, 15)
        assert _nices(server) == {"shell": 10, "other": 0}
        view.request("client.focus", target="shell")
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
        assert read_group_nice(build["pid"]) == 0
    assert server.run("new", "-d", "--background-nice", "20", "--", "cat").returncode == 2  # 0-19 only
