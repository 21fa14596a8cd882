"""The sequential test of ``arena sprt``: one GSPRT, its matchups, the run.

* :class:`SPRT` -- the one generalized SPRT over a stream of block samples
  (pentanomial block totals, or real points differences), bounds in one
  unit: "logistic" Elo (fishtest's expectation statistic), "normalized" Elo
  (fishtest's t-value statistic) or "points" per block (points mode).
* :class:`MatchupTest` -- one matchup of a regression test ("pair": C+C vs
  B+B, "mixed": C+B vs B+B) with per-bot bounds converted to the matchup.
* :class:`SPRTRun` -- the matchups together: passes only if every matchup
  passes, fails as soon as one fails; the per-matchup beta is beta/k
  (Bonferroni) so the run's false-fail rate stays within beta.

Nothing here plays games; the command feeds blocks in block order.
Formulas: docs/ratings.md.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Literal

from .._json import JsonObject
from .data import BlockOutcome
from .gsprt import (EloEstimate, estimate, llr_logistic, logistic_to_normalized, llr_normalized, llr_points, llr_points_mean,
                    penta_cell, points_estimate, points_interval)

Matchup = Literal["pair", "mixed"]
Mode = Literal["pentanomial", "points"]
Unit = Literal["logistic", "normalized", "points"]
MATCHUP_LABELS: dict[str, str] = {"pair": "C+C vs B+B", "mixed": "C+B vs B+B"}
#: Candidate seats on the candidate side of each matchup (per-bot effect = matchup effect * 2 / seats).
CANDIDATE_SEATS: dict[str, int] = {"pair": 2, "mixed": 1}
UNITS: dict[str, tuple[str, ...]] = {"pentanomial": ("logistic", "normalized"), "points": ("points", "normalized")}

EXIT_PASSED, EXIT_FAILED, EXIT_INCONCLUSIVE, EXIT_ERROR = 0, 1, 2, 3


def _default_unit(mode: str) -> str:
    return "logistic" if mode == "pentanomial" else "points"


def _check(elo0: float, elo1: float, alpha: float, beta: float, max_blocks: int | None, mode: str,
           unit: str, min_blocks: int) -> None:
    if mode not in UNITS:
        raise ValueError(f"unknown mode {mode!r}")
    if unit not in UNITS[mode]:
        raise ValueError(f"{mode} mode takes bounds in {' or '.join(UNITS[mode])}, not {unit!r}"
                         + (" (logistic Elo is a game-result scale; give points per block)" if mode == "points" else ""))
    if not (math.isfinite(elo0) and math.isfinite(elo1)) or not elo0 < elo1:
        raise ValueError("need elo0 < elo1 (finite)")
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):
        raise ValueError("alpha and beta must be in (0, 0.5)")
    if max_blocks is not None and max_blocks < 1:
        raise ValueError("max_blocks must be at least 1")
    if min_blocks < 1:
        raise ValueError("min_blocks must be at least 1")


@dataclass
class SPRTStatus:
    llr: float
    lower: float
    upper: float
    decision: str | None  # "H0" (candidate not better), "H1" (better), None
    inconclusive: bool
    blocks: int
    stopped_at: int | None
    estimate: EloEstimate | None
    unit: str = "normalized"
    elo0: float = 0.0
    elo1: float = 0.0
    alpha: float = 0.05
    beta: float = 0.05

    def to_dict(self) -> JsonObject:
        return asdict(self)


class SPRT:
    """Generalized SPRT of ``elo0`` (H0) against ``elo1`` (H1) on duplicate blocks.

    ``mode="pentanomial"``: ``add()`` takes the candidate's block total (0,
    0.5, 1, 1.5 or 2); ``unit`` "normalized" (default) or "logistic".
    ``mode="points"``: ``add()`` takes a real number, the candidate's points
    difference summed over the block; ``unit`` "normalized" (default: the
    t-value) or "points" (mean per block). Wald's bounds
    log(beta/(1-alpha)) and log((1-beta)/alpha); the LLR is checked every
    ``batch`` blocks from ``min_blocks`` on; the first crossing decides for
    good, and a test reaching ``max_blocks`` undecided is inconclusive.
    """

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
                 max_blocks: int | None = None, *, mode: Mode = "pentanomial", unit: Unit | None = None,
                 min_blocks: int = 1, batch: int = 1) -> None:
        unit = unit or "normalized"
        _check(elo0, elo1, alpha, beta, max_blocks, mode, unit, min_blocks)
        if unit == "normalized" and mode == "pentanomial":
            llr_normalized([1, 1, 1, 1, 1], elo0, elo1)  # rejects bounds beyond any measurable effect
        self.elo0, self.elo1 = float(elo0), float(elo1)
        self.alpha, self.beta = alpha, beta
        self.max_blocks = max_blocks
        self.mode: str = mode
        self.unit: str = unit
        self.min_blocks = min_blocks
        self.batch = max(1, int(batch))
        self.lower = math.log(beta / (1.0 - alpha))
        self.upper = math.log((1.0 - beta) / alpha)
        self.counts = [0] * 5
        self.n = 0
        self.total = 0.0
        self.total_sq = 0.0
        self.decision: str | None = None
        self.stopped_at: int | None = None
        self._llr: tuple[int, float] = (0, 0.0)

    @property
    def finished(self) -> bool:
        """True once decided or out of blocks: no more blocks are needed."""
        return self.decision is not None or (self.max_blocks is not None and self.n >= self.max_blocks)

    def add(self, sample: float) -> None:
        """Record one block (see the class docstring for what the number is); ignored once finished."""
        if self.mode == "pentanomial":
            cell = penta_cell(sample)
        elif not (isinstance(sample, (int, float)) and math.isfinite(sample)):
            raise ValueError(f"points difference must be a finite number, got {sample!r}")
        if self.finished:
            return
        if self.mode == "pentanomial":
            self.counts[cell] += 1
        self.n += 1
        self.total += sample
        self.total_sq += sample * sample
        at_max = self.max_blocks is not None and self.n >= self.max_blocks
        if self.n >= self.min_blocks and (self.n % self.batch == 0 or at_max):
            llr = self.llr()
            if llr >= self.upper:
                self.decision, self.stopped_at = "H1", self.n
            elif llr <= self.lower:
                self.decision, self.stopped_at = "H0", self.n

    def add_block(self, block: BlockOutcome, candidate: tuple[str, str]) -> None:
        """Record a block from the candidate partnership's point of view."""
        self.add(block.total_for(candidate) if self.mode == "pentanomial" else block.points_for(candidate))

    def llr(self) -> float:
        """Log-likelihood ratio of all blocks recorded so far (0 before the first)."""
        if self._llr[0] != self.n:
            if self.n == 0:
                v = 0.0
            elif self.mode == "pentanomial":
                f = llr_logistic if self.unit == "logistic" else llr_normalized
                v = f(self.counts, self.elo0, self.elo1)
            elif self.unit == "points":
                v = llr_points_mean(self.n, self.total, self.total_sq, self.elo0, self.elo1)
            else:
                v = llr_points(self.n, self.total, self.total_sq, self.elo0, self.elo1)
            self._llr = (self.n, v)
        return self._llr[1]

    def estimate(self) -> EloEstimate:
        if self.mode == "pentanomial":
            return estimate(self.counts)
        return points_estimate(self.n, self.total, self.total_sq)

    def status(self) -> SPRTStatus:
        return SPRTStatus(
            llr=self.llr(), lower=self.lower, upper=self.upper, decision=self.decision,
            inconclusive=self.decision is None and self.max_blocks is not None and self.n >= self.max_blocks,
            blocks=self.n, stopped_at=self.stopped_at, estimate=self.estimate() if self.n else None,
            unit=self.unit, elo0=self.elo0, elo1=self.elo1, alpha=self.alpha, beta=self.beta,
        )


