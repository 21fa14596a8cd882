"""A large ladder store made fast: real engine games, played once in a pool and reused under other names.

``arena bench serve``'s scale case needs a competition of 50 teams with tens of
thousands of stored games. Playing them through the sandbox would take hours,
so the lines are synthesised: for each block number of the ladder, a pool of
real duplicate blocks is played in-process by the random baseline (the
same deal key as the ladder's block, so every record replays as recorded),
and each stored block of a pairing takes one of its block's pool results with
the pairing's entrants' names and digests in the seats. Which one follows a
strength model (team i stronger than team j by ``i - j`` steps), so the
ratings spread as a real ladder's do. The lines are schema-valid, carry the
ladder's config hash and keys (the ladder's plan counts them as played), and
say ``backend: synthetic`` in their run part.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from arena._json import JsonObject
from arena.match.block import BlockResult, play_block
from arena.match.keys import DealKey
from arena.players.manifest import BotEntry
from arena.players.policy import PolicyPlayer
from arena.results.store import RESULTS_NAME
from arena.schedule import BlockTask, Tournament
from arena.schedule.ladder import record_run
from arena.schedule.runner import META_NAME, _entry_meta, tournament_meta, write_json
from arena.schedule.task import _line  # the runner's own line maker: the synthetic lines are its lines

from .bots import load_bot_class

POOL = 6  # real blocks per block number


def pool(t: Tournament, blocks: Sequence[tuple[int, DealKey]], size: int = POOL) -> dict[int, list[BlockResult]]:
    """``size`` real blocks of the random baseline against itself for each (block number, deal key): each
    seat seeded apart, so the results vary as a ladder's do (the heuristic against itself plays every
    block alike, and a store of it makes every team's record the same)."""
    bot = load_bot_class("random")
    a, b = t.entries[0], t.entries[1]
    out: dict[int, list[BlockResult]] = {}
    for n, key in blocks:
        out[n] = []
        i = 0
        # at least ``size``, and until a split block (score 1) and a whole one (0 or 2, either way round by
        # swapping the sides) are there, so every result the strength model asks for exists
        while i < size or (i < 20 * size and len({r.score_a() in (0.0, 2.0) for r in out[n]}) < 2):
            def player(e: BotEntry, seed: int, i: int = i) -> PolicyPlayer:
                return _Reseeded(bot(), seed, 7919 * (i + 1))
            out[n].append(play_block((a, a), (b, b), n, key, t.settings, player))
            i += 1
    return out


class _Reseeded(PolicyPlayer):
    """The policy seeded ``shift`` away from the seed the game gives it: another game from the same deals."""

    def __init__(self, bot: Any, seed: int, shift: int) -> None:
        super().__init__(bot, seed + shift)
        self.shift = shift

    def notify(self, msg: JsonObject) -> Any:
        if msg.get("type") == "game":
            msg = {**msg, "seed": int(cast(int, msg.get("seed", self.seed))) + self.shift}
        return super().notify(msg)


def _strength(ident: str, idents: dict[str, int]) -> float:
    return 0.15 * idents.get(ident, 0)


def lines_for(t: Tournament, tasks: Sequence[BlockTask], results: dict[int, list[BlockResult]]) -> Iterator[str]:
    """One results line (JSON text) for each task, from its block number's pool, renamed to its entrants."""
    by_ident = {e.ident: e for e in t.entries}
    order = {e.ident: i for i, e in enumerate(t.entries)}
    for task in tasks:
        h = int.from_bytes(hashlib.blake2b(f"{task.pairing}|{task.block}".encode(), digest_size=8).digest(), "big")
        rng = random.Random(h)
        p = 1.0 / (1.0 + math.exp(_strength(task.side_b[0], order) - _strength(task.side_a[0], order)))
        want = sum(rng.random() < p for _ in range(2))  # side A's wins, 0-2
        cands = results[task.block]
        # a pool block whose A won ``want`` games, played as is; or one whose B did, with the sides swapped
        pick = [(r, False) for r in cands if r.score_a() == want] + [(r, True) for r in cands if r.score_a() == 2 - want]
        r, swap = pick[h % len(pick)] if pick else (cands[h % len(cands)], False)
        sa = tuple(by_ident[i] for i in task.side_a)
        sb = tuple(by_ident[i] for i in task.side_b)
        if swap:  # the pool's side B becomes the task's side A: the pool's game 1 (B at seats 0 and 2) is game 0
            games, seeds = [r.games[1], r.games[0]], [r.seeds[1], r.seeds[0]]
        else:
            games, seeds = list(r.games), list(r.seeds)
        seats = [[sa[0], sb[0], sa[1], sb[1]], [sb[0], sa[0], sb[1], sa[1]]]
        games = [replace(g, reports=[replace(rep, name=seats[h2][s].name) for s, rep in enumerate(g.reports)])
                 for h2, g in enumerate(games)]
        res = BlockResult(task.block, task.block_key, sa, sb, games, seats, seeds)
        line = _line(task, res, 1, "synthetic", 0.0, None)
        yield line.to_json()


def write(folder: Path, t: Tournament, tasks: Sequence[BlockTask], results: dict[int, list[BlockResult]],
          stored: int) -> None:
    """Append the tasks' lines to FOLDER/results.jsonl (``stored`` lines there before) and record them as one
    run of the ladder's, with its tournament.json, as a batch of the runner would."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / RESULTS_NAME, "a") as f:
        for text in lines_for(t, tasks, results):
            f.write(text + "\n")
        f.flush()
        os.fsync(f.fileno())
    entries = [_entry_meta(e) for e in t.entries]
    write_json(folder / META_NAME, tournament_meta(t, complete=False, entries=entries))
    record_run(folder, lines=stored + len(tasks), played=len(tasks), complete=False, entries=entries)
