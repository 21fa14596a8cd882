"""A duplicate block: the same deals played twice, partnerships swapped; at a
table of n seats without fixed pairs, n times with the entrants rotated.

Seating. Partnership A = (a0, a1) and B = (b0, b1). In game 0, a0 sits at
seat 0, b0 at 1, a1 at 2, b1 at 3. In game 1 every bot takes the seat its
counterpart had: b0 at 0, a0 at 1, b1 at 2, a1 at 3. Both games use the
block key as their deal key, so deal k has the same deck and the same
dealer seat in both: each partnership holds, in game 1, the cards the other
held in game 0, even when the two games last a different number of deals.
With ``match.restart: per-game`` every game gets fresh players (fresh
processes and scratch); with ``per-lineage`` a batch of blocks keeps one
process per (half, seat) (``play_blocks``). The bots' seeds differ between
the two games; a process kept for a lineage's next game gets that game's
seed in its ``game`` notice, so a bot that reseeds there plays exactly as a
fresh process would.

At a table of n seats (``play_table_blocks``) rotation r seats the table's
entrant i at seat (i + r) mod n (``rotation_seating``), every rotation on the
block key: over the block each entrant holds every seat's cards once. A
kept process there is one per (rotation, entrant): the entrant's seat may
differ from block to block (the table's seat order is the block's).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .._json import Json, JsonObject
from ..engine.chance import DeckSource
from ..players.base import Player, PlayerReport
from ..players.process import STDERR_TAIL
from ..players.manifest import BotEntry
from .game import GameResult, blame_cleanup, close_all, play_game
from .keys import DealKey, bot_seed
from .settings import MatchSettings

PlayerFactory = Callable[[BotEntry, int], Player]


def seating(side_a: Sequence[BotEntry], side_b: Sequence[BotEntry], half: int) -> list[BotEntry]:
    """Entries by seat for game ``half`` (0 or 1) of a block."""
    a0, a1 = side_a
    b0, b1 = side_b
    return [a0, b0, a1, b1] if half == 0 else [b0, a0, b1, a1]


def rotation_seating(entrants: int, r: int) -> list[int]:
    """The entrant index at each seat in rotation ``r`` of a table of ``entrants`` seats: entrant
    ``i`` sits at seat ``(i + r) % n``, so over n rotations it holds every seat's cards once."""
    return [(s - r) % entrants for s in range(entrants)]


@dataclass(frozen=True)
class BlockSpec:
    """One block of a batch: its index, its deal key, and where the decks of each game come
    from (``source_for(game)``; None: the engine's keyed deals)."""

    index: int
    key: DealKey
    source_for: Callable[[int], DeckSource | None] | None = None


@dataclass
class BlockResult:
    block_index: int
    block_key: DealKey
    side_a: tuple[BotEntry, ...]  # two partnerships; empty at a table
    side_b: tuple[BotEntry, ...]
    games: list[GameResult]
    seats: list[list[BotEntry]]
    seeds: list[list[int]]
    table: tuple[BotEntry, ...] = ()  # a table's entrants by seat in rotation 0

    def score_a(self) -> float:
        """Partnership A's total over the two games (0, 0.5, ..., 2)."""
        total = 0.0
        for half, g in enumerate(self.games):
            side_of_a = 0 if half == 0 else 1
            total += 0.5 if g.winner is None else float(g.winner == side_of_a)
        return total

    def game_dict(self, half: int) -> JsonObject:
        """The scored, run-independent part of one game."""
        g = self.games[half]
        return {
            "seats": [{"bot": e.name, "digest": e.digest} for e in self.seats[half]],
            "seeds": list[Json](self.seeds[half]),
            **({} if self.table else {"side_a": 0 if half == 0 else 1}),
            "winner": g.winner,
            "end": g.end,
            "unfinished": g.end == "cap",
            "scores": list(g.scores),
            "forfeit_by": g.forfeit_by,
            "faults": [f.to_dict() for f in g.faults],
            "record": g.record,
        }

    def game_run(self, half: int) -> JsonObject:
        """Timings and other facts that vary from run to run."""
        g = self.games[half]
        t = g.timing
        return {
            "wall_s": round(g.wall_s, 4),
            "timing_ms": {k: round(v * 1000, 3) for k, v in
                          (("start", t.start), ("decisions", t.decisions), ("engine", t.engine), ("close", t.close))},
            "players": [
                {
                    "bot": r.name,
                    "startup_ms": None if r.startup_ms is None else round(r.startup_ms, 2),
                    "latency_ms": [round(x, 3) for x in r.latencies_ms],
                    "cpu_ms": [round(x, 3) for x in r.cpu_ms],
                    "wait_ms": [round(x, 3) for x in r.wait_ms],
                    "stderr_bytes": len(r.stderr.encode()),
                    "stderr_dropped": r.stderr_dropped,
                }
                for r in g.reports
            ],
            "faults": [
                {"seat": f.seat, "decision": f.decision, **f.fault.run_dict(),
                 "stderr": f.fault.stderr if f.fault.stderr is not None else g.reports[f.seat].stderr[-STDERR_TAIL:]}
                for f in g.faults
                if f.seat < len(g.reports)
            ],
        }


