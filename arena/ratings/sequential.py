"""Sequential decisions for ``arena sprt``, as pure code over block outcomes.

Nothing here plays games: :class:`MatchupTest` takes one block at a time
(the candidate side's total 0..2 and, for ``--points``, its points
difference), and :class:`SPRTRun` combines the two matchups. The command in
``cli.py`` feeds them blocks from real games; the tests feed synthetic ones.

Bounds are given in **individual-bot logistic Elo**. For each matchup they
become partnership Elo with :func:`arena.ratings.matchup_bounds` ("pair":
C+C vs B+B keeps d; "mixed": C+B vs B+B halves it), and then normalized Elo,
which the GSPRT works in, with the per-game standard deviation sigma_pg of
the paired design. sigma_pg is either given (``--sigma-pg``, e.g. from an
earlier run) or estimated from the blocks seen so far, the way fishtest
treats logistic bounds. A running estimate is meaningless on a handful of
blocks, so no decision is taken before ``min_blocks``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Literal

from .sprt import (EloEstimate, _cell, llr_pentanomial, llr_points, logistic_to_normalized, matchup_bounds,
                   pentanomial_estimate, points_estimate)

Matchup = Literal["pair", "mixed"]
Mode = Literal["pentanomial", "points"]
MATCHUP_LABELS: dict[str, str] = {"pair": "C+C vs B+B", "mixed": "C+B vs B+B"}
#: Candidate seats on the candidate side of each matchup (per-bot Elo = matchup Elo * 2 / seats).
CANDIDATE_SEATS: dict[str, int] = {"pair": 2, "mixed": 1}

EXIT_PASSED, EXIT_FAILED, EXIT_INCONCLUSIVE, EXIT_ERROR = 0, 1, 2, 3


@dataclass
class MatchupStatus:
    """Where one matchup's test stands (all Elo figures logistic unless named nelo)."""

    matchup: str
    blocks: int
    llr: float
    lower: float
    upper: float
    decision: str | None  # "H1" passed, "H0" failed, None undecided
    inconclusive: bool
    stopped_at: int | None
    elo0: float  # matchup (partnership) bounds
    elo1: float
    nelo0: float | None  # the bounds actually tested, at the current sigma_pg
    nelo1: float | None
    sigma_pg: float | None
    estimate: EloEstimate | None
    bot_elo: float | None  # per-bot Elo implied by the matchup estimate
    bot_elo_ci: tuple[float, float] | None

    @property
    def done(self) -> bool:
        return self.decision is not None or self.inconclusive

    @property
    def verdict(self) -> str:
        if self.decision == "H1":
            return "passed"
        if self.decision == "H0":
            return "failed"
        return "inconclusive" if self.inconclusive else "running"


