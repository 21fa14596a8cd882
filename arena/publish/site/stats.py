"""Cinch statistics of each bot, computed from the game records alone.

One pass over every finished deal's events (docs/records.md): bids, the
contract, the six tricks (grouped four plays at a time, winners from
``trick_winners``) and the points. Which numbers are per seat and which per
side is part of their meaning, so it is spelled out here and on the pages:

* per seat (the bot that acted): bids placed, contracts won and made or set
  by level, points as bidder, the dealer's forced bids, pedros captured (in
  a trick the bot won) and lost (played by the bot into a trick the
  opponents won);
* per side (a bot partnering itself counts once): deals played, points as
  defender, and the deals in which the bot's side took High, Low, Jack and
  Game. Low goes to the side of the seat that held it, which is the seat
  that played it (every card held when play begins is played).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

SISTER = {"H": "D", "D": "H", "S": "C", "C": "S"}
#: point cards by the name the pages use, as (rank, whose suit): "t" trump, "s" its sister suit
HONOURS = {"high": "At", "jack": "Jt", "game": "Tt", "low": "2t"}
PEDROS = ("5t", "5s")


def _card(spec: str, trump: str) -> str:
    return spec[0] + (trump if spec[1] == "t" else SISTER[trump])


@dataclass
class BotStats:
    """Counts for one bot; averages are derived so an empty sample shows as none, never as 0."""

    deals: int = 0  # side-deals: finished deals with the bot on a side
    bids: int = 0
    bid_sum: int = 0
    passes: int = 0
    contracts: dict[int, list[int]] = field(default_factory=dict)  # level -> [made, set]
    bidder_deals: int = 0
    bidder_points: int = 0
    defender_deals: int = 0
    defender_points: int = 0
    forced7: int = 0
    forced7_made: int = 0
    pedros_captured: int = 0
    pedros_lost: int = 0
    honours: dict[str, int] = field(default_factory=lambda: {k: 0 for k in HONOURS})

    @property
    def average_bid(self) -> float | None:
        return self.bid_sum / self.bids if self.bids else None

    @property
    def points_as_bidder(self) -> float | None:
        return self.bidder_points / self.bidder_deals if self.bidder_deals else None

    @property
    def points_as_defender(self) -> float | None:
        return self.defender_points / self.defender_deals if self.defender_deals else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "deals": self.deals, "bids": self.bids, "passes": self.passes, "average_bid": self.average_bid,
            "contracts": {str(k): {"made": v[0], "set": v[1]} for k, v in sorted(self.contracts.items())},
            "bidder_deals": self.bidder_deals, "points_as_bidder": self.points_as_bidder,
            "defender_deals": self.defender_deals, "points_as_defender": self.points_as_defender,
            "forced7": self.forced7, "forced7_made": self.forced7_made,
            "pedros_captured": self.pedros_captured, "pedros_lost": self.pedros_lost,
            "honours": dict(self.honours),
        }


def tricks_of(deal: dict[str, Any]) -> list[list[tuple[int, str, tuple[str, ...]]]]:
    """The deal's tricks as lists of (seat, top card, under cards), in play order."""
    tricks: list[list[tuple[int, str, tuple[str, ...]]]] = []
    for ev in deal["events"]:
        if ev["type"] != "play":
            continue
        if not tricks or len(tricks[-1]) == 4:
            tricks.append([])
        tricks[-1].append((ev["seat"], ev["card"], tuple(ev.get("under") or ())))
    return tricks


def add_deal(deal: dict[str, Any], bot_at: list[str], table: dict[str, BotStats], low_to_holder: bool = True) -> None:
    """Count one finished deal of a game whose seats hold ``bot_at``.

    ``low_to_holder``: the profile's ``low_goes_to`` is ``holder`` (else Low goes with its trick, like the others).
    """
    get: Callable[[str], BotStats] = lambda b: table.setdefault(b, BotStats())  # noqa: E731
    maker, bid, made, trump = deal["maker"], deal["bid"], deal["made"], deal["trump"]
    points = deal["points"]
    sides = [sorted({bot_at[s], bot_at[s + 2]}) for s in (0, 1)]
    for side in (0, 1):
        for b in sides[side]:
            get(b).deals += 1
    for ev in deal["events"]:
        t = ev["type"]
        if t == "bid":
            st = get(bot_at[ev["seat"]])
            if ev["forced"]:
                st.forced7 += 1
                st.forced7_made += int(made)
            else:
                st.bids += 1
                st.bid_sum += ev["amount"]
        elif t == "pass" and not ev["forced"]:
            get(bot_at[ev["seat"]]).passes += 1
    mk = get(bot_at[maker])
    mk.contracts.setdefault(bid, [0, 0])[0 if made else 1] += 1
    mk.bidder_deals += 1
    mk.bidder_points += points[maker % 2]
    for b in sides[1 - maker % 2]:
        st = get(b)
        st.defender_deals += 1
        st.defender_points += points[1 - maker % 2]
    pedros = {_card(p, trump) for p in PEDROS}
    honours = {_card(spec, trump): name for name, spec in HONOURS.items()}
    winners = deal["trick_winners"]
    for i, trick in enumerate(tricks_of(deal)):
        w = winners[i]
        for seat, top, under in trick:
            for c in (top, *under):
                if c in pedros:
                    get(bot_at[w]).pedros_captured += 1
                    if seat % 2 != w % 2:
                        get(bot_at[seat]).pedros_lost += 1
                name = honours.get(c)
                if name:
                    side = seat % 2 if name == "low" and low_to_holder else w % 2
                    for b in sides[side]:
                        get(b).honours[name] += 1


def cinch_stats(games: Iterable[tuple[dict[str, Any], list[str]]]) -> dict[str, BotStats]:
    """Statistics per bot id over (game record, bot id at each seat) pairs; unfinished deals are skipped."""
    table: dict[str, BotStats] = {}
    for record, bot_at in games:
        holder = (record.get("profile") or {}).get("low_goes_to", "holder") == "holder"
        for deal in record.get("deals") or []:
            if "maker" in deal:
                add_deal(deal, bot_at, table, holder)
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


@dataclass
class TimeUse:
    """Decision latencies and the bank left at the end of each game (when the bank is known)."""

    latencies: list[float] = field(default_factory=list)
    bank_left: list[float] = field(default_factory=list)
    startup: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies)
        bank = sorted(self.bank_left)
        start = sorted(self.startup)
        return {
            "decisions": len(lat), "latency_p50_ms": percentile(lat, 0.5), "latency_p99_ms": percentile(lat, 0.99),
            "latency_max_ms": lat[-1] if lat else None,
            "games_with_bank": len(bank), "bank_left_min_ms": bank[0] if bank else None,
            "bank_left_median_ms": percentile(bank, 0.5),
            "startup_p50_ms": percentile(start, 0.5),
        }


def add_time_use(run_game: dict[str, Any], bot_at: list[str], bank_ms: float | None, table: dict[str, TimeUse]) -> None:
    """One game's ``run.games[half]``: per seat latencies, and bank_ms minus the CPU time it charged."""
    for seat, p in enumerate(run_game.get("players") or []):
        if seat >= 4 or not isinstance(p, dict):
            continue
        tu = table.setdefault(bot_at[seat], TimeUse())
        lat = [float(x) for x in p.get("latency_ms") or []]
        tu.latencies.extend(lat)
        if p.get("startup_ms") is not None:
            tu.startup.append(float(p["startup_ms"]))
        if bank_ms is not None and (p.get("cpu_ms") or lat):
            used = p.get("cpu_ms") or lat
            tu.bank_left.append(round(bank_ms - sum(float(x) for x in used), 3))
