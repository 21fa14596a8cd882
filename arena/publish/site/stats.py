"""Cinch statistics of each bot, computed from the game records, per rule profile.

Each record is replayed by the engine, and every count reads the replayed
deals' facts (the engine's ``deal_facts``, with the auction and the forced dealer bid, the
tricks and their winners, which side each point card scored for, the cards
out of play and who laid them away), never the raw events: the rules live
in the engine. Which numbers are per seat and which per side is part of
their meaning, so it is spelled out here and on the pages:

* per seat (the bot that acted): bids placed (a bid in the dark included;
  declining one is not a pass), contracts won and made or set
  by level, points as bidder, the dealer's forced bids, pedros captured (in
  a trick the bot won), lost (played by the bot into a trick the opponents
  won) and laid away (discarded or left face up by the bot, out of play);
* per side (a bot partnering itself counts once): deals played, void deals,
  points as defender, and the deals in which the bot's side scored High,
  Low, Jack, Game (and the off-jack where it is a point; a point card out of
  play scores for the bidders when a defender laid it away and the profile
  says so, else for nobody).

At a table of n seats a side is the deal's (the engine's ``side_of``): each
seat its own at cut-throat, the maker and its called partner against the
rest at five-hand and railroad; a defender is every seat off the maker's
side, and its points are its own side's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

from ...engine import Deal, Game, deal_facts, profile_info, replay
from ...engine.cards import card_str
from ...engine.profile import RuleProfile

HONOURS = ("high", "low", "jack", "game", "off_jack", "king", "queen", "nine", "three", "joker")
#: point cards only some profiles score (a page shows them only under those)
LATER_HONOURS = frozenset(("off_jack", "king", "queen", "nine", "three", "joker"))
PEDROS = ("right_pedro", "left_pedro")


@lru_cache(maxsize=64)
def _profile(text: str) -> RuleProfile:
    return RuleProfile.model_validate(json.loads(text))


def record_profile(record: dict[str, Any]) -> RuleProfile:
    """The record's rule profile (``pagat62`` for a record that names none)."""
    return _profile(json.dumps(record.get("profile") or {}, sort_keys=True))


@dataclass
class BotStats:
    """Counts for one bot under one profile; averages are derived so an empty sample shows as none, never as 0."""

    profile: RuleProfile = field(default_factory=RuleProfile)
    deals: int = 0  # side-deals: finished deals with the bot on a side
    void_deals: int = 0  # deals every seat passed (profiles that redeal)
    bids: int = 0
    bid_sum: int = 0
    passes: int = 0
    contracts: dict[int, list[int]] = field(default_factory=dict)  # level -> [made, set]
    bidder_deals: int = 0
    bidder_points: int = 0
    defender_deals: int = 0
    defender_points: int = 0
    forced: int = 0  # the dealer made to bid after three passes
    forced_made: int = 0
    pedros_captured: int = 0
    pedros_lost: int = 0
    pedros_laid_away: int = 0
    honours: dict[str, int] = field(default_factory=lambda: {k: 0 for k in HONOURS})
    unreplayable: int = 0  # games left out: their record does not replay, so what they hid is unknown

    @property
    def average_bid(self) -> float | None:
        return self.bid_sum / self.bids if self.bids else None

    @property
    def points_as_bidder(self) -> float | None:
        return self.bidder_points / self.bidder_deals if self.bidder_deals else None

    @property
    def points_as_defender(self) -> float | None:
        return self.defender_points / self.defender_deals if self.defender_deals else None

    def applies(self) -> dict[str, str | None]:
        """Why a statistic means nothing under this profile (None: it applies), in the words the engine
        declares for a profile without the mechanism or the point card (``ProfileInfo.lacks``)."""
        lacks = profile_info(self.profile).lacks
        why: dict[str, str | None] = {stat: lacks(feature) for stat, feature in _NEEDS.items()}
        for h in HONOURS:
            why[h] = lacks(h)
        return why

    def to_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile.name, "deals": self.deals, "void_deals": self.void_deals, "bids": self.bids,
            "passes": self.passes, "average_bid": self.average_bid,
            "contracts": {str(k): {"made": v[0], "set": v[1]} for k, v in sorted(self.contracts.items())},
            "bidder_deals": self.bidder_deals, "points_as_bidder": self.points_as_bidder,
            "defender_deals": self.defender_deals, "points_as_defender": self.points_as_defender,
            "forced": self.forced, "forced_made": self.forced_made,
            "pedros_captured": self.pedros_captured, "pedros_lost": self.pedros_lost,
            "pedros_laid_away": self.pedros_laid_away, "honours": dict(self.honours), "unreplayable": self.unreplayable,
            "not_applicable": {k: v for k, v in self.applies().items() if v},
        }


