"""From a tournament to block tasks, and the loop that runs them to the store.

Each block's key is ``derive_key(seed, "block", i)``, the same for every
pairing, so every pairing of block i plays the same deals. Tasks already in
the results store are skipped, which is all that resuming and extending
need. A failed task (harness error, lost worker) is resubmitted up to the
attempt limit and never written; after that it is reported, not scored.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
import shlex
from typing import Any, Callable, Mapping

from ..engine import derive_key
from ..results import ResultsStore, write_stderr
from .backends import Backend
from .config import Tournament
from .pairings import Pairing, plan_pairings
from .task import BlockTask


def block_key(seed: str, block: int) -> str:
    return derive_key(seed, "block", block)


def pairings_of(t: Tournament) -> list[Pairing]:
    return plan_pairings(t.config.schedule.kind, t.entries, t.candidate, t.baselines)


def plan_tasks(t: Tournament) -> list[BlockTask]:
    """Every (pairing, block) of the tournament, block by block."""
    pairings = pairings_of(t)
    h = t.config_hash()
    tasks: list[BlockTask] = []
    for b in range(t.config.blocks):
        key = block_key(t.config.seed, b)
        df = t.deal_files[b] if b < len(t.deal_files) else None
        for p in pairings:
            tasks.append(
                BlockTask(
                    pairing=p.key, block=b, block_key=key,
                    side_a=(p.side_a[0].ident, p.side_a[1].ident), side_b=(p.side_b[0].ident, p.side_b[1].ident),
                    settings=t.settings, config_hash=h, deal_file=df, nice=t.config.nice,
                )
            )
    return tasks


@dataclass
class RunOutcome:
    played: int = 0
    retries: int = 0
    failures: list[tuple[tuple[str, int], str]] = field(default_factory=list)


def run_tasks(
    tasks: list[BlockTask],
    backend: Backend,
    store: ResultsStore,
    *,
    attempts: int = 3,
    on_line: Callable[[dict], None] | None = None,
    on_failure: Callable[[], None] | None = None,
    on_retry: Callable[[], None] | None = None,
    bot_dirs: Mapping[str, str] | None = None,
) -> RunOutcome:
    """Run the tasks not yet in the store; write each finished block durably.

    ``bot_dirs`` (bot name -> folder on this machine) lets each fault carry a
    command that reproduces it, under the line's ``run`` (paths are local).
    """
    todo = deque(t for t in tasks if t.key not in store.lines)
    outcome = RunOutcome()
    inflight = 0
    out = Path(store.out)
    while todo or inflight:
        while todo and inflight < backend.capacity:
            task = todo.popleft()
            backend.submit(task, 1)
            inflight += 1
        fin = backend.wait()
        inflight -= 1
        if fin.output is not None:
            line = fin.output.line
            for half, seat, bot, text in fin.output.stderr:
                write_stderr(out, line.pairing, line.block, half, seat, bot, text)
            if bot_dirs:
                line.run.reproduce = reproduce_commands(line, store.path, bot_dirs, fin.task.settings)
            if store.append(line):
                outcome.played += 1
                if on_line:
                    on_line(store.lines[line.task_key])
            continue
        if fin.retry and fin.attempt < attempts:
            outcome.retries += 1
            if on_retry:
                on_retry()
            backend.submit(fin.task, fin.attempt + 1)
            inflight += 1
        else:
            outcome.failures.append((fin.task.key, fin.error or "unknown"))
            if on_failure:
                on_failure()
    return outcome


def reproduce_commands(line: Any, results: Path, bot_dirs: Mapping[str, str], settings: Any) -> list[dict[str, Any]]:
    """One shell command per fault of the block that replays it locally."""
    out: list[dict[str, Any]] = []
    for half, game in enumerate(line.games):
        for f in game.faults:
            bot_dir = shlex.quote(bot_dirs.get(f["bot"], f["bot"]))
            opts = f"--sandbox {settings.sandbox.value} --decision-ms {settings.time.decision_ms}"
            if f["decision"] == 0:  # failed before its first decision: the start-up is what to check
                cmd = f"arena check-bot {bot_dir} {opts} --games 0"
            else:
                cmd = (
                    f"arena reproduce {shlex.quote(str(results))} --bot {bot_dir} --block {line.block_key}"
                    f" --game {half} --decision {f['decision']} {opts}"
                )
            out.append({"game": half, "seat": f["seat"], "bot": f["bot"], "kind": f["kind"], "command": cmd})
    return out

