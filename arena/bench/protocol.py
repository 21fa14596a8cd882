"""``arena bench protocol``: what the harness adds to a bot's round trip.

In one run: the raw round trip of the same decide message over plain pipes
to the minimal bot (no sandbox, no harness), the harness's round trip per
decision (``ProcessPlayer.decide``: JSON encoding, CPU-time accounting,
reply validation, freezing the idle bot) with the same bot at each sandbox
level, and the sandbox start time. Raw and harness batches alternate so
machine noise hits both alike; medians of batch means are reported.

The benchmark pins itself (and so every bot it starts) to one core: with two
cores the kernel may put a bot on the client's core (a cheap hand-off) or
on the other one (a cross-core wake-up, about twice the cost), and that
placement, not the protocol, would otherwise decide the ratio.
"""

from __future__ import annotations

from typing import Any

import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ..engine import DealKey, Game, PlayChoice
from ..match.settings import MatchSettings
from ..players import load_entry
from ..players.process import ProcessPlayer
from ..protocol import choice_to_dict
from ..sandbox import measure_start
from ..sandbox.bench import SHELL_BOT

MINIMAL = Path(__file__).resolve().parents[2] / "bots" / "minimal"


def _request() -> dict[str, Any]:
    """A realistic mid-game decide message (second trick, full view)."""
    game = Game(key=DealKey("bench-protocol"))
    rng = random.Random(1)
    while not (isinstance(game.choice, PlayChoice) and len(game.deal.tricks) == 2):
        game.apply(game.choice.sample(rng))
    seat = game.to_act
    return {"type": "decide", "id": 1, "kind": "play", "view": game.view(seat).to_dict(), "legal": choice_to_dict(game.choice)}


def _raw_batch(proc: subprocess.Popen[bytes], request: dict[str, Any], n: int) -> float:
    """The plainest JSON-lines client: encode, write, read a line, decode."""
    assert proc.stdin and proc.stdout
    t0 = time.perf_counter()
    for _ in range(n):
        proc.stdin.write(json.dumps(request, separators=(",", ":")).encode() + b"\n")
        proc.stdin.flush()
        json.loads(proc.stdout.readline())
    return (time.perf_counter() - t0) / n


def _harness_batch(player: ProcessPlayer, request: dict[str, Any], n: int, each: list[float] | None = None) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        t = time.perf_counter()
        d = player.decide(request)
        if each is not None:
            each.append(time.perf_counter() - t)
        if d.fault is not None:
            raise RuntimeError(f"benchmark bot faulted: {d.fault.text}")
    return (time.perf_counter() - t0) / n


def _parts_batch(player: ProcessPlayer, line: bytes, n: int, cycle: list[float], trip: list[float]) -> None:
    """A paused decision's parts without the harness's accounting: the whole ``cycle`` (thaw, the
    request written, the reply read, freeze) and the ``trip`` alone with the seat left running (no
    freezer at all). decide - cycle is the harness's own work; cycle - trip is what the freezer costs
    with the threads it wakes (at gvisor: the Sentry's, docs/sandbox.md)."""
    proc = player.proc
    assert proc is not None and proc.paused
    for _ in range(n):
        t = time.perf_counter()
        proc.resume()
        proc.write_line(line)
        proc.read_line(5.0)
        proc.pause()
        cycle.append(time.perf_counter() - t)
    proc.resume()
    for _ in range(n):
        t = time.perf_counter()
        proc.write_line(line)
        proc.read_line(5.0)
        trip.append(time.perf_counter() - t)
    proc.pause()


def _p50_us(times: list[float]) -> float:
    return round(statistics.median(times) * 1e6, 1)


def _thaw_freeze_p50_us(player: ProcessPlayer, n: int = 200) -> float:
    """p50 of a thaw and a freeze of a seat at rest (both written, not waited for, as in a decision)."""
    proc = player.proc
    assert proc is not None and proc.paused
    pairs = []
    for _ in range(n):
        t = time.perf_counter()
        proc.resume()
        proc.pause()
        pairs.append(time.perf_counter() - t)
    return round(statistics.median(pairs) * 1e6, 1)


