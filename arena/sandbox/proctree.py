"""Fallbacks through /proc for when no cgroup is available: find a process
tree, sum its CPU time, stop or continue it. Slower (scans /proc) and racy
against forks, which is why cgroups are preferred."""

from __future__ import annotations

import os
import signal

_CLK_TCK = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    # comm may contain spaces and parentheses: split after the last ')'.
    return raw[raw.rfind(")") + 2:].split()


def descendants(root: int) -> list[int]:
    """`root` and every live process below it (one /proc scan)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fields = _stat_fields(int(name))
        if fields is None:
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def children(pid: int) -> list[int]:
    """The live children of ``pid``, forked by any of its threads (``/proc/PID/task/*/children``)."""
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(k) for k in fh.read().split()]
        except OSError:
            continue
    return out


def tree_cpu_seconds(root: int, *, every_reaped: bool = False) -> float:
    """utime+stime of the live tree, plus what the root collected from reaped children; with
    ``every_reaped``, what every process of the tree collected (a server's bots and Ray tasks, reaped by
    its live workers). The judge times a bot with the root's alone: what its live children reaped is
    theirs to count once they are reaped in turn."""
    total = 0
    for pid in descendants(root):
        fields = _stat_fields(pid)
        if fields is None:
            continue
        # fields[0] is state; utime, stime, cutime, cstime are stat fields 14-17.
        total += int(fields[11]) + int(fields[12])
        if every_reaped or pid == root:
            total += int(fields[13]) + int(fields[14])
    return total / _CLK_TCK


def signal_tree(root: int, sig: signal.Signals) -> None:
    for pid in descendants(root):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass
