"""The SPRT as the tournament loop's stopping rule.

Each SPRT matchup is one pairing of the tournament (see
``pairings.sprt_matchups``); this rule turns each of its finished blocks
into the candidate side's sample and feeds the matchup's test
(``arena.ratings``), in block order. A matchup stops being played once its
test has decided or reached the block limit.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from ..ratings import PairingGain, SPRTRun, pairing_gain
from ..results import ResultLine, side_a_halves, side_a_sample
from .config import Tournament
from .pairings import matchup_of
from .unit import BlockTask


class SPRTStop:
    """``StoppingRule`` over an ``SPRTRun``; ``on_block`` sees each matchup's status after a block."""

    def __init__(self, run: SPRTRun, on_block: Callable[[str, Any], None] | None = None) -> None:
        self.run = run
        self.on_block = on_block
        self.samples: dict[str, list[tuple[float, float | None]]] = {m: [] for m in run.tests}
        self.halves: dict[str, list[tuple[float, float] | None]] = {m: [] for m in run.tests}

    @classmethod
    def for_tournament(cls, t: Tournament, on_block: Callable[[str, Any], None] | None = None) -> "SPRTStop":
        spec = t.config.sprt
        assert spec is not None, "not an SPRT tournament"
        lo, hi = (spec.points0, spec.points1) if spec.mode == "points" else (spec.elo0, spec.elo1)
        run = SPRTRun.standard(lo, hi, alpha=spec.alpha, beta=spec.beta, max_blocks=t.config.blocks,
                               mode=spec.mode, min_blocks=spec.min_blocks, matchups=t.config.schedule.matchups)
        return cls(run, on_block)

    def add(self, task: BlockTask, line: ResultLine) -> None:
        m = matchup_of(task.pairing)
        if m is None or m not in self.run.pending():
            return
        total, points = side_a_sample(line)
        self.samples[m].append((total, points))
        self.halves[m].append(side_a_halves(line, "points" if self.run.tests[m].mode == "points" else "score"))
        self.run.add(m, total, points)
        if self.on_block is not None:
            self.on_block(m, self.run.tests[m].status())

    def gain(self) -> PairingGain:
        """What the duplicate design saved on the blocks the test used, for the statistic it tested."""
        mode = next(iter(self.run.tests.values())).mode
        groups = {m: [h for h in hs if h is not None] for m, hs in self.halves.items()}
        return pairing_gain(groups, "points" if mode == "points" else "score")

    def wants_after(self, lines: list[tuple[BlockTask, ResultLine]], task: BlockTask) -> bool:
        """Whether ``task`` would still be wanted after ``lines`` (the next blocks of their pairings, in
        order): the tests are tried on a copy, this rule is not changed."""
        run = copy.deepcopy(self.run)
        for t, line in lines:
            m = matchup_of(t.pairing)
            if m is not None and m in run.pending():
                total, points = side_a_sample(line)
                run.add(m, total, points)
        m = matchup_of(task.pairing)
        return m is not None and m in run.pending()

    def wants(self, task: BlockTask) -> bool:
        m = matchup_of(task.pairing)
        return m is not None and m in self.run.pending()

    @property
    def done(self) -> bool:
        return not self.run.pending()
