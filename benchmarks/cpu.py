"""Other processes' CPU use while we measure (Linux ``/proc``), and waiting for quiet.

On a shared 2-core machine another JVM can halve a measurement's speed. For each run the
benchmark records ``other_cores``: the average number of cores busy with processes that
are neither this client (and its children) nor our Spark server during the run.
``--wait-idle`` waits before each run until that drops below a threshold.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass

_CLK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class Snapshot:
    at: float
    system: float  # busy CPU seconds of the whole machine
    server: float  # CPU seconds of our Spark server
    own: float  # CPU seconds of this process and its reaped children


def _system_busy() -> float:
    with open("/proc/stat", encoding="ascii") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / _CLK


def _process_cpu(pid: int | None) -> float:
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            parts = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # fields 14-17 of stat (utime, stime, cutime, cstime), counted after the ")"
    return sum(int(x) for x in parts[11:15]) / _CLK


def _own_cpu() -> float:
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


class CpuMeter:
    """Measures CPU used by everything except us and our server."""

    def __init__(self, server_pid: int | None) -> None:
        self.server_pid = server_pid
        self.available = os.path.exists("/proc/stat")

    def snapshot(self) -> Snapshot | None:
        if not self.available:
            return None
        return Snapshot(time.monotonic(), _system_busy(), _process_cpu(self.server_pid), _own_cpu())

    @staticmethod
    def other_cores(a: Snapshot | None, b: Snapshot | None) -> float | None:
        """Average cores used by other processes between two snapshots."""
        if a is None or b is None or b.at <= a.at:
            return None
        other = (b.system - a.system) - (b.server - a.server) - (b.own - a.own)
        return round(max(0.0, other) / (b.at - a.at), 2)

    def wait_idle(self, max_wait: float, threshold: float = 0.3, window: float = 2.0) -> float:
        """Wait (at most ``max_wait`` s) until other processes use under ``threshold`` cores
        over ``window`` seconds; returns the seconds waited."""
        if not self.available or max_wait <= 0:
            return 0.0
        start = time.monotonic()
        while True:
            a = self.snapshot()
            time.sleep(window)
            busy = self.other_cores(a, self.snapshot())
            waited = time.monotonic() - start
            if busy is None or busy < threshold or waited >= max_wait:
                return round(waited - window, 1) if busy is not None and busy < threshold else round(waited, 1)