#: The mechanism of the profile (``ProfileInfo``) each statistic counts, beyond the point cards.
_NEEDS = {"forced": "dealer_must_bid", "void_deals": "redeal", "pedros_laid_away": "trumps_leave_play",
          "pedros": "pedros"}


Plays = list[tuple[int, str, tuple[str, ...]]]


@dataclass
class DealCounts:
    """One finished deal as the statistics count it: the engine's facts of the replayed deal
    (``engine.deal_facts``) with its public auction and tricks, cards as text; plain data, so a test
    can write one by hand."""

    dealer: int
    bids: list[tuple[int, int, bool]]  # the auction: (seat, amount or 0 for a pass, forced by the engine)
    dark: list[tuple[int, int]] = field(default_factory=list)  # the round in the dark: (seat, 0 or the bid)
    forced: int | None = None  # index in ``bids`` of the dealer's bid the rules made after three passes
    redeal: bool = False
    maker: int | None = None
    bid: int = 0
    made: bool = False
    points: tuple[int, ...] = (0, 0)
    tricks: list[tuple[int, Plays]] = field(default_factory=list)  # (winner, plays)
    names: dict[str, str] = field(default_factory=dict)  # point card (worth something this deal) -> its name
    credit: dict[str, int] = field(default_factory=dict)  # point card played -> the side it scored for
    out: list[tuple[int, str, int | None]] = field(default_factory=list)  # out of play: (laid away by or -1, card, side it scored for or None)
    sides: tuple[int, ...] = (0, 1, 0, 1)  # each seat's side in the deal (the engine's side_of)


def deal_counts(deal: Deal) -> DealCounts:
    """What the statistics count of one finished deal: the rules' part (the dealer's bid after three
    passes, which card scored as which point for which side, the cards out of play and who laid them
    away) is the engine's ``deal_facts``; the rest is the deal's public auction and tricks."""
    facts = deal_facts(deal)
    bids = [(s, a, f) for s, a, f in deal.bids]
    forced = deal.n - 1 if facts.dealer_bid is not None else None  # every other seat passed, then the dealer had to bid
    dark = list(deal.dark) if deal.profile.dark_bid is not None else []
    if deal.redeal:
        return DealCounts(deal.dealer, bids, dark, forced, redeal=True,
                          sides=tuple(deal.side_of) if deal.side_of else tuple(range(deal.n)))
    names = {card_str(c.card): c.name for c in facts.captures}
    credit = {card_str(c.card): c.side for c in facts.captures if c.trick >= 0 and c.side is not None}
    laid = {c.card: c.side for c in facts.captures if c.trick < 0}
    tricks: list[tuple[int, Plays]] = []
    for t in deal.tricks:
        assert t.winner is not None
        tricks.append((t.winner, [(s, card_str(c), tuple(card_str(u) for u in under)) for s, c, under in t.plays]))
    out = [(s, card_str(c), laid.get(c)) for c, s in facts.out_of_play]
    assert deal.maker is not None
    return DealCounts(deal.dealer, bids, dark, forced, False, deal.maker, deal.high, bool(deal.made),
                      deal.points or (0, 0), tricks, names, credit, out, tuple(deal.side_of))