def play_block(
    side_a: tuple[BotEntry, BotEntry],
    side_b: tuple[BotEntry, BotEntry],
    block_index: int,
    block_key: DealKey,
    settings: MatchSettings,
    make_player: PlayerFactory,
    *,
    source_for: Callable[[int], DeckSource | None] | None = None,
) -> BlockResult:
    """Play both games of one block: ``play_blocks`` with a batch of one, for tests and tools
    (a tournament's tasks call ``play_blocks`` and ``play_table_blocks``). Harness errors
    propagate (the block is retried)."""
    return play_blocks(side_a, side_b, [BlockSpec(block_index, block_key, source_for)], settings, make_player)[0]


Lineage = tuple[int, int | str]  # (half, seat) or (rotation, entrant): one kept process


def play_blocks(
    side_a: tuple[BotEntry, BotEntry],
    side_b: tuple[BotEntry, BotEntry],
    blocks: Sequence[BlockSpec],
    settings: MatchSettings,
    make_player: PlayerFactory,
    *,
    keep: bool | None = None,
    go_on: Callable[[BlockResult], bool] | None = None,
) -> list[BlockResult]:
    """Play a batch: the blocks of one pairing in order, each as two games.

    ``go_on`` sees each block as it ends (before the batch's processes are
    closed, so a kept process's cleanup may still change its last game);
    False ends the batch there: the blocks after it are not played.

    With ``keep`` (default: ``settings.restart == "per-lineage"``) the player
    of each (half, seat) stays up for that lineage's next block; the caller
    (``arena.schedule.lineage``) guarantees that every block of the batch has a
    deal key of its own, so no kept process meets a deal twice. A seat that
    faulted in a game, or whose player cannot go on, is closed after that game
    and a fresh player takes the next one. Harness errors propagate: every
    player is closed and nothing of the batch is returned.
    """
    rounds: list[list[tuple[list[BotEntry], list[Lineage]]]] = [
        [(seating(side_a, side_b, h), [(h, s) for s in range(4)]) for h in (0, 1)] for _ in blocks]
    return _play_rounds(blocks, rounds, settings, make_player, keep, go_on,
                        lambda b, i, k, g, st, sd: BlockResult(i, k, side_a, side_b, g, st, sd))


def play_table_blocks(
    tables: Sequence[tuple[BotEntry, ...]],
    blocks: Sequence[BlockSpec],
    settings: MatchSettings,
    make_player: PlayerFactory,
    *,
    keep: bool | None = None,
    go_on: Callable[[BlockResult], bool] | None = None,
) -> list[BlockResult]:
    """Play a batch of one table's blocks in order, each by rotation: ``tables[b]`` is block b's
    entrants by seat in rotation 0, and rotation r seats entrant i at seat (i + r) mod n. With
    ``keep`` a process per (rotation, entrant) plays that rotation of every block of the batch;
    ``go_on`` as for ``play_blocks``."""
    rounds: list[list[tuple[list[BotEntry], list[Lineage]]]] = []
    for table in tables:
        n = len(table)
        rounds.append([([table[i] for i in rotation_seating(n, r)], [(r, table[i].ident) for i in rotation_seating(n, r)])
                       for r in range(n)])
    return _play_rounds(blocks, rounds, settings, make_player, keep, go_on,
                        lambda b, i, k, g, st, sd: BlockResult(i, k, (), (), g, st, sd, tuple(tables[b])))


