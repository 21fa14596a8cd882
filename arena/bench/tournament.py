"""``arena bench tournament``: ms per game of a real tournament, against its raw-pipe floor.

Each configuration (a bot in all four seats at one sandbox level) plays
batches of duplicate blocks exactly as a serial tournament does
(``run_block`` on a batch, then its blocks' results lines appended in one
fsync'd write), once with a fresh process for every game (``restart: per-game``)
and once with processes kept along lineages (``per-lineage``), the two
alternating batch by batch. Each game's time is split into start,
decisions, engine, close and writing results (``GameTiming`` plus what
``run_block`` and the store add).

The floor is what any harness must spend on the same games, measured right
after each batch so that machine drift hits both alike:

* raw: the very same bot processes, kept the same way (a fresh set of four
  for every game per-game; one per lineage, that is per half of a block and
  seat, for the whole batch per-lineage), bare (no sandbox, each in a
  session of its own as every level runs a bot), started side by side and
  greeted, then sent exactly the messages the harness sent them (rebuilt
  from each game's record by the loop that played it, encoded before the
  clock starts, notices in a row to one bot in one write) over raw pipes,
  each decision's reply awaited, and finally told ``bye`` and reaped: the
  bots' own work plus the raw round trips, start and exit;
* engine: the engine alone replaying each game (its legal choices, the
  actions applied, the record), without views, requests or players.

The ratio is measured ms per game over the floor's: the median of the
per-batch ratios (each batch against its own floor, so a burst of outside
load skews one pair, not the figure) and, as ``ratio_of_totals``, the
totals' ratio. Last line: one JSON object.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Hashable, Sequence

from ..engine import Game, game_record, load_record, recorded_decisions
from ..match import DealKey, GameResult, MatchSettings, play_game
from ..players import BotEntry, Decision, Fault, Player, load_entry
from ..players.process import bot_launch_args
from ..protocol import PROTOCOL_VERSIONS, wire
from ..results import ResultsStore
from ..sandbox.process import UncontainedWarning
from ..schedule.task import run_block
from ..schedule.unit import BatchTask, BlockTask

BOTS = Path(__file__).resolve().parents[2] / "bots"
#: (bot, sandbox level) pairs measured by default (the gvisor one where runsc is installed).
CONFIGS: tuple[tuple[str, str], ...] = (("minimal", "none"), ("minimal", "rlimit"), ("minimal", "bwrap"),
                                        ("heuristic", "bwrap"), ("heuristic", "gvisor"))
MODES = ("per-game", "per-lineage")


def default_configs() -> tuple[tuple[str, str], ...]:
    """`CONFIGS`, without level gvisor on a host where runsc is not installed (said in the output)."""
    from ..sandbox import SandboxUnavailable
    from ..sandbox.gvisor import find_runsc

    try:
        find_runsc()
    except SandboxUnavailable:
        return tuple(c for c in CONFIGS if c[1] != "gvisor")
    return CONFIGS
PARTS = ("start", "decisions", "engine", "close", "rest")


def default_tempo() -> tuple[str, str]:
    """The tempo part's default: heuristic at gvisor (at bwrap without runsc)."""
    return "heuristic", "gvisor" if any(lv == "gvisor" for _, lv in default_configs()) else "bwrap"


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
                log: list[tuple[int, dict[str, Any]]] | None = None, seeds: Sequence[int] | None = None) -> GameResult:
    """Play a recorded game again through the loop that played it, players answering from the record.

    Without a ``log`` its ``timing.engine`` is the engine's share of the game
    (keeping the messages would add the collector's work on what it keeps).
    """
    by_seat: list[list[Any]] = [[], [], [], []]
    for seat, action in recorded_decisions(load_record(record)):
        by_seat[seat].append(action)
    players = [_Replayer(s, by_seat[s], log, settings.time.decision_ms) for s in range(4)]
    again = play_game(players, settings, key, players_by_seat=names, seeds=seeds)
    if again.record != record:
        raise RuntimeError("benchmark bot is not deterministic: its game does not replay")
    return again


#: One message of a replayed game: the seat, its line(s) already encoded, and whether a reply is awaited.
Send = tuple[int, bytes, bool]