# ------------------------------------------------------------ matchups


@dataclass
class MatchupStatus:
    """Where one matchup's test stands.

    ``elo0``/``elo1`` are the matchup's bounds in ``unit``; ``estimate`` is
    from the block totals (game results), ``points`` the mean points per
    block with ``points_ci`` in points mode; ``bot_elo`` the per-bot logistic
    Elo the matchup estimate implies (mixed: twice the matchup's). Estimates
    are naive (see docs/ratings.md); ``note`` says where a figure is missing.
    """

    matchup: str
    blocks: int
    llr: float
    lower: float
    upper: float
    decision: str | None  # "H1" passed, "H0" failed, None undecided
    inconclusive: bool
    stopped_at: int | None
    unit: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    estimate: EloEstimate | None
    bot_elo: float | None
    bot_elo_ci: tuple[float, float] | None
    points: float | None = None
    points_ci: tuple[float, float] | None = None
    bot_points: float | None = None

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
    """GSPRT of one matchup: H0 "candidate is bot_elo0 better" vs H1 "bot_elo1 better".

    Bounds are per bot, in ``unit`` (default: logistic Elo for pentanomial,
    points per block for points mode); the matchup tests them scaled by its
    candidate seats (pair d, mixed d/2, the mean-of-two model).
    """

    matchup: Matchup
    bot_elo0: float
    bot_elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    max_blocks: int | None = None
    mode: Mode = "pentanomial"
    unit: Unit | None = None
    min_blocks: int = 10
    counts: list[int] = field(default_factory=lambda: [0] * 5)
    sprt: SPRT = field(init=False)

    def __post_init__(self) -> None:
        if self.matchup not in CANDIDATE_SEATS:
            raise ValueError(f"unknown matchup {self.matchup!r}")
        self.unit = self.unit or _default_unit(self.mode)  # type: ignore[assignment]
        assert self.unit is not None
        _check(self.bot_elo0, self.bot_elo1, self.alpha, self.beta, self.max_blocks, self.mode, self.unit,
               self.min_blocks)
        scale = CANDIDATE_SEATS[self.matchup] / 2.0
        self.elo0, self.elo1 = self.bot_elo0 * scale, self.bot_elo1 * scale
        self.sprt = SPRT(self.elo0, self.elo1, self.alpha, self.beta, self.max_blocks, mode=self.mode,
                         unit=self.unit, min_blocks=self.min_blocks)
        self.lower, self.upper = self.sprt.lower, self.sprt.upper

    @property
    def n(self) -> int:
        return self.sprt.n

    @property
    def decision(self) -> str | None:
        return self.sprt.decision

    @property
    def stopped_at(self) -> int | None:
        return self.sprt.stopped_at

    @property
    def finished(self) -> bool:
        return self.sprt.finished

    def add(self, total: float, points: float | None = None) -> None:
        """Record one block: the candidate side's total (0..2), and its points difference in points mode."""
        cell = penta_cell(total)
        if self.mode == "points" and (points is None or not math.isfinite(points)):
            raise ValueError(f"points mode needs the block's points difference, got {points!r}")
        if self.finished:
            return
        if self.mode == "points":
            assert points is not None
            self.sprt.add(points)
        else:
            self.sprt.add(total)
        self.counts[cell] += 1

    def status(self) -> MatchupStatus:
        sp = self.sprt
        est = estimate(self.counts) if sp.n else None
        per_bot = 2.0 / CANDIDATE_SEATS[self.matchup]
        bot_elo = est.elo * per_bot if est is not None and est.elo is not None else None
        bot_ci = (est.elo_ci[0] * per_bot, est.elo_ci[1] * per_bot) if est is not None and est.elo_ci else None
        points = points_ci = bot_points = None
        if self.mode == "points" and sp.n:
            points = sp.total / sp.n
            points_ci = points_interval(sp.n, sp.total, sp.total_sq)
            bot_points = points * per_bot
        return MatchupStatus(
            matchup=self.matchup, blocks=sp.n, llr=sp.llr(), lower=sp.lower, upper=sp.upper,
            decision=sp.decision,
            inconclusive=sp.decision is None and sp.max_blocks is not None and sp.n >= sp.max_blocks,
            stopped_at=sp.stopped_at, unit=sp.unit, elo0=self.elo0, elo1=self.elo1, alpha=sp.alpha,
            beta=sp.beta, estimate=est, bot_elo=bot_elo, bot_elo_ci=bot_ci, points=points,
            points_ci=points_ci, bot_points=bot_points,
        )


class SPRTRun:
    """The matchups of a regression test; passes only if every matchup passes.

    A matchup that fails ends the run at once (the verdict cannot become a
    pass); a matchup that passes stops taking blocks while the others go on.
    Error rates: a false pass needs every matchup to pass falsely, so it is
    at most alpha; a false fail needs any one to fail falsely, so with
    ``error_control="bonferroni"`` (default) each matchup runs at beta/k and
    the run's false-fail rate is at most beta. ``"per-matchup"`` keeps beta
    per matchup (the run's false-fail rate is then up to 1-(1-beta)^k).
    """

    def __init__(self, tests: dict[str, MatchupTest], *, alpha: float | None = None, beta: float | None = None,
                 error_control: str = "per-matchup") -> None:
        if not tests:
            raise ValueError("need at least one matchup")
        self.tests = tests
        first = next(iter(tests.values()))
        self.alpha = alpha if alpha is not None else first.alpha
        self.beta = beta if beta is not None else first.beta
        self.error_control = error_control

    @classmethod
    def standard(cls, elo0: float, elo1: float, *, alpha: float = 0.05, beta: float = 0.05,
                 max_blocks: int | None = None, mode: Mode = "pentanomial", unit: Unit | None = None,
                 min_blocks: int = 10, matchups: Iterable[Matchup] = ("pair", "mixed"),
                 error_control: str = "bonferroni", sigma_pg: float | None = None) -> "SPRTRun":
        """Per-bot bounds for every matchup.

        ``sigma_pg`` (optional, pentanomial only): convert logistic bounds to
        normalized Elo with this fixed per-game deviation (e.g. from an
        earlier run) and test the t-value; never estimated from the run itself.
        """
        if sigma_pg is not None:
            if mode != "pentanomial" or unit not in (None, "logistic"):
                raise ValueError("sigma_pg converts logistic bounds of a pentanomial test only")
            if not (sigma_pg > 0 and math.isfinite(sigma_pg)):
                raise ValueError("sigma_pg must be positive")
            elo0, elo1 = logistic_to_normalized(elo0, sigma_pg), logistic_to_normalized(elo1, sigma_pg)
            unit = "normalized"
        matchups = list(matchups)
        if not matchups or len(set(matchups)) != len(matchups):
            raise ValueError("need distinct matchups")
        if error_control not in ("bonferroni", "per-matchup"):
            raise ValueError(f"unknown error_control {error_control!r}")
        b = beta / len(matchups) if error_control == "bonferroni" else beta
        return cls({m: MatchupTest(m, elo0, elo1, alpha, b, max_blocks, mode, unit, min_blocks) for m in matchups},
                   alpha=alpha, beta=beta, error_control=error_control)

    def error_rates(self) -> str:
        """One line stating the run's combined error rates."""
        k = len(self.tests)
        per = ", ".join(f"{MATCHUP_LABELS.get(m, m)} alpha {t.alpha:g} beta {t.beta:g}" for m, t in self.tests.items())
        comb_fail = 1.0 - math.prod(1.0 - t.beta for t in self.tests.values())
        return (f"error rates: per matchup {per}; run (pass needs all {k}): false pass <= "
                f"{min(t.alpha for t in self.tests.values()):g}, false fail <= {comb_fail:.4g}"
                + (" (Bonferroni: beta split over the matchups)" if self.error_control == "bonferroni" and k > 1 else ""))

    def pending(self) -> list[str]:
        """Matchups that still need blocks (empty once the verdict is final)."""
        if self.verdict() != "running":
            return []
        return [m for m, t in self.tests.items() if not t.finished]

    def add(self, matchup: str, total: float, points: float | None = None) -> None:
        self.tests[matchup].add(total, points)

    def verdict(self) -> str:
        """passed / failed / inconclusive / running."""
        ts = list(self.tests.values())
        if any(t.decision == "H0" for t in ts):
            return "failed"
        if all(t.decision == "H1" for t in ts):
            return "passed"
        if all(t.finished for t in ts):
            return "inconclusive"
        return "running"

    def exit_code(self) -> int:
        v = self.verdict()
        return {"passed": EXIT_PASSED, "failed": EXIT_FAILED, "inconclusive": EXIT_INCONCLUSIVE}.get(v, EXIT_ERROR)


