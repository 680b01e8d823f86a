"""CPU time, wake-ups and memory of a process, from /proc (all of its threads)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Usage:
    cpu: float  # seconds of user + system time, every thread
    voluntary: int  # voluntary context switches, every thread: a blocked thread woke up
    involuntary: int

    def __sub__(self, other: Usage) -> Usage:
        return Usage(self.cpu - other.cpu, self.voluntary - other.voluntary, self.involuntary - other.involuntary)


def usage(pid: int) -> Usage:
    """The process's CPU time (/proc/PID/stat) and context switches summed over /proc/PID/task/*."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14 and 15)
    voluntary = involuntary = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        voluntary += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        involuntary += int(line.split()[1])
        except FileNotFoundError:  # a thread ended while we looked
            continue
    return Usage(cpu, voluntary, involuntary)


def rss_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of `pid` in kB."""
    fields: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0])
    return fields


def cpu_ns(pid: int) -> int:
    """CPU time of every thread in nanoseconds (/proc/PID/task/*/schedstat): finer than the 10 ms
    ticks `usage` reads, for windows of a few seconds or bursts of tens of milliseconds."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):  # a thread ended while we looked
            continue
    return total


def thread_wakeups(pid: int) -> dict[str, int]:
    """Voluntary context switches (a thread blocked, then was woken) of each of the process's
    threads so far, by thread name (/proc/PID/task/*/comm; threads of one name are summed)."""
    out: dict[str, int] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            with open(task / "status") as f:
                count = next(int(line.split()[1]) for line in f if line.startswith("voluntary_ctxt_switches:"))
        except (FileNotFoundError, ProcessLookupError, StopIteration):  # a thread ended while we looked
            continue
        out[name] = out.get(name, 0) + count
    return out
