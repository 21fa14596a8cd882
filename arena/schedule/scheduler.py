"""The one tournament loop: block tasks to the store, with an optional stopping rule.

A task comes with its block's key (``match.keys.block_key(seed, i)``, the
same for every pairing, so every pairing of block i plays the same deals). Tasks already in
the results store are skipped, which is all that resuming and extending
need. A task that fails because of the harness (``HarnessError``, a lost
worker) is resubmitted up to the attempt limit and never written; after
that it is reported, not scored. A bot's misbehaviour is never a failure
here: it is a fault inside a scored result.

With ``match.restart: per-lineage`` the unit of work is a batch of one
pairing's blocks (``lineage.make_units``, checked by ``check_plan`` before
anything is submitted); a batch that fails, or that a resume finds partly
stored, is played whole again with fresh processes (its stored lines are
kept, not rewritten), and its lines are written in block order when it is done.

A stopping rule (the SPRT of ``arena sprt``) sees every line of a pairing
in block order, whatever order the blocks finish in, so its verdict does not
depend on the worker count; blocks that finish after it has decided are
still written (nothing played is lost) but do not change the verdict. A
batch played in this process (the serial backend) asks after each block
whether the rule still wants the next one and ends at the verdict; on Ray a
batch plays whole.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence

from ..match.reproduce import fault_commands
from ..results import ResultLine, ResultsStore, write_stderr
from ..sandbox import HarnessError
from .backends import Backend
from .lineage import make_units
from .unit import BatchTask, BlockHook, BlockTask, Unit, blocks_of


class StoppingRule(Protocol):
    """Decides, from the blocks seen so far, what is still worth playing."""

    def add(self, task: BlockTask, line: ResultLine) -> None:
        """One finished block; for each pairing, called in block order."""

    def wants(self, task: BlockTask) -> bool:
        """Whether the task should still be played."""
        ...

    @property
    def done(self) -> bool: ...


class NoCapacity(HarnessError):
    """Blocks are left but the backend can take none (every node refused or was lost)."""


class LoopEvents:
    """What the loop reports as it goes (progress displays subclass it)."""

    def line(self, line: ResultLine) -> None: ...

    def notice(self, text: str) -> None:
        """Something about where blocks run (a node refused, lost, joined)."""

    def retry(self, task: Unit, error: str) -> None: ...

    def failure(self, task: Unit, error: str) -> None: ...


@dataclass
class RunOutcome:
    played: int = 0
    retries: int = 0
    failures: list[tuple[tuple[str, int], str]] = field(default_factory=list)
    skipped: int = 0  # tasks the stopping rule no longer wanted


class InOrderFeed:
    """Feeds a stopping rule each pairing's lines in block order, starting with those already stored."""

    def __init__(self, rule: StoppingRule, tasks: Sequence[BlockTask],
                 stored: Mapping[tuple[str, int], ResultLine]) -> None:
        self.rule = rule
        self.order: dict[str, list[BlockTask]] = {}
        for t in tasks:
            self.order.setdefault(t.pairing, []).append(t)
        for ts in self.order.values():
            ts.sort(key=lambda t: t.block)
        self.next = {p: 0 for p in self.order}
        self.ready: dict[tuple[str, int], ResultLine] = {}
        for t in tasks:
            if t.key in stored:
                self.offer(t, stored[t.key])

    def wants_after(self, lines: Sequence[tuple[BlockTask, ResultLine]], task: BlockTask) -> bool:
        """Would ``task`` still be wanted once ``lines`` were offered? Nothing changes here.

        For a batch that asks after each block whether to go on. ``lines``
        (one pairing's blocks, in order) must follow what was fed before;
        when they do not (an earlier block of the pairing is missing), or
        the rule cannot say, the answer is yes: the batch plays on.
        """
        ts = self.order.get(task.pairing, [])
        i = self.next.get(task.pairing, 0)
        fresh = [(t, ln) for t, ln in lines if t.key not in {x.key for x in ts[:i]}]
        probe = getattr(self.rule, "wants_after", None)
        if probe is None or [t.key for t, _ in fresh] != [t.key for t in ts[i:i + len(fresh)]]:
            return True
        return bool(probe(fresh, task))

    def offer(self, task: BlockTask, line: ResultLine) -> None:
        self.ready[task.key] = line
        ts = self.order[task.pairing]
        while self.next[task.pairing] < len(ts) and not self.rule.done:
            t = ts[self.next[task.pairing]]
            got = self.ready.pop(t.key, None)
            if got is None:
                break
            self.next[task.pairing] += 1
            self.rule.add(t, got)