def encoded_stream(stream: Sequence[tuple[int, dict[str, Any]]]) -> list[Send]:
    """The messages as lines, consecutive notices to one seat joined in one write (as the harness
    does: a deal's end goes with the next deal's start); every request is a write of its own."""
    out: list[Send] = []
    for seat, msg in stream:
        line = json.dumps(msg, separators=(",", ":")).encode() + b"\n"
        ask = msg["type"] == "decide"
        if out and out[-1][0] == seat and not out[-1][2] and not ask:
            out[-1] = (seat, out[-1][1] + line, False)
        else:
            out.append((seat, line, ask))
    return out


class RawPipes:
    """Bare bot processes spoken to by the plainest JSON lines client, kept along lineages.

    A process is keyed by its lineage: the harness keeps one per (half of a
    block, seat) along a per-lineage batch, and a fresh one for every game
    per-game; the caller names the key of each seat of each game. Each runs
    in a session of its own, as every sandbox level puts a bot: where the
    kernel groups tasks by session for CPU shares (autogroup), that is what
    a bot's scheduling is like under outside load.
    """

    def __init__(self, entry: BotEntry, profile: dict[str, Any]) -> None:
        self.argv, env, _ = bot_launch_args(entry)
        self.env, self.cwd, self.profile = {**os.environ, **env}, entry.dir, profile
        self.procs: dict[Hashable, subprocess.Popen[bytes]] = {}

    def seat(self, keys: Sequence[Hashable], seeds: Sequence[int]) -> list[subprocess.Popen[bytes]]:
        """The processes of one game's seats: those not up yet spawned side by side, then greeted."""
        new = [(k, seed) for k, seed in zip(keys, seeds) if k not in self.procs]
        for k, _ in new:
            self.procs[k] = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.DEVNULL, cwd=self.cwd, env=self.env,
                                             start_new_session=True)
        for k, seed in new:
            p = self.procs[k]
            assert p.stdin and p.stdout
            p.stdin.write(wire.encode(wire.hello(PROTOCOL_VERSIONS, seed, "bench", self.profile)))
            p.stdin.flush()
        for k, _ in new:
            stdout = self.procs[k].stdout
            assert stdout is not None
            if not stdout.readline():
                raise RuntimeError("benchmark bot exited before its handshake")
        return [self.procs[k] for k in keys]

    @staticmethod
    def play(procs: Sequence[subprocess.Popen[bytes]], stream: Sequence[Send]) -> None:
        """Send a game's lines and await every decision's reply."""
        for seat, data, ask in stream:
            p = procs[seat]
            assert p.stdin and p.stdout
            p.stdin.write(data)
            p.stdin.flush()
            if ask and not p.stdout.readline():
                raise RuntimeError("benchmark bot exited during its game")

    def close(self, keys: Sequence[Hashable] | None = None) -> None:
        """Say ``bye`` and reap (all processes, or those of ``keys``); kill one that lingers."""
        keys = list(self.procs) if keys is None else keys
        bye = wire.encode(wire.bye(None))
        for k in keys:
            stdin = self.procs[k].stdin
            assert stdin is not None
            try:
                stdin.write(bye)
                stdin.close()
            except OSError:
                pass
        for k in keys:
            p = self.procs.pop(k)
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            if p.stdout is not None:
                p.stdout.close()


def engine_alone(record: dict[str, Any], settings: MatchSettings, key: DealKey) -> float:
    """Seconds the engine alone takes to play a recorded game again: legal choices, actions, record."""
    actions = [a for _, a in recorded_decisions(load_record(record))]
    fixed = settings.fixed_deals
    t0 = time.perf_counter()
    try:
        game = Game(settings.profile, key=key, max_deals=max(settings.max_deals, fixed or 0), fixed_deals=fixed)
        for action in actions:
            game.choice  # noqa: B018 - the legal set, as the harness computes it before every decision
            game.apply(action)
        again: dict[str, Any] | None = game_record(game)
    except Exception:  # noqa: BLE001 - an action the engine refuses: not this game
        again = None
    dt = time.perf_counter() - t0
    if again != record:
        raise RuntimeError("the engine does not replay the benchmark's game")
    return dt


@dataclass
class ModeRun:
    """One restart mode of one configuration: the tournament's figures and the floor's, batch by batch."""

    games: int = 0
    wall: float = 0.0
    parts: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PARTS, 0.0))
    decisions: int = 0
    raw: float = 0.0
    engine: float = 0.0
    #: per batch: (measured seconds per game, floor seconds per game), paired so a burst of outside load hits one pair
    pairs: list[tuple[float, float]] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        g = self.games
        per_game = self.wall / g * 1000
        floor = {"raw": self.raw / g * 1000, "engine": self.engine / g * 1000}
        floor_ms = sum(floor.values())
        return {
            "games": g, "games_per_s": round(g / self.wall, 3), "ms_per_game": round(per_game, 2),
            "split_ms": {k: round(v / g * 1000, 2) for k, v in self.parts.items()},
            "decisions_per_game": round(self.decisions / g, 1),
            "floor_ms": {**{k: round(v, 2) for k, v in floor.items()}, "total": round(floor_ms, 2)},
            "ratio": round(statistics.median(m / f for m, f in self.pairs), 3),
            "ratio_of_totals": round(per_game / floor_ms, 3),
        }


