"""``arena bench tournament``: games per second of a real tournament, against its floor.

Each configuration (a bot in all four seats at one sandbox level) plays
duplicate blocks exactly as a serial tournament does (``run_block``, then
the fsync'd append to a results store), and each game's time is split into
start, decisions, engine, close and writing results (``GameTiming`` plus
what ``run_block`` and the store add).

The floor is measured in the same run, interleaved block by block with the
tournament so machine drift hits both alike:

* start: one bot started alone at the same level (launch to handshake),
  taken as four such starts side by side on the available cores
  (``4 / min(4, cores)`` of one start);
* decisions: the game's very messages (rebuilt from its record by the same
  loop that played it) sent to four fresh bare bot processes (started and
  greeted before the clock starts, each in its own session as every
  sandbox level runs a bot) by the plainest JSON lines client over pipes
  (no sandbox, no harness): the bots' own work plus the raw round trip.
  The same with the bots in the client's session is reported beside it
  (``raw_same_session_ms``): on a kernel that shares CPU by session
  (autogroup) and a loaded machine, the two differ;
* engine: the same loop driving the engine with in-process players that
  answer from the record: views, legal choices, requests, the record.

The ratio is measured milliseconds per game over the floor's: the median
of the per-block ratios (each block against the floor measured right after
it, so a burst of outside load skews one pair, not the figure), and, as
``ratio_of_totals``, the totals' ratio. Last line: one JSON object.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..engine import load_record, recorded_decisions
from ..match import DealKey, GameResult, MatchSettings, play_game
from ..players import BotEntry, Decision, Fault, Player, load_entry
from ..players.process import bot_launch_args
from ..results import ResultsStore
from ..sandbox.process import UncontainedWarning
from ..schedule.task import run_block
from ..schedule.unit import BatchTask, BlockTask

BOTS = Path(__file__).resolve().parents[2] / "bots"
#: (bot, sandbox level) pairs measured by default (the gvisor one where runsc is installed).
CONFIGS: tuple[tuple[str, str], ...] = (("minimal", "none"), ("minimal", "rlimit"), ("minimal", "bwrap"),
                                        ("heuristic", "bwrap"), ("heuristic", "gvisor"))


def default_configs() -> tuple[tuple[str, str], ...]:
    """`CONFIGS`, without level gvisor on a host where runsc is not installed (said in the output)."""
    from ..sandbox import SandboxUnavailable
    from ..sandbox.gvisor import find_runsc

    try:
        find_runsc()
    except SandboxUnavailable:
        return tuple(c for c in CONFIGS if c[1] != "gvisor")
    return CONFIGS
PARTS = ("start", "decisions", "engine", "close", "writing")


def bot_folder(bot: str) -> Path:
    """A baseline's name (a folder of bots/) or a bot folder's path."""
    return BOTS / bot if (BOTS / bot / "bot.yaml").is_file() else Path(bot)


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class _Replayer(Player):
    """Answers from a record; with a ``log``, keeps every message it is sent, in game order."""

    def __init__(self, seat: int, actions: list[Any], log: list[tuple[int, dict[str, Any]]] | None, decision_ms: int) -> None:
        self.seat, self.actions, self.log, self.decision_ms = seat, actions, log, decision_ms
        self.name = f"replay-{seat}"
        self._next = 0

    def notify(self, msg: dict[str, Any]) -> Fault | None:
        if self.log is not None:
            self.log.append((self.seat, msg))
        return None

    def decide(self, request: dict[str, Any]) -> Decision:
        # the fields ProcessPlayer adds, so the raw client sends lines of the same size
        request["time_left_ms"] = 100_000
        request["decision_ms"] = self.decision_ms
        if self.log is not None:
            self.log.append((self.seat, request))
        self._next += 1
        return Decision(self.actions[self._next - 1])


def replay_game(record: dict[str, Any], settings: MatchSettings, key: DealKey, names: Sequence[str],
                log: list[tuple[int, dict[str, Any]]] | None = None) -> GameResult:
    """Play a recorded game again through the loop that played it, players answering from the record.

    Without a ``log`` its ``timing.engine`` is the engine's share of the game
    (keeping the messages would add the collector's work on what it keeps).
    """
    by_seat: list[list[Any]] = [[], [], [], []]
    for seat, action in recorded_decisions(load_record(record)):
        by_seat[seat].append(action)
    players = [_Replayer(s, by_seat[s], log, settings.time.decision_ms) for s in range(4)]
    again = play_game(players, settings, key, players_by_seat=names)
    if again.record != record:
        raise RuntimeError("benchmark bot is not deterministic: its game does not replay")
    return again


class _RawSeats:
    """Four fresh bare bot processes (no sandbox) spoken to by the plainest JSON lines client.

    Fresh for every game, as the harness's are: a new interpreter is slower
    for its first decisions (cold caches, code not yet specialised), which
    one process per game makes part of any game's cost. Each in a session
    of its own, as every sandbox level puts a bot (``new_session``): where
    the kernel groups tasks by session for CPU shares (autogroup), that is
    what the bots' scheduling is like under outside load.
    """

    def __init__(self, entry: BotEntry, seeds: Sequence[int], new_session: bool = True) -> None:
        argv, env, _ = bot_launch_args(entry)
        self.procs = [subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       cwd=entry.dir, env={**os.environ, **env}, start_new_session=new_session)
                      for _ in range(4)]
        for seat, p in enumerate(self.procs):
            self._ask(p, {"type": "hello", "protocol": [1], "seed": seeds[seat], "harness": "bench"})

    @staticmethod
    def _ask(p: subprocess.Popen[bytes], msg: dict[str, Any]) -> Any:
        assert p.stdin and p.stdout
        p.stdin.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
        p.stdin.flush()
        return json.loads(p.stdout.readline())

    def play(self, stream: list[tuple[int, dict[str, Any]]]) -> float:
        """Seconds to send the stream (notices) and have every decision answered."""
        t0 = time.perf_counter()
        for seat, msg in stream:
            p = self.procs[seat]
            assert p.stdin and p.stdout
            p.stdin.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
            p.stdin.flush()
            if msg["type"] == "decide":
                json.loads(p.stdout.readline())
        return time.perf_counter() - t0

    def close(self) -> None:
        for p in self.procs:
            p.kill()
            p.wait()


def start_alone(entry: BotEntry, settings: MatchSettings, seed: int) -> float:
    """Seconds from launch to handshake of one bot started on its own."""
    p = settings.player(entry, seed)
    try:
        t0 = time.perf_counter()
        fault = p.start()
        dt = time.perf_counter() - t0
    finally:
        p.close()
    if fault is not None:
        raise RuntimeError(f"benchmark bot failed to start: {fault.text}")
    return dt


@dataclass
class ConfigRun:
    bot: str
    level: str
    games: int = 0
    wall: float = 0.0
    parts: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PARTS, 0.0))
    decisions: int = 0
    starts: list[float] = field(default_factory=list)
    raw: list[float] = field(default_factory=list)
    raw_shared: list[float] = field(default_factory=list)  # the same, bots in the client's session
    engine: list[float] = field(default_factory=list)
    #: per block: (measured seconds per game, floor seconds per game), paired so a burst of outside load hits one pair
    pairs: list[tuple[float, float]] = field(default_factory=list)

    def floor_of(self, starts: Sequence[float], raw: Sequence[float], engine: Sequence[float], n_cores: int) -> dict[str, float]:
        """Seconds per game: four starts side by side on the cores, the raw round trips, the engine."""
        return {"start": statistics.fmean(starts) * 4 / min(4, n_cores), "decisions": statistics.fmean(raw),
                "engine": statistics.fmean(engine)}

    def report(self, n_cores: int) -> dict[str, Any]:
        g = self.games
        floor = self.floor_of(self.starts, self.raw, self.engine, n_cores)
        floor_ms = sum(floor.values()) * 1000
        per_game = self.wall / g * 1000
        return {
            "games": g, "games_per_s": round(g / self.wall, 3), "ms_per_game": round(per_game, 2),
            "split_ms": {k: round(v / g * 1000, 2) for k, v in self.parts.items()},
            "decisions_per_game": round(self.decisions / g, 1),
            "floor_ms": {**{k: round(v * 1000, 2) for k, v in floor.items()}, "total": round(floor_ms, 2)},
            "start_alone_ms": round(statistics.fmean(self.starts) * 1000, 2),
            "raw_same_session_ms": round(statistics.fmean(self.raw_shared) * 1000, 2),
            "ratio": round(statistics.median(m / f for m, f in self.pairs), 3),
            "ratio_of_totals": round(per_game / floor_ms, 3),
        }


def measure_config(bot: str, level: str, blocks: int, out: Path, fmt: dict[str, Any]) -> ConfigRun:
    """Play ``blocks`` blocks serially (timed) and measure the floor between them."""
    entry = load_entry(bot_folder(bot))
    settings = MatchSettings.model_validate({"sandbox": level, **fmt})
    bots = {entry.ident: entry}
    store = ResultsStore(out)
    run = ConfigRun(bot, level)
    n_cores = cores()
    for b in range(blocks):
        task = BlockTask(f"{bot}-{level}", b, DealKey(f"bench-tournament-{b}"), (entry.ident,) * 2, (entry.ident,) * 2,
                         settings, "bench")
        t0 = time.perf_counter()
        output = run_block(task, bots)
        store.append(output.line)
        dt = time.perf_counter() - t0
        run.wall += dt
        timings = output.line.run.games
        inside = 0.0
        for timing in timings:
            t = timing["timing_ms"]
            for k in ("start", "decisions", "engine", "close"):
                run.parts[k] += t[k] / 1000
                inside += t[k] / 1000
        run.parts["writing"] += dt - inside  # players made, results line built and validated, fsync'd append
        mark = len(run.raw)
        for h, game in enumerate(output.line.games):
            if game.forfeit_by is not None or game.faults:
                raise RuntimeError(f"benchmark bot faulted: {game.faults[:1]}")
            names = [e.bot for e in game.seats]
            run.engine.append(replay_game(game.record, settings, task.block_key, names).timing.engine)
            stream: list[tuple[int, dict[str, Any]]] = []
            replay_game(game.record, settings, task.block_key, names, stream)
            for new_session in ((True, False) if h == 0 else (False, True)):
                raw = _RawSeats(entry, game.seeds, new_session)
                try:
                    (run.raw if new_session else run.raw_shared).append(raw.play(stream))
                finally:
                    raw.close()
            run.decisions += sum(1 for _, m in stream if m["type"] == "decide")
            run.starts.append(start_alone(entry, settings, 1000 * b + h))
        run.games += len(timings)
        floor = run.floor_of(run.starts[mark:], run.raw[mark:], run.engine[mark:], n_cores)
        run.pairs.append((dt / len(timings), sum(floor.values())))
    return run


def measure_restart(bot: str, level: str, batches: int, lineage_blocks: int, fmt: dict[str, Any]) -> dict[str, Any]:
    """ms per game with a fresh process every game and with processes kept along lineages, alternating."""
    entry = load_entry(bot_folder(bot))
    bots = {entry.ident: entry}
    walls = {"per-game": 0.0, "per-lineage": 0.0}
    games = {"per-game": 0, "per-lineage": 0}
    for i in range(batches):
        for mode in ("per-game", "per-lineage") if i % 2 == 0 else ("per-lineage", "per-game"):
            settings = MatchSettings.model_validate({"sandbox": level, **fmt, "restart": mode,
                                                     "lineage_blocks": lineage_blocks})
            batch = BatchTask(tuple(
                BlockTask(f"{bot}-{level}", b, DealKey(f"bench-restart-{mode}-{i}-{b}"), (entry.ident,) * 2,
                          (entry.ident,) * 2, settings, "bench")
                for b in range(i * lineage_blocks, (i + 1) * lineage_blocks)))
            t0 = time.perf_counter()
            output = run_block(batch, bots)
            walls[mode] += time.perf_counter() - t0
            for line in output.lines:
                if any(g.faults for g in line.games):
                    raise RuntimeError(f"benchmark bot faulted: {line.games[0].faults[:1]}")
                games[mode] += len(line.games)
    ms = {m: round(walls[m] / games[m] * 1000, 2) for m in walls}
    return {"lineage_blocks": lineage_blocks, "games_each": games["per-game"], "ms_per_game": ms,
            "ratio": round(ms["per-lineage"] / ms["per-game"], 3)}


def bench_tournament(blocks: int = 10, configs: Sequence[tuple[str, str]] = CONFIGS, deals: int = 0) -> dict[str, Any]:
    fmt: dict[str, Any] = {"format": "deals", "deals": deals} if deals else {}
    n = cores()
    out: dict[str, Any] = {"cores": n, "blocks": blocks, "format": "deals" if deals else "game", "configs": {}}
    with warnings.catch_warnings(), tempfile.TemporaryDirectory(prefix="arena-bench-t-") as tmp:
        warnings.simplefilter("ignore", UncontainedWarning)
        for bot, level in configs:
            name = f"{Path(bot).name}-{level}"
            rep = measure_config(bot, level, blocks, Path(tmp) / name, fmt).report(n)
            out["configs"][name] = rep
            out[f"ratio_{Path(bot).name}_{level}"] = rep["ratio"]
            out[f"games_per_s_{Path(bot).name}_{level}"] = rep["games_per_s"]
            rep["restart"] = measure_restart(bot, level, max(2, blocks // 8), 8, fmt)
            out[f"lineage_ratio_{Path(bot).name}_{level}"] = rep["restart"]["ratio"]
    # A kernel per seat, kept up per lineage, against bwrap's fresh processes (the issue-31 target):
    # both measured in this run, side by side.
    for name in {Path(b).name for b, lvl in configs if lvl == "gvisor"}:
        gv, bw = out["configs"].get(f"{name}-gvisor"), out["configs"].get(f"{name}-bwrap")
        if gv and bw:
            out[f"gvisor_lineage_vs_bwrap_game_{name}"] = round(
                gv["restart"]["ms_per_game"]["per-lineage"] / bw["restart"]["ms_per_game"]["per-game"], 3)
    out["python"] = platform.python_version()
    out["machine"] = f"{platform.machine()} {platform.node()}"
    return out


def run(args: Any) -> int:
    """Measure with the options ``arena bench tournament`` parsed; print a summary, then one JSON line."""
    r = bench_tournament(args.blocks, args.config or default_configs(), args.deals)
    print(f"{r['cores']} cores, {r['blocks']} blocks per configuration, format {r['format']}")
    for name, c in r["configs"].items():
        split = ", ".join(f"{k} {v}" for k, v in c["split_ms"].items())
        fl = c["floor_ms"]
        print(f"  {name:<17} {c['games_per_s']:>6} games/s  {c['ms_per_game']:>7} ms/game ({split})")
        print(f"  {'':<17} floor {fl['total']} ms (start {fl['start']}, decisions {fl['decisions']}, engine {fl['engine']};"
              f" one start alone {c['start_alone_ms']} ms; decisions with the bots in the client's session"
              f" {c['raw_same_session_ms']} ms)  ratio {c['ratio']}x (totals {c['ratio_of_totals']}x)  [{c['decisions_per_game']} decisions/game]")
        rs = c["restart"]
        print(f"  {'':<17} restart per-game {rs['ms_per_game']['per-game']} ms/game, per-lineage"
              f" {rs['ms_per_game']['per-lineage']} ms/game ({rs['lineage_blocks']}-block batches,"
              f" {rs['games_each']} games each): ratio {rs['ratio']}x")
    for k, v in r.items():
        if k.startswith("gvisor_lineage_vs_bwrap_game_"):
            print(f"  {k.removeprefix('gvisor_lineage_vs_bwrap_game_')}: gvisor per-lineage / bwrap per-game = {v}x")
    if not args.config and all(level != "gvisor" for _, level in default_configs()):
        print("  (level gvisor not measured: runsc is not installed here)")
    print(json.dumps(r))
    return 0