def bench_protocol(decisions: int = 2000, batches: int = 10, starts: int = 20, pin: bool = True) -> dict[str, Any]:
    """Measure pinned to one core (``pin``: the bots it starts inherit it), then give the
    calling process its cores back: a caller that goes on (a test session) must not
    keep running on one core."""
    pinned_from = None
    if pin and hasattr(os, "sched_setaffinity"):
        pinned_from = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(pinned_from)})
    try:
        return _measure(decisions, batches, starts, pin)
    finally:
        if pinned_from is not None:
            os.sched_setaffinity(0, pinned_from)


def paused_decision(level: str = "gvisor", decisions: int = 1000, batches: int = 5) -> dict[str, float]:
    """The paused decision round trip of the minimal bot at `level` alone, pinned to one core as
    ``bench_protocol`` is (the cores given back after): its p50 and p99, and the parts of
    `_parts_batch`. For benches that report it beside their own figures, in the same run."""
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    if cores is not None:
        os.sched_setaffinity(0, {min(cores)})
    request = _request()
    line = (json.dumps(request, separators=(",", ":")) + "\n").encode()
    per = max(1, decisions // batches)
    settings = MatchSettings.model_validate({"sandbox": level, "time": {"pause_idle": True, "decision_ms": 5000,
                                                                         "bank_ms": 10**9}})
    player = settings.player(load_entry(MINIMAL), 1)
    try:
        if player.start() is not None:
            raise RuntimeError(f"minimal bot failed to start at level {level}")
        each: list[float] = []
        cycle: list[float] = []
        trip: list[float] = []
        for _ in range(batches):
            _harness_batch(player, request, per, each)
            _parts_batch(player, line, per, cycle, trip)
        each.sort()
        return {"rtt_p50_us": _p50_us(each), "rtt_p99_us": round(each[min(len(each) - 1, int(0.99 * len(each)))] * 1e6, 1),
                "cycle_p50_us": _p50_us(cycle), "trip_p50_us": _p50_us(trip),
                "thaw_freeze_p50_us": _thaw_freeze_p50_us(player), "decisions": len(each)}
    finally:
        player.close()
        if cores is not None:
            os.sched_setaffinity(0, cores)


def levels() -> tuple[str, ...]:
    """The levels measured: every one, but gvisor only where runsc is installed (seats at gvisor
    are always frozen off move, so it is measured paused only)."""
    from ..sandbox import SandboxUnavailable
    from ..sandbox.gvisor import find_runsc

    try:
        find_runsc()
    except SandboxUnavailable:
        return ("none", "rlimit", "bwrap")
    return ("none", "rlimit", "bwrap", "gvisor")


def _measure(decisions: int, batches: int, starts: int, pin: bool) -> dict[str, Any]:
    entry = load_entry(MINIMAL)
    request = _request()
    line = (json.dumps(request, separators=(",", ":")) + "\n").encode()
    per = max(1, decisions // batches)
    raw = subprocess.Popen([sys.executable, str(MINIMAL / "bot.py")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=MINIMAL)
    assert raw.stdin and raw.stdout
    raw.stdin.write(b'{"type":"hello","protocol":[1],"seed":1,"harness":"bench"}\n')
    raw.stdin.flush()
    raw.stdout.readline()
    configs = [(lvl, pause) for lvl in levels() for pause in
               ((False,) if lvl == "none" else (True,) if lvl == "gvisor" else (True, False))]
    players = {}
    out: dict[str, Any] = {"decisions_per_config": per * batches}
    try:
        for lvl, pause in configs:
            st = MatchSettings.model_validate({"sandbox": lvl, "time": {"pause_idle": pause, "decision_ms": 5000, "bank_ms": 10**9}})
            p = st.player(entry, 1)
            if p.start() is not None:
                raise RuntimeError(f"minimal bot failed to start at level {lvl}")
            players[(lvl, pause)] = p
        raw_t: list[float] = []
        ours: dict[tuple[str, bool], list[float]] = {c: [] for c in configs}
        each: dict[tuple[str, bool], list[float]] = {c: [] for c in configs}
        parts: dict[tuple[str, bool], tuple[list[float], list[float]]] = {c: ([], []) for c in configs if c[1]}
        for _ in range(batches):
            raw_t.append(_raw_batch(raw, request, per))
            for c in configs:
                ours[c].append(_harness_batch(players[c], request, per, each[c]))
                if c in parts:
                    _parts_batch(players[c], line, per, *parts[c])
        raw_us = statistics.median(raw_t) * 1e6
        out["raw_rtt_us"] = round(raw_us, 1)
        for (lvl, pause), ts in ours.items():
            us = statistics.median(ts) * 1e6
            name = f"{lvl}{'_paused' if pause else ''}"
            out[f"harness_rtt_us_{name}"] = round(us, 1)
            out[f"ratio_{name}"] = round(us / raw_us, 3)
            one = sorted(each[(lvl, pause)])
            out[f"rtt_p50_us_{name}"] = round(one[len(one) // 2] * 1e6, 1)
            out[f"rtt_p99_us_{name}"] = round(one[min(len(one) - 1, int(0.99 * len(one)))] * 1e6, 1)
            if pause:  # the freezer's share of a paused decision: a thaw and a freeze of the seat at rest
                out[f"thaw_freeze_p50_us_{name}"] = _thaw_freeze_p50_us(players[(lvl, pause)])
                cycle, trip = parts[(lvl, pause)]
                out[f"cycle_p50_us_{name}"], out[f"trip_p50_us_{name}"] = _p50_us(cycle), _p50_us(trip)
    finally:
        for p in players.values():
            p.close()
        raw.kill()
        raw.wait()
    py_first_line = [sys.executable, "-S", "-c", "import sys; print('{}', flush=True); sys.stdin.readline()"]
    for lvl in levels():
        out[f"start_ms_{lvl}"] = round(measure_start(lvl, SHELL_BOT, repeats=starts)["median_ms"], 2)
        out[f"start_ms_{lvl}_python"] = round(measure_start(lvl, py_first_line, repeats=starts)["median_ms"], 2)
    out["request_bytes"] = len(line)
    out["pinned"] = pin
    out["python"] = platform.python_version()
    out["machine"] = f"{platform.machine()} {platform.node()}"
    return out


def run(args: Any) -> int:
    """Measure with the options ``arena bench protocol`` parsed; print a summary, then one JSON line."""
    r = bench_protocol(args.decisions, starts=args.starts, pin=not args.no_pin)
    print(f"raw round trip {r['raw_rtt_us']} us ({r['request_bytes']}-byte decide message, minimal Python bot)")
    for k, v in r.items():
        if k.startswith("harness_rtt_us_"):
            name = k.removeprefix("harness_rtt_us_")
            thaw = (f"; thaw and freeze at rest {r['thaw_freeze_p50_us_' + name]} us, the cycle without the harness"
                    f" {r['cycle_p50_us_' + name]} us, the trip never frozen {r['trip_p50_us_' + name]} us"
                    if "thaw_freeze_p50_us_" + name in r else "")
            print(f"  harness {name:<14} {v:>8} us  ({r['ratio_' + name]}x raw; one decision p50 "
                  f"{r['rtt_p50_us_' + name]} us, p99 {r['rtt_p99_us_' + name]} us{thaw})")
    print("start to first byte: " + ", ".join(f"{k.removeprefix('start_ms_')} {v} ms" for k, v in r.items() if k.startswith("start_ms_")))
    print(json.dumps(r))
    return 0