def run_tasks(
    tasks: Sequence[BlockTask],
    backend: Backend,
    store: ResultsStore,
    *,
    attempts: int = 3,
    stop: StoppingRule | None = None,
    feed: InOrderFeed | None = None,
    events: LoopEvents | None = None,
    bot_dirs: Mapping[str, str] | None = None,
) -> RunOutcome:
    """Play the tasks not yet in the store (and still wanted); write each finished block durably.

    ``tasks`` come in the order they should be started (block by block).
    ``feed`` is the stopping rule's feed when the caller has already primed
    it with the stored lines (made here otherwise).
    ``bot_dirs`` (bot identity ``name@digest12`` -> folder on this machine)
    lets each fault carry a command that reproduces it, under the line's
    ``run`` (paths are local). Identity, not name: an SPRT's candidate copied
    from its baseline keeps the name, and its faults are replayed with its
    own folder.
    """
    events = events or LoopEvents()
    if stop is not None and feed is None:
        feed = InOrderFeed(stop, tasks, store.lines)
    todo: deque[Unit] = deque(make_units(tasks, set(store.keys)))
    again: deque[tuple[Unit, int]] = deque()  # (task, attempt) to send again, before new work
    outcome = RunOutcome()
    inflight = 0
    out = Path(store.out)

    def next_task() -> Unit | None:
        while todo:
            if stop is not None and stop.done:
                outcome.skipped += sum(len(blocks_of(u)) for u in todo)
                todo.clear()
                return None
            t = todo.popleft()
            if stop is None:
                return t
            wanted = [b for b in blocks_of(t) if stop.wants(b)]
            outcome.skipped += len(blocks_of(t)) - len(wanted)
            if wanted:  # a batch keeps its wanted blocks, in order: still distinct deal keys
                return t if len(wanted) == len(blocks_of(t)) else BatchTask(tuple(wanted))
        return None

    whole: set[tuple[str, int]] = set()  # batches played again after a cut: whole this time, never cut twice

    def hook(unit: Unit) -> BlockHook | None:
        """A batch stops at the block after which the stopping rule no longer wants the next one."""
        if feed is None or not isinstance(unit, BatchTask) or unit.key in whole:
            return None
        seen: list[tuple[BlockTask, ResultLine]] = []
        later = {b.block: nxt for b, nxt in zip(unit.blocks, unit.blocks[1:])}

        def go_on(block: BlockTask, line: ResultLine) -> bool:
            seen.append((block, line.model_copy(deep=True)))  # a snapshot: the batch goes on
            return feed.wants_after(seen, later[block.block])
        return go_on

    def tell() -> None:
        while backend.notices:
            events.notice(backend.notices.pop(0))

    def top_up() -> None:
        nonlocal inflight
        while inflight < backend.capacity:
            if again:
                task, attempt = again.popleft()
            else:
                fresh = next_task()
                if fresh is None:
                    break
                task, attempt = fresh, 1
            go_on = hook(task)
            if go_on is None:
                backend.submit(task, attempt)
            else:
                backend.submit(task, attempt, go_on)
            inflight += 1

    # A backend that plays elsewhere gets the freed slot's next unit before this one's lines are stored (the
    # store's fsync, a server's live standings and page): its worker is not left idle meanwhile. One that
    # plays in its own ``wait`` (serial) is topped up after, so a stopping rule has seen every line first.
    early = not getattr(backend, "plays_in_wait", False)
    while True:
        top_up()
        tell()
        if inflight == 0:
            left = len(again) + (len(todo) if not (stop is not None and stop.done) else 0)
            if left:  # work left, nowhere to run it
                raise NoCapacity(f"the {backend.name} backend has no room for blocks; {left} left unplayed;"
                                 f" the blocks finished so far are saved: run the same command again to resume")
            break
        fin = backend.wait()
        inflight -= 1
        if early and fin.output is not None:
            top_up()
        tell()
        if fin.output is not None:
            for blk, half, seat, bot, text in fin.output.stderr:
                if (fin.task.pairing, blk) not in store.keys:  # a replayed batch's stored blocks keep theirs
                    write_stderr(out, fin.task.pairing, blk, half, seat, bot, text)
            played = list(zip(blocks_of(fin.task), fin.output.lines))
            if bot_dirs:
                for btask, line in played:
                    line.run.reproduce = fault_commands(line, store.path, bot_dirs, btask.settings)
            # a unit's lines in one write and one fsync (an fsync a block cost as much as a game's harness work)
            for (btask, line), new in zip(played, store.append_all([line for _, line in played])):
                if new:
                    outcome.played += 1
                    stored = store.lines[line.task_key]
                    events.line(stored)
                    if feed is not None:
                        feed.offer(btask, stored)
            cut = blocks_of(fin.task)[len(fin.output.lines):]
            if stop is not None and any(stop.wants(b) for b in cut):
                # The batch stopped on a provisional line that its processes' cleanup then changed:
                # play it again whole, as a resume would (its stored lines are kept).
                whole.add(fin.task.key)
                todo.appendleft(fin.task)
            else:
                outcome.skipped += len(cut)
            continue
        if fin.requeue:  # the node, not the block, failed before playing: the attempt is not spent
            again.append((fin.task, fin.attempt))
        elif fin.retry and fin.attempt < attempts:
            outcome.retries += 1
            events.retry(fin.task, fin.error or "unknown")
            again.append((fin.task, fin.attempt + 1))
        else:
            outcome.failures.extend((b.key, fin.error or "unknown") for b in blocks_of(fin.task))
            events.failure(fin.task, fin.error or "unknown")
    return outcome