def game_facts(record: dict[str, Any] | None, game: Game | None = None) -> list[DealCounts] | None:
    """Every finished deal's facts, from the engine replaying the record (or from ``game``, the record
    already replayed and checked); None for a record that does not replay (its facts are unknown).
    Unfinished deals (a forfeit, a saved game) are left out."""
    if game is None:
        try:
            game = replay(record or {})
        except (ValueError, RuntimeError):
            return None
    return [deal_counts(d) for d in game.deals if d.done]


def add_deal(f: DealCounts, bot_at: list[str], table: dict[str, BotStats], profile: RuleProfile) -> None:
    """Count one finished (or void) deal of a game under ``profile`` whose seats hold ``bot_at``."""
    get: Callable[[str], BotStats] = lambda b: table.setdefault(b, BotStats(profile))  # noqa: E731
    side_of = f.sides
    sides = [sorted({bot_at[s] for s in range(len(bot_at)) if side_of[s] == k}) for k in range(max(side_of) + 1)]
    for seat, amount in f.dark:  # a bid in the dark counts as a bid; declining one is no pass
        if amount:
            st = get(bot_at[seat])
            st.bids += 1
            st.bid_sum += amount
    for i, (seat, amount, forced) in enumerate(f.bids):
        st = get(bot_at[seat])
        if i == f.forced:  # the dealer made to bid
            st.forced += 1
            st.forced_made += int(f.made)
        elif amount:
            st.bids += 1
            st.bid_sum += amount
        elif not forced:
            st.passes += 1
    if f.redeal:
        for bots in sides:
            for b in bots:
                get(b).void_deals += 1
        return
    assert f.maker is not None
    b_side = side_of[f.maker]
    for bots in sides:
        for b in bots:
            get(b).deals += 1
    mk = get(bot_at[f.maker])
    mk.contracts.setdefault(f.bid, [0, 0])[0 if f.made else 1] += 1
    mk.bidder_deals += 1
    mk.bidder_points += f.points[b_side]
    for side, bots in enumerate(sides):
        if side == b_side:
            continue
        for b in bots:
            st = get(b)
            st.defender_deals += 1
            st.defender_points += f.points[side]
    for w, plays in f.tricks:
        for seat, top, under in plays:
            for c in (top, *under):
                name = f.names.get(c)
                if name in PEDROS:
                    get(bot_at[w]).pedros_captured += 1
                    if side_of[seat] != side_of[w]:
                        get(bot_at[seat]).pedros_lost += 1
                elif name:
                    for b in sides[f.credit[c]]:
                        get(b).honours[name] += 1
    for seat, c, scored in f.out:
        name = f.names.get(c)
        if name in PEDROS and seat >= 0:
            get(bot_at[seat]).pedros_laid_away += 1
        elif name and scored is not None:  # a defender's discarded point trump scores for the bidders
            for b in sides[scored]:
                get(b).honours[name] += 1


def cinch_stats(games: Iterable[tuple[dict[str, Any], list[str]]],
                facts_of: Sequence[list[DealCounts] | None] | None = None) -> dict[str, dict[str, BotStats]]:
    """Statistics per bot id and profile name over (game record, bot id at each seat) pairs, each
    record replayed by the engine (``facts_of``: each game's ``game_facts``, where a caller that
    replayed them already has them); deals left unfinished (a forfeit, a saved game) are skipped."""
    table: dict[str, dict[str, BotStats]] = {}
    per_profile: dict[str, dict[str, BotStats]] = {}
    for i, (record, bot_at) in enumerate(games):
        profile = record_profile(record)
        into = per_profile.setdefault(profile.name, {})
        facts = game_facts(record) if facts_of is None else facts_of[i]
        if facts is None:  # counted nowhere rather than counted wrong; the page says how many
            for b in set(bot_at):
                into.setdefault(b, BotStats(profile)).unreplayable += 1
            continue
        for f in facts:
            add_deal(f, bot_at, into, profile)
    for name, bots in per_profile.items():
        for b, st in bots.items():
            table.setdefault(b, {})[name] = st
    return table


# ------------------------------------------------------------------ time use


