"""One task = one whole duplicate block, run the same way by every backend.

The task carries everything a worker needs except the bots' files (shipped
by digest, see ``bundle``) and never the tournament seed: only the block key
derived from it. It returns the block's results line (with its run-dependent
facts under ``run``) and the capped stderr of each seat, and lets a
``HarnessError`` escape so the scheduler retries it.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field
from typing import Mapping

from ..engine import DealFile, FileSource
from ..match import MatchSettings, PlayerFactory, play_block
from ..players import BotEntry
from ..results import SCHEMA_VERSION, ResultLine, game_id

STDERR_KEEP = 64 * 1024  # bytes of one seat's stderr kept per game


@dataclass(frozen=True)
class BlockTask:
    pairing: str
    block: int
    block_key: str
    side_a: tuple[str, str]  # bot idents
    side_b: tuple[str, str]
    settings: MatchSettings
    config_hash: str
    deal_file: DealFile | None = None
    nice: int | None = None  # process priority to play at; shapes timing only, never results

    @property
    def key(self) -> tuple[str, int]:
        return (self.pairing, self.block)

    @property
    def idents(self) -> list[str]:
        return sorted(set(self.side_a) | set(self.side_b))


@dataclass
class TaskOutput:
    line: ResultLine
    stderr: list[tuple[int, int, str, str]] = field(default_factory=list)  # (half, seat, bot, text)


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


def _ref(e: BotEntry) -> dict[str, str]:
    return {"bot": e.name, "digest": e.digest}


def run_block(
    task: BlockTask,
    bots: Mapping[str, BotEntry],
    *,
    attempt: int = 1,
    backend: str = "serial",
    make_player: PlayerFactory | None = None,
) -> TaskOutput:
    """Play the block's two games and build its results line."""
    apply_nice(task.nice)
    t0 = time.monotonic()
    side_a = (bots[task.side_a[0]], bots[task.side_a[1]])
    side_b = (bots[task.side_b[0]], bots[task.side_b[1]])
    source_for = None
    if task.deal_file is not None:
        df = task.deal_file
        source_for = lambda half: FileSource(df, task.block_key)  # noqa: E731
    result = play_block(
        side_a, side_b, task.block, task.block_key, task.settings,
        make_player or task.settings.player, source_for=source_for,
    )
    line = ResultLine.model_validate(
        {
            "schema": SCHEMA_VERSION,
            "config_hash": task.config_hash,
            "pairing": task.pairing,
            "block": task.block,
            "block_key": task.block_key,
            "side_a": [_ref(e) for e in side_a],
            "side_b": [_ref(e) for e in side_b],
            "score_a": result.score_a(),
            "games": [{"id": game_id(task.pairing, task.block, h), **result.game_dict(h)} for h in (0, 1)],
            "run": {
                "attempt": attempt,
                "backend": backend,
                "host": socket.gethostname(),
                "pid": os.getpid(),
                "wall_s": round(time.monotonic() - t0, 4),
                "finished_at": round(time.time(), 3),
                "games": [result.game_run(h) for h in (0, 1)],
            },
        }
    )
    stderr = [
        (h, seat, rep.name, _cap(rep.stderr))
        for h, g in enumerate(result.games)
        for seat, rep in enumerate(g.reports)
        if rep.stderr
    ]
    return TaskOutput(line, stderr)