def measure_batch(run: ModeRun, entry: BotEntry, level: str, mode: str, index: int, lineage_blocks: int,
                  store: ResultsStore, fmt: dict[str, Any]) -> None:
    """Play one batch of ``lineage_blocks`` blocks (timed), then its floor; add both to ``run``."""
    settings = MatchSettings.model_validate({"sandbox": level, **fmt, "restart": mode, "lineage_blocks": lineage_blocks})
    batch = BatchTask(tuple(
        BlockTask(f"{entry.manifest.name}-{level}", b, DealKey(f"bench-tournament-{mode}-{index}-{b}"),
                  (entry.ident,) * 2, (entry.ident,) * 2, settings, "bench")
        for b in range(index * lineage_blocks, (index + 1) * lineage_blocks)))
    t0 = time.perf_counter()
    output = run_block(batch, {entry.ident: entry})
    store.append_all(output.lines)  # as the scheduler stores a unit's lines
    dt = time.perf_counter() - t0
    inside = 0.0
    games: list[tuple[Hashable, list[int], list[Send]]] = []  # each game's lineage, seeds and lines, in play order
    engine = 0.0
    for task, line in zip(batch.blocks, output.lines):
        for h, game in enumerate(line.games):
            if game.forfeit_by is not None or game.faults:
                raise RuntimeError(f"benchmark bot faulted: {game.faults[:1]}")
            t = line.run.games[h]["timing_ms"]
            for k in ("start", "decisions", "engine", "close"):
                run.parts[k] += t[k] / 1000
                inside += t[k] / 1000
            stream: list[tuple[int, dict[str, Any]]] = []
            replay_game(game.record, settings, task.block_key, [e.bot for e in game.seats], stream, game.seeds)
            run.decisions += sum(1 for _, m in stream if m["type"] == "decide")
            games.append((h if mode == "per-lineage" else len(games), game.seeds, encoded_stream(stream)))
            engine += engine_alone(game.record, settings, task.block_key)
    # players made, results lines built and validated, fsync'd appends, a batch's kept seats closed at its end
    run.parts["rest"] += dt - inside
    pipes = RawPipes(entry, settings.profile.model_dump(mode="json"))
    try:
        t1 = time.perf_counter()
        for lineage, seeds, sends in games:
            keys = [(lineage, s) for s in range(4)]
            RawPipes.play(pipes.seat(keys, seeds), sends)
            if mode == "per-game":
                pipes.close(keys)
        pipes.close()
        raw = time.perf_counter() - t1
    finally:
        for p in pipes.procs.values():
            p.kill()
            p.wait()
    run.games += len(games)
    run.wall += dt
    run.raw += raw
    run.engine += engine
    run.pairs.append((dt / len(games), (raw + engine) / len(games)))


def measure_config(bot: str, level: str, batches: int, lineage_blocks: int, out: Path,
                   fmt: dict[str, Any]) -> dict[str, ModeRun]:
    """Both restart modes of one configuration, alternating batch by batch."""
    entry = load_entry(bot_folder(bot))
    runs = {m: ModeRun() for m in MODES}
    for i in range(batches):
        for mode in MODES if i % 2 == 0 else MODES[::-1]:
            measure_batch(runs[mode], entry, level, mode, i, lineage_blocks, ResultsStore(out / mode), fmt)
    return runs


