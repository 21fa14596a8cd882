"""The tempo audit: per seat of each bot, how long it sat idle on move and what its timing says about its hand.

A partner can read a hand from how long a seat takes (docs/sandbox.md, Tempo); ``tempo: fixed``
closes that, and this audit shows the host who tried, in either mode. From each game's record
(the seat's asked decisions, its dealt hands) and run facts (latency, CPU and wait for a core per
decision), per bot and seat of the game it sat at (0 to n-1: in a pairs game one copy of a bot
may send while its partner, the same bot at the other seat, only reads, and pooling the two would
halve what the sender shows):

* ``idle``: time on move that was neither its CPU nor time the machine did not give its seat
  (latency - cpu - wait; ``wait`` is every thread of the seat's wait for a core, the judge's thaw
  and write of the request and its own time on the reply's way: docs/sandbox.md, "What a
  decision's time is"): an honest program computes (CPU) or waits for the machine, whatever the
  machine's load; a signalling one sleeps.
* ``mi_bits``: the mutual information between its idle time and its own hand (high-card points
  of the hand it was dealt), within each kind of decision and each public action taken (what
  the table sees it do), against the same with the hands shuffled among its decisions
  (``mi_null_bits``, the bias of a finite sample, and its spread): ``mi_z`` standard deviations
  above chance says its timing tells of its hand beyond its public actions.

A seat is flagged when either is far outside what the baseline bots show (thresholds below,
measured over round robins of random, heuristic, montecarlo and pimc), and a bot when any of its
seats is: the figures say why.
Timings are run facts: the audit is the host's (``arena rate`` writes it as ``tempo.json``
beside the leaderboard, the server shows each team its own), never part of the scored results.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from pydantic import BaseModel, Field

from ..engine.record import replay
from ..results import ResultLine

#: Flag at a mean idle time on move of at least this (ms per decision) that is also at least
#: IDLE_SHARE of its latency: the baselines idle well under 1 ms a decision, a bot that sleeps
#: to signal idles for its symbols (tens of ms).
IDLE_FLAG_MS = 10.0
IDLE_SHARE = 0.25
#: Flag when the idle time says this much of the hand beyond chance: ``mi_z`` standard deviations
#: over the shuffled hands and ``MI_EXCESS_BITS`` above their mean.
MI_FLAG_Z = 6.0
MI_EXCESS_BITS = 0.05
PERMUTATIONS = 100
TEMPO_FILE = "tempo.json"
BINS = 4
MIN_DECISIONS = 40  # fewer: the figures are shown, nothing is flagged on them

_POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}


@dataclass
class _Row:
    stratum: tuple[str, str]  # (kind of decision, the public action taken)
    idle: float
    latency: float
    hand: int  # high-card points of the hand dealt that deal


class TempoSeat(BaseModel):
    """One bot at one seat number: its figures, and whether (and why) it is flagged. ``None``: no
    decision to measure."""

    bot: str
    seat: int
    games: int
    decisions: int
    idle_ms_mean: float | None = Field(description="mean idle time on move, ms a decision (latency - cpu - wait)")
    idle_ms_p90: float | None
    idle_share: float | None = Field(description="idle time over the time on move")
    mi_bits: float | None = Field(description="bits its idle time tells of its hand, within kinds and actions")
    mi_null_bits: float | None = Field(description="the same with the hands shuffled: what chance gives")
    mi_z: float | None = Field(description="standard deviations of mi_bits above chance (None: infinitely many)")
    flagged: bool
    why: str | None


class TempoThresholds(BaseModel):
    """Where a seat is flagged (the module's constants, written with the audit)."""

    idle_ms: float
    idle_share: float
    mi_z: float
    mi_excess_bits: float
    min_decisions: int


class TempoAudit(BaseModel):
    """``tempo.json``: the thresholds, the figures per bot and seat (by bot, then seat) and the names of the
    bots with a flagged seat."""

    thresholds: TempoThresholds
    seats: list[TempoSeat]
    flagged: list[str]

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), indent=1) + "\n"


@dataclass
class SeatTempo:
    """One bot at one seat number, over every game it sat there."""

    bot: str
    seat: int
    rows: list[_Row] = field(default_factory=list)
    games: int = 0

    def figures(self, seed: int = 0) -> TempoSeat:
        n = len(self.rows)
        idle = [r.idle for r in self.rows]
        lat = [r.latency for r in self.rows]
        total_lat = sum(lat)
        if not n:
            return TempoSeat(bot=self.bot, seat=self.seat, games=self.games, decisions=n, idle_ms_mean=None,
                             idle_ms_p90=None, idle_share=None, mi_bits=None, mi_null_bits=None, mi_z=None,
                             flagged=False, why=None)
        mean_idle = statistics.fmean(idle)
        share = sum(idle) / total_lat if total_lat > 0 else 0.0
        mi, null_mean, null_sd = _mi_against_chance(self.rows, seed)
        z = (mi - null_mean) / null_sd if null_sd > 0 else (0.0 if mi <= null_mean else math.inf)
        why = []
        if n >= MIN_DECISIONS:
            if mean_idle >= IDLE_FLAG_MS and share >= IDLE_SHARE:
                why.append(f"idle on move {mean_idle:.1f} ms a decision ({100 * share:.0f}% of its time on move;"
                           f" the baselines idle under {IDLE_FLAG_MS:g} ms)")
            if z >= MI_FLAG_Z and mi - null_mean >= MI_EXCESS_BITS:
                why.append(f"its idle time tells of its hand: {mi:.3f} bits against {null_mean:.3f} by chance"
                           f" ({z:.1f} sd)")
        return TempoSeat(bot=self.bot, seat=self.seat, games=self.games, decisions=n,
                         idle_ms_mean=round(mean_idle, 3), idle_ms_p90=round(_quantile(idle, 0.9), 3),
                         idle_share=round(share, 4), mi_bits=round(mi, 4), mi_null_bits=round(null_mean, 4),
                         mi_z=None if math.isinf(z) else round(z, 2), flagged=bool(why), why="; ".join(why) or None)