def percentile(sorted_values: list[float], p: float) -> float | None:
    """Nearest-rank percentile of sorted values; None where the sample cannot carry it.

    A high percentile needs at least 1/(1-p) values (100 for p99): with
    fewer, the top value would be passed off as the 99th percentile.
    """
    n = len(sorted_values)
    if n == 0 or (p > 0.5 and n < math.floor(1 / (1 - p) + 1e-9)):
        return None
    k = math.ceil(p * n - 1e-9) - 1
    return sorted_values[min(max(k, 0), n - 1)]


def _num(v: object) -> float | None:
    """A number of a run record (a bool is no number), else None."""
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


@dataclass(frozen=True)
class SeatRun:
    """One seat's timings in a results line's ``run.games[half].players`` (``BlockResult.game_run``)."""

    latency_ms: tuple[float, ...] = ()
    cpu_ms: tuple[float, ...] = ()
    startup_ms: float | None = None


@dataclass(frozen=True)
class RunFault:
    """One fault of ``run.games[half].faults``: which seat and decision, and the stderr tail kept."""

    seat: int | None
    decision: object
    stderr: str | None


@dataclass(frozen=True)
class GameRun:
    """A results line's ``run.games[half]`` as the pages read it; the run part is never scored, so what is
    not of the expected type reads as missing (a line of an older harness, an empty run)."""

    players: tuple[SeatRun | None, ...] = ()
    faults: tuple[RunFault, ...] = ()

    @classmethod
    def of(cls, run_games: Sequence[object], half: int) -> "GameRun":
        raw = run_games[half] if 0 <= half < len(run_games) else None
        if not isinstance(raw, dict):
            return cls()
        players: list[SeatRun | None] = []
        for p in raw.get("players") or []:
            if not isinstance(p, dict):
                players.append(None)
                continue
            lat = tuple(x for x in map(_num, p.get("latency_ms") or []) if x is not None)
            cpu = tuple(x for x in map(_num, p.get("cpu_ms") or []) if x is not None)
            players.append(SeatRun(lat, cpu, _num(p.get("startup_ms"))))
        faults = [RunFault(f.get("seat") if isinstance(f.get("seat"), int) else None, f.get("decision"),
                           f.get("stderr") if isinstance(f.get("stderr"), str) else None)
                  for f in raw.get("faults") or [] if isinstance(f, dict)]
        return cls(tuple(players), tuple(faults))


@dataclass(frozen=True)
class TimeSummary:
    """A bot version's time use as its page shows it (None: the sample cannot carry the figure)."""

    decisions: int = 0
    latency_p50_ms: float | None = None
    latency_p99_ms: float | None = None
    latency_max_ms: float | None = None
    games_with_bank: int = 0
    bank_left_min_ms: float | None = None
    bank_left_median_ms: float | None = None
    startup_p50_ms: float | None = None


@dataclass
class TimeUse:
    """Decision latencies and the bank left at the end of each game (when the bank is known)."""

    latencies: list[float] = field(default_factory=list)
    bank_left: list[float] = field(default_factory=list)
    startup: list[float] = field(default_factory=list)

    def summary(self) -> TimeSummary:
        lat = sorted(self.latencies)
        bank = sorted(self.bank_left)
        start = sorted(self.startup)
        return TimeSummary(len(lat), percentile(lat, 0.5), percentile(lat, 0.99), lat[-1] if lat else None,
                           len(bank), bank[0] if bank else None, percentile(bank, 0.5), percentile(start, 0.5))


def add_time_use(run_game: GameRun, bot_at: list[str], bank_ms: float | None, table: dict[str, TimeUse]) -> None:
    """One game's run facts: per seat latencies, and bank_ms minus the CPU time it charged."""
    for seat, p in enumerate(run_game.players):
        if seat >= len(bot_at) or p is None:
            continue
        tu = table.setdefault(bot_at[seat], TimeUse())
        tu.latencies.extend(p.latency_ms)
        if p.startup_ms is not None:
            tu.startup.append(p.startup_ms)
        if bank_ms is not None and (p.cpu_ms or p.latency_ms):
            used = p.cpu_ms or p.latency_ms
            tu.bank_left.append(round(bank_ms - sum(used), 3))
