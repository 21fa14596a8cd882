"""One task = one whole duplicate block, or a batch of one pairing's blocks
(``match.restart: per-lineage``, see ``lineage``), run the same way by every
backend; on Ray a batch is one task, so its processes live inside it.

The task carries everything a worker needs except the bots' files (shipped
by digest, see ``bundle``) and never the tournament seed: only the block key
derived from it. It returns each block's results line (with its run-dependent
facts under ``run``) and the capped stderr of each seat, and lets a
``HarnessError`` escape so the scheduler retries it.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .._json import JsonObject
from ..engine import DeckSource, FileSource
from ..match import BlockResult, BlockSpec, MatchSettings, PlayerFactory, play_blocks, play_table_blocks
from ..players import BotEntry
from ..results import SCHEMA_VERSION, ResultLine, game_id, parse_line
from .lineage import check_plan
from .unit import BatchTask, BlockHook, BlockTask, Unit, blocks_of

STDERR_KEEP = 64 * 1024  # bytes of one seat's stderr kept per game


@dataclass
class TaskOutput:
    lines: list[ResultLine]  # one per block of the unit, in block order
    stderr: list[tuple[int, int, int, str, str]] = field(default_factory=list)  # (block, half, seat, bot, text)

    @property
    def line(self) -> ResultLine:
        """The first (for a single block: the only) block's line."""
        return self.lines[0]


def _cap(text: str) -> str:
    data = text.encode()
    if len(data) <= STDERR_KEEP:
        return text
    return data[:STDERR_KEEP].decode(errors="ignore") + f"\n[... {len(data) - STDERR_KEEP} more bytes dropped]\n"


def apply_nice(nice: int | None) -> None:
    """Run this worker (and the bots it starts, which inherit it) at ``nice``.

    Bots are judged on their own CPU time, but the wall-clock ceiling still
    counts time spent waiting for a CPU; a higher priority than unrelated
    load on the host keeps that wait short. Raising priority needs root
    (or CAP_SYS_NICE); without it the priority is left as it is.
    """
    if nice is None:
        return
    try:
        if os.getpriority(os.PRIO_PROCESS, 0) != nice:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
    except OSError:
        pass


def _ref(e: BotEntry) -> JsonObject:
    return {"bot": e.name, "digest": e.digest}


def run_block(
    task: Unit,
    bots: Mapping[str, BotEntry],
    *,
    attempt: int = 1,
    backend: str = "serial",
    make_player: PlayerFactory | None = None,
    go_on: BlockHook | None = None,
) -> TaskOutput:
    """Play a unit (one block, or a batch of one pairing's blocks with processes kept
    along their lineages) and build one results line per block played.

    ``go_on`` is asked after each block of a batch but the last, with that
    block's provisional line (the batch's kept processes are not closed yet);
    False ends the batch there (a stopping rule that has decided).
    """
    check_plan([task])  # the lineage rule is checked where the processes live, too
    apply_nice(task.nice)
    blocks = blocks_of(task)
    first = blocks[0]
    t0 = time.monotonic()
    specs = [BlockSpec(b.block, b.block_key, _source_for(b)) for b in blocks]
    ask = None
    if go_on is not None and len(blocks) > 1:
        def ask(r: BlockResult) -> bool:
            i = [b.block for b in blocks].index(r.block_index)
            return i + 1 == len(blocks) or go_on(blocks[i], _line(blocks[i], r, attempt, backend, 0.0, {}))
    factory = make_player or first.settings.player
    if first.table:
        results = play_table_blocks([tuple(bots[i] for i in b.table) for b in blocks], specs, first.settings, factory,
                                    go_on=ask)
    else:
        side_a = (bots[first.side_a[0]], bots[first.side_a[1]])
        side_b = (bots[first.side_b[0]], bots[first.side_b[1]])
        results = play_blocks(side_a, side_b, specs, first.settings, factory, go_on=ask)
    wall = round(time.monotonic() - t0, 4)
    batch: JsonObject | None = {"first": first.block, "blocks": len(results), "wall_s": wall} if isinstance(task, BatchTask) else None
    lines = [_line(b, r, attempt, backend, wall, batch) for b, r in zip(blocks, results)]
    stderr = [
        (b.block, h, seat, rep.name, _cap(rep.stderr))
        for b, r in zip(blocks, results)
        for h, g in enumerate(r.games)
        for seat, rep in enumerate(g.reports)
        if rep.stderr
    ]
    return TaskOutput(lines, stderr)


def _source_for(task: BlockTask) -> Callable[[int], DeckSource | None] | None:
    """A block of a deal file deals every game from it (past its end, from the block's key)."""
    if task.deal_file is None:
        return None
    df, key = task.deal_file, task.block_key
    return lambda game: FileSource(df, key)


def _line(task: BlockTask, result: BlockResult, attempt: int, backend: str, wall_s: float,
          batch: JsonObject | None) -> ResultLine:
    """A block's results line. In a batch the block's wall time is its games'
    (processes are shared, so start-up falls on the first) and ``run.batch``
    says which batch it was played in. A table's line names its entrants by
    seat in rotation 0 (``table``) instead of two partnerships."""
    if batch is not None:
        wall_s = round(sum(g.wall_s + g.timing.close for g in result.games), 4)
    halves = range(len(result.games))
    who: JsonObject = (
        {"table": [_ref(e) for e in result.table]} if result.table else
        {"side_a": [_ref(e) for e in result.side_a], "side_b": [_ref(e) for e in result.side_b],
         "score_a": result.score_a()})
    return parse_line(
        {
            "schema": SCHEMA_VERSION,
            "config_hash": task.config_hash,
            "pairing": task.pairing,
            "block": task.block,
            "block_key": task.block_key,
            **who,
            "games": [{"id": game_id(task.pairing, task.block, h), **result.game_dict(h)} for h in halves],
            "run": {
                "attempt": attempt,
                "backend": backend,
                "host": socket.gethostname(),
                "pid": os.getpid(),
                "wall_s": wall_s,
                "finished_at": round(time.time(), 3),
                "games": [result.game_run(h) for h in halves],
                **({"batch": batch} if batch is not None else {}),
            },
        }
    )