def bench_tournament(blocks: int = 16, configs: Sequence[tuple[str, str]] = CONFIGS, deals: int = 0,
                     lineage_blocks: int = 8) -> dict[str, Any]:
    """``blocks`` blocks per configuration and restart mode, in batches of ``lineage_blocks``."""
    lineage_blocks = max(1, min(lineage_blocks, blocks))
    batches = max(1, blocks // lineage_blocks)
    fmt: dict[str, Any] = {"format": "deals", "deals": deals} if deals else {}
    out: dict[str, Any] = {"cores": cores(), "blocks": batches * lineage_blocks, "lineage_blocks": lineage_blocks,
                           "format": "deals" if deals else "game", "load_before": _load(), "configs": {}}
    with warnings.catch_warnings(), tempfile.TemporaryDirectory(prefix="arena-bench-t-") as tmp:
        warnings.simplefilter("ignore", UncontainedWarning)
        for bot, level in configs:
            name = f"{Path(bot).name}-{level}"
            runs = measure_config(bot, level, batches, lineage_blocks, Path(tmp) / name, fmt)
            rep = out["configs"][name] = {m: r.report() for m, r in runs.items()}
            for m in MODES:
                out[f"ratio_{Path(bot).name}_{level}_{m.replace('-', '_')}"] = rep[m]["ratio"]
            rep["lineage_speedup"] = round(rep["per-game"]["ms_per_game"] / rep["per-lineage"]["ms_per_game"], 3)
    # A kernel per seat, kept up per lineage, against bwrap's fresh processes (the issue-31 target):
    # both measured in this run, side by side.
    for name in {Path(b).name for b, lvl in configs if lvl == "gvisor"}:
        gv, bw = out["configs"].get(f"{name}-gvisor"), out["configs"].get(f"{name}-bwrap")
        if gv and bw:
            out[f"gvisor_lineage_vs_bwrap_game_{name}"] = round(
                gv["per-lineage"]["ms_per_game"] / bw["per-game"]["ms_per_game"], 3)
    if any(lvl == "gvisor" for _, lvl in configs):  # the issue-44 pair: the game's ratio and a decision's trip
        from .protocol import paused_decision

        out["gvisor_paused_decision"] = paused_decision("gvisor")
    out["load_after"] = _load()
    out["python"] = platform.python_version()
    out["machine"] = f"{platform.machine()} {platform.node()}"
    return out


def _load() -> list[float]:
    """The load averages (1, 5, 15 minutes): how busy the machine was around the figures."""
    return [round(x, 2) for x in os.getloadavg()]


def run(args: Any) -> int:
    """Measure with the options ``arena bench tournament`` parsed; print a summary, then one JSON line."""
    if args.tempo_only:  # the tempo part alone (docs/benchmarks.md)
        from .tempo import print_tempo

        r: dict[str, Any] = {"cores": cores(), "load_before": _load()}
        bot, level = args.tempo or default_tempo()
        print_tempo(r, bot, level, max(1, args.tempo_blocks))
        r["load_after"] = _load()
        print(json.dumps(r))
        return 0
    r = bench_tournament(args.blocks, args.config or default_configs(), args.deals, args.lineage_blocks)
    print(f"{r['cores']} cores, {r['blocks']} blocks per configuration and restart mode"
          f" (batches of {r['lineage_blocks']}), format {r['format']}; load {r['load_before']} -> {r['load_after']}")
    for name, c in r["configs"].items():
        for m in MODES:
            x = c[m]
            split = ", ".join(f"{k} {v}" for k, v in x["split_ms"].items())
            fl = x["floor_ms"]
            print(f"  {name:<17} {m:<11} {x['ms_per_game']:>7} ms/game ({split}; {x['decisions_per_game']} decisions)")
            print(f"  {'':<29} floor {fl['total']:>7} ms/game (raw pipes {fl['raw']}, engine alone {fl['engine']})"
                  f"  ratio {x['ratio']}x (totals {x['ratio_of_totals']}x)")
        print(f"  {name:<17} per-lineage is {c['lineage_speedup']}x as fast as per-game")
    for k, v in r.items():
        if k.startswith("gvisor_lineage_vs_bwrap_game_"):
            print(f"  {k.removeprefix('gvisor_lineage_vs_bwrap_game_')}: gvisor per-lineage / bwrap per-game = {v}x")
    if "gvisor_paused_decision" in r:
        d = r["gvisor_paused_decision"]
        print(f"  gvisor paused decision (minimal bot, one core): p50 {d['rtt_p50_us']} us, p99 {d['rtt_p99_us']} us;"
              f" without the harness {d['cycle_p50_us']} us, never frozen {d['trip_p50_us']} us")
    if not args.config and all(level != "gvisor" for _, level in default_configs()):
        print("  (level gvisor not measured: runsc is not installed here)")
    if args.tempo_blocks > 0 and (args.tempo or not args.config):
        from .tempo import print_tempo

        bot, level = args.tempo or default_tempo()
        print_tempo(r, bot, level, args.tempo_blocks)
    print(json.dumps(r))
    return 0