Sample = tuple[str, float, "float | None"]  # (matchup, candidate total, candidate points diff)


def drive(run: SPRTRun, samples: Iterable[Sample], on_block: Callable[[str, MatchupStatus], None] | None = None) -> str:
    """Feed a stream of block outcomes until the verdict is final; return it.

    Samples for matchups that no longer need blocks are skipped (they were
    already in flight when the matchup was decided).
    """
    for matchup, total, points in samples:
        pending = run.pending()
        if not pending:
            break
        if matchup not in pending:
            continue
        run.add(matchup, total, points)
        if on_block:
            on_block(matchup, run.tests[matchup].status())
    return run.verdict()


def _pm(x: float, err: float | None, fmt: str = "+.1f") -> str:
    return format(x, fmt) + (f" +/- {err:.1f}" if err is not None else "")


def format_status(s: MatchupStatus) -> str:
    """One progress line: blocks, LLR against its bounds, estimates (or why there are none)."""
    label = MATCHUP_LABELS.get(s.matchup, s.matchup)
    parts = [f"{label}: {s.blocks:4d} blocks  LLR {s.llr:+.3f} [{s.lower:+.3f}, {s.upper:+.3f}]"]
    e = s.estimate
    if s.points is not None:
        ci = f" [{s.points_ci[0]:+.1f}, {s.points_ci[1]:+.1f}]" if s.points_ci else " (no interval yet)"
        parts.append(f"points/block {s.points:+.1f}{ci}")
    if e is not None:
        if e.elo is not None:
            parts.append(f"Elo {_pm(e.elo, e.elo_error)}")
        if s.bot_elo is not None:
            ci = f" [{s.bot_elo_ci[0]:+.1f}, {s.bot_elo_ci[1]:+.1f}]" if s.bot_elo_ci else ""
            parts.append(f"per bot {s.bot_elo:+.1f}{ci}")
        if e.nelo is not None:
            parts.append(f"nElo {_pm(e.nelo, e.nelo_error)}")
        if e.note:
            parts.append(f"({e.note})")
    if s.verdict != "running":
        parts.append(s.verdict.upper() + (f" at {s.stopped_at}" if s.stopped_at else "")
                     + (" (estimates naive: an early stop exaggerates them)" if s.stopped_at else ""))
    return "  ".join(parts)