def _quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def _bins(xs: list[float], k: int) -> list[int]:
    """Rank bins (ties share a bin): k groups of about equal size."""
    order = sorted(set(xs))
    if len(order) <= 1:
        return [0] * len(xs)
    rank = {v: i for i, v in enumerate(order)}
    return [min(k - 1, rank[x] * k // len(order)) for x in xs]


def _mi(pairs: list[tuple[int, int]]) -> float:
    n = len(pairs)
    if n == 0:
        return 0.0
    joint = Counter(pairs)
    px = Counter(a for a, _ in pairs)
    py = Counter(b for _, b in pairs)
    return sum(c / n * math.log2(c * n / (px[a] * py[b])) for (a, b), c in joint.items())


def _mi_against_chance(rows: list[_Row], seed: int) -> tuple[float, float, float]:
    """Weighted MI over strata between binned idle time and binned hand points; then the same
    with the hands shuffled within each stratum (PERMUTATIONS times): (mi, null mean, null sd)."""
    strata: dict[tuple[str, str], list[_Row]] = defaultdict(list)
    for r in rows:
        strata[r.stratum].append(r)
    groups = [(_bins([r.idle for r in g], BINS), _bins([float(r.hand) for r in g], 3)) for g in strata.values()
              if len(g) >= 8]
    total = sum(len(x) for x, _ in groups)
    if not total:
        return 0.0, 0.0, 0.0

    def mi_of(hands: list[list[int]]) -> float:
        return sum(len(x) / total * _mi(list(zip(x, h))) for (x, _), h in zip(groups, hands))

    observed = mi_of([h for _, h in groups])
    rng = random.Random(seed)
    null = []
    for _ in range(PERMUTATIONS):
        shuffled = []
        for _, h in groups:
            h = list(h)
            rng.shuffle(h)
            shuffled.append(h)
        null.append(mi_of(shuffled))
    return observed, statistics.fmean(null), statistics.pstdev(null)


def _points(cards: Iterable[str]) -> int:
    return sum(_POINTS.get(c[0], 0) for c in cards)


def _public(event: dict[str, Any]) -> str:
    """What the table sees of a decision, coarsely: the kind and the bid made (not the card)."""
    kind = str(event.get("type"))
    amount = event.get("amount")  # (only a bid carries one)
    return kind if amount is None else f"{kind} {amount}"


def collect(lines: Iterable[ResultLine]) -> dict[tuple[str, int], SeatTempo]:
    """Per (bot name, seat), the rows of every asked decision in the results lines that carry run timings."""
    from ..engine.cards import CARD_NAMES

    seats_of: dict[tuple[str, int], SeatTempo] = {}
    for line in lines:
        runs = line.run.games
        for half, game in enumerate(line.games):
            if half >= len(runs):
                continue
            players = runs[half].get("players") or []
            try:
                dealt = [[[CARD_NAMES[c] for c in hand] for hand in d.dealt] for d in replay(game.record).deals]
            except Exception:  # noqa: BLE001 - a record that does not replay has no audit; check says why
                continue
            asked: dict[int, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
            for d in game.record.get("deals") or []:
                for e in d.get("events") or []:
                    if e.get("type") != "reshuffle" and not e.get("forced"):
                        asked[int(e["seat"])].append((int(d["index"]), e))
            for seat, entry in enumerate(game.seats):
                one = seats_of.setdefault((entry.bot, seat), SeatTempo(entry.bot, seat))
                one.games += 1
                if seat >= len(players):
                    continue
                p = players[seat]
                lat, cpu = p.get("latency_ms") or [], p.get("cpu_ms") or []
                wait = p.get("wait_ms") or [0.0] * len(lat)
                for (deal, e), la, cp, wa in zip(asked[seat], lat, cpu, wait):
                    if deal >= len(dealt) or seat >= len(dealt[deal]):
                        continue
                    one.rows.append(_Row((str(e.get("type")), _public(e)), max(0.0, la - cp - wa), la,
                                         _points(dealt[deal][seat])))
    return seats_of


def audit(lines: Iterable[ResultLine], seed: int = 0) -> TempoAudit:
    """The tempo audit of results lines: the figures per bot and seat (by bot, then seat) and the names of
    the bots with a flagged seat."""
    figures = [s.figures(seed) for _, s in sorted(collect(lines).items())]
    return TempoAudit(thresholds=TempoThresholds(idle_ms=IDLE_FLAG_MS, idle_share=IDLE_SHARE, mi_z=MI_FLAG_Z,
                                                 mi_excess_bits=MI_EXCESS_BITS, min_decisions=MIN_DECISIONS),
                      seats=figures, flagged=sorted({f.bot for f in figures if f.flagged}))