@dataclass
class MatchupTest:
    """GSPRT of one matchup: H0 "candidate side is elo0 better" vs H1 "elo1 better"."""

    matchup: Matchup
    bot_elo0: float
    bot_elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    max_blocks: int | None = None
    mode: Mode = "pentanomial"
    sigma_pg: float | None = None  # fixed; None = running estimate
    min_blocks: int = 10
    counts: list[int] = field(default_factory=lambda: [0] * 5)
    n: int = 0
    p_total: float = 0.0  # points mode: sum and sum of squares of the samples
    p_total_sq: float = 0.0
    decision: str | None = None
    stopped_at: int | None = None
    _llr: float = 0.0
    _nelo: tuple[float, float] | None = None
    _sigma: float | None = None

    def __post_init__(self) -> None:
        if self.matchup not in CANDIDATE_SEATS:
            raise ValueError(f"unknown matchup {self.matchup!r}")
        if not self.bot_elo0 < self.bot_elo1:
            raise ValueError("need elo0 < elo1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError("alpha and beta must be in (0, 1)")
        if self.sigma_pg is not None and not self.sigma_pg > 0:
            raise ValueError("sigma_pg must be positive")
        if self.max_blocks is not None and self.max_blocks < 1:
            raise ValueError("max_blocks must be at least 1")
        self.elo0, self.elo1 = matchup_bounds(self.bot_elo0, self.bot_elo1, self.matchup)
        self.lower = math.log(self.beta / (1.0 - self.alpha))
        self.upper = math.log((1.0 - self.beta) / self.alpha)

    @property
    def finished(self) -> bool:
        """True once decided or out of blocks: no more blocks are needed."""
        return self.decision is not None or (self.max_blocks is not None and self.n >= self.max_blocks)

    def current_sigma(self) -> float | None:
        """sigma_pg in use: the fixed one, or the estimate from the block totals."""
        if self.sigma_pg is not None:
            return self.sigma_pg
        if self.n < 2:
            return None
        return pentanomial_estimate(self.counts).sigma_pg

    def add(self, total: float, points: float | None = None) -> None:
        """Record one block: the candidate side's total (0..2), and its points difference in points mode."""
        if self.finished:
            return
        self.counts[_cell(total)] += 1
        self.n += 1
        if self.mode == "points":
            if points is None:
                raise ValueError("points mode needs the block's points difference")
            self.p_total += points
            self.p_total_sq += points * points
        self._update()
        if self.decision is None and self.n >= self.min_blocks:
            if self._llr >= self.upper:
                self.decision, self.stopped_at = "H1", self.n
            elif self._llr <= self.lower:
                self.decision, self.stopped_at = "H0", self.n

    def _update(self) -> None:
        sigma = self.current_sigma()
        self._sigma = sigma
        if sigma is None:
            self._llr, self._nelo = 0.0, None
            return
        n0 = logistic_to_normalized(self.elo0, sigma)
        n1 = logistic_to_normalized(self.elo1, sigma)
        self._nelo = (n0, n1)
        if self.mode == "pentanomial":
            self._llr = llr_pentanomial(self.counts, n0, n1)
        else:
            self._llr = llr_points(self.n, self.p_total, self.p_total_sq, n0, n1)

    def status(self) -> MatchupStatus:
        est: EloEstimate | None = None
        if self.n >= 2:
            if self.mode == "pentanomial":
                est = pentanomial_estimate(self.counts)
            else:
                est = points_estimate(self.n, self.p_total, self.p_total_sq)
        scale = 2.0 / CANDIDATE_SEATS[self.matchup]
        bot_elo = bot_ci = None
        if est is not None and est.elo is not None:
            bot_elo = est.elo * scale
            bot_ci = (est.elo_ci[0] * scale, est.elo_ci[1] * scale) if est.elo_ci else None
        elif est is not None and self._sigma:
            # points mode: report the game-result Elo the normalized estimate corresponds to
            pen = pentanomial_estimate(self.counts)
            bot_elo = pen.elo * scale if pen.elo is not None else None
            bot_ci = (pen.elo_ci[0] * scale, pen.elo_ci[1] * scale) if pen.elo_ci else None
        return MatchupStatus(
            matchup=self.matchup, blocks=self.n, llr=self._llr, lower=self.lower, upper=self.upper,
            decision=self.decision,
            inconclusive=self.decision is None and self.max_blocks is not None and self.n >= self.max_blocks,
            stopped_at=self.stopped_at, elo0=self.elo0, elo1=self.elo1,
            nelo0=self._nelo[0] if self._nelo else None, nelo1=self._nelo[1] if self._nelo else None,
            sigma_pg=self._sigma, estimate=est, bot_elo=bot_elo, bot_elo_ci=bot_ci,
        )


class SPRTRun:
    """Both matchups of a regression test; passes only if every matchup passes.

    A matchup that fails ends the run at once (the verdict cannot become a
    pass); a matchup that passes stops taking blocks while the other goes on.
    """

    def __init__(self, tests: dict[str, MatchupTest]) -> None:
        if not tests:
            raise ValueError("need at least one matchup")
        self.tests = tests

    @classmethod
    def standard(cls, elo0: float, elo1: float, *, alpha: float = 0.05, beta: float = 0.05,
                 max_blocks: int | None = None, mode: Mode = "pentanomial", sigma_pg: float | None = None,
                 min_blocks: int = 10, matchups: Iterable[Matchup] = ("pair", "mixed")) -> "SPRTRun":
        return cls({m: MatchupTest(m, elo0, elo1, alpha, beta, max_blocks, mode, sigma_pg, min_blocks)
                    for m in matchups})

    def pending(self) -> list[str]:
        """Matchups that still need blocks (empty once the verdict is final)."""
        if self.verdict() != "running":
            return []
        return [m for m, t in self.tests.items() if not t.finished]

    def add(self, matchup: str, total: float, points: float | None = None) -> None:
        self.tests[matchup].add(total, points)

    def verdict(self) -> str:
        """passed / failed / inconclusive / running."""
        st = [t.status() for t in self.tests.values()]
        if any(s.decision == "H0" for s in st):
            return "failed"
        if all(s.decision == "H1" for s in st):
            return "passed"
        if all(s.done for s in st):
            return "inconclusive"
        return "running"

    def exit_code(self) -> int:
        v = self.verdict()
        return {"passed": EXIT_PASSED, "failed": EXIT_FAILED, "inconclusive": EXIT_INCONCLUSIVE}.get(v, EXIT_ERROR)


Sample = tuple[str, float, float | None]  # (matchup, candidate total, candidate points diff)


def drive(run: SPRTRun, samples: Iterable[Sample], on_block: Callable[[str, MatchupStatus], None] | None = None) -> str:
    """Feed a stream of block outcomes until the verdict is final; return it.

    Samples for matchups that no longer need blocks are skipped (they were
    already in flight when the matchup was decided).
    """
    for matchup, total, points in samples:
        if matchup not in run.pending():
            if not run.pending():
                break
            continue
        run.add(matchup, total, points)
        if on_block:
            on_block(matchup, run.tests[matchup].status())
        if not run.pending():
            break
    return run.verdict()


def format_status(s: MatchupStatus) -> str:
    """One progress line: blocks, LLR against its bounds, Elo estimates."""
    label = MATCHUP_LABELS.get(s.matchup, s.matchup)
    parts = [f"{label}: {s.blocks:4d} blocks  LLR {s.llr:+.3f} [{s.lower:+.3f}, {s.upper:+.3f}]"]
    e = s.estimate
    if e is not None and e.elo is not None and e.elo_ci is not None:
        parts.append(f"Elo {e.elo:+.1f} [{e.elo_ci[0]:+.1f}, {e.elo_ci[1]:+.1f}]")
    if s.bot_elo is not None and s.bot_elo_ci is not None:
        parts.append(f"per bot {s.bot_elo:+.1f} [{s.bot_elo_ci[0]:+.1f}, {s.bot_elo_ci[1]:+.1f}]")
    if e is not None:
        parts.append(f"nElo {e.nelo:+.1f} [{e.nelo_ci[0]:+.1f}, {e.nelo_ci[1]:+.1f}]")
    if s.verdict != "running":
        parts.append(s.verdict.upper() + (f" at {s.stopped_at}" if s.stopped_at else ""))
    return "  ".join(parts)