def _play_rounds(
    blocks: Sequence[BlockSpec],
    rounds: Sequence[Sequence[tuple[list[BotEntry], list[Lineage]]]],
    settings: MatchSettings,
    make_player: PlayerFactory,
    keep: bool | None,
    go_on: Callable[[BlockResult], bool] | None,
    result_of: Callable[[int, int, DealKey, list[GameResult], list[list[BotEntry]], list[list[int]]], BlockResult],
) -> list[BlockResult]:
    """The one loop of ``play_blocks`` and ``play_table_blocks``: for each block, its games
    (``rounds[b]``: the entries by seat and the lineage of each seat), on the block's key."""
    keep = settings.restart == "per-lineage" if keep is None else keep
    kept: dict[Lineage, Player] = {}
    last: dict[Lineage, tuple[GameResult, list[BotEntry], int]] = {}  # where a kept player's close is told
    out: list[BlockResult] = []
    try:
        for b, (spec, block_rounds) in enumerate(zip(blocks, rounds)):
            games: list[GameResult] = []
            seats_all: list[list[BotEntry]] = []
            seeds_all: list[list[int]] = []
            for half, (seats, lineage) in enumerate(block_rounds):
                n = len(seats)
                seeds = [bot_seed(spec.key, half, s) for s in range(n)]
                players: list[Player] = []
                try:
                    for s in range(n):
                        p = kept.pop(lineage[s], None)
                        players.append(p if p is not None else make_player(seats[s], seeds[s]))
                    result = play_game(
                        players,
                        settings,
                        spec.key,
                        source=spec.source_for(half) if spec.source_for else None,
                        players_by_seat=[e.name for e in seats],
                        seeds=seeds,  # a kept process gets this game's seed, as a fresh one would
                    )
                except BaseException:
                    close_all(players)
                    raise
                c = time.perf_counter()
                faulted = {f.seat for f in result.faults}
                reports: list[PlayerReport | None] = [None] * n
                closing: list[int] = []
                for s, p in enumerate(players):
                    rep = None if (not keep or s in faulted) else p.next_game()
                    if rep is None:
                        closing.append(s)
                    else:
                        reports[s] = rep
                        kept[lineage[s]] = p
                        last[lineage[s]] = (result, seats, s)
                for s, rep in zip(closing, close_all([players[s] for s in closing])):
                    reports[s] = rep
                result.timing.close = time.perf_counter() - c
                result.reports = [r if r is not None else PlayerReport(players[i].name) for i, r in enumerate(reports)]
                blame_cleanup(result, [e.name for e in seats])
                games.append(result)
                seats_all.append(seats)
                seeds_all.append(seeds)
            out.append(result_of(b, spec.index, spec.key, games, seats_all, seeds_all))
            if go_on is not None and not go_on(out[-1]):
                break
    finally:
        order = sorted(kept, key=repr)
        reports_end = close_all([kept[k] for k in order]) if order else []
    for k, rep in zip(order, reports_end):  # the process's stderr and cleanup trouble go with its last game
        result, seats, seat = last[k]
        mine = result.reports[seat]
        mine.stderr, mine.stderr_dropped, mine.trouble = rep.stderr, rep.stderr_dropped, rep.trouble
        blame_cleanup_seat(result, seats, seat)
    return out


def blame_cleanup_seat(result: GameResult, seats: Sequence[BotEntry], seat: int) -> None:
    """``blame_cleanup`` for one seat whose process was closed after its game was scored."""
    reports = result.reports
    result.reports = [r if i == seat else PlayerReport(r.name) for i, r in enumerate(reports)]
    try:
        blame_cleanup(result, [e.name for e in seats])
    finally:
        result.reports = reports
