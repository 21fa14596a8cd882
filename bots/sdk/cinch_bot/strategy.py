"""Reusable Cinch know-how: hand evaluation and a greedy card-play policy.

These are plain functions on integer cards (see ``cards.Tables``) so that a
search bot can call them thousands of times per decision in rollouts, and a
simple bot can call them once on its real view. Nothing here is random.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .bot import Bot
from .cards import SUITS, TABLES, Tables, card_index, card_name

# Trump power values (see Tables.power): A=13 K=12 Q=11 J=10 T=9 5=4 left=3 2=0.
_A, _K, _Q, _J, _T, _R5, _L5 = 13, 12, 11, 10, 9, 4, 3


def estimate_points(hand: Iterable[int], trump: int, dealer: bool = False) -> float:
    """Rough expected points for the maker's side if ``trump`` is named.

    Held point cards count by how safe they are (a pedro is safer with high
    trumps to cover it), and the side also expects a share of the points it
    does not hold that grows with trump control. Tuned by self-play.
    """
    t = TABLES[trump]
    powers = sorted((t.power[c] for c in hand if t.power[c] >= 0), reverse=True)
    n = len(powers)
    held = set(powers)
    high = sum(1 for p in powers if p >= _J)
    est = 0.0
    if _A in held:
        est += 1.0
    if _J in held:
        est += 0.75 if (_A in held or _K in held) else 0.55
    if _T in held:
        est += 0.55 + 0.05 * high
    for pedro in (_R5, _L5):
        if pedro in held:
            cover = sum(1 for p in powers if p > pedro)
            est += 5.0 * min(0.95, 0.45 + 0.12 * cover)
    if 0 in held:
        est += 1.0
    unheld = 14 - sum(t.points[c] for c in hand)
    share = min(0.6, 0.22 + 0.07 * high + 0.03 * n + (0.05 if dealer else 0.0))
    return est + unheld * share + (0.6 if dealer else 0.0)


def best_trump(hand: Iterable[int], dealer: bool = False) -> tuple[int, float]:
    """The suit with the highest estimate, and that estimate."""
    cards = list(hand)
    scored = [(estimate_points(cards, s, dealer), s) for s in range(4)]
    est, suit = max(scored)
    return suit, est


def choose_bid(view: dict[str, Any], legal: dict[str, Any], margin: float = 0.5) -> dict[str, Any]:
    """Bid the cheapest legal amount the hand supports, else pass.

    The bid promises points, so bidding higher than needed only adds risk;
    overcalling the partner is done only with a clearly better hand.
    """
    hand = [card_index(c) for c in view["hand"]]
    dealer = view["seat"] == view["dealer"]
    _, est = best_trump(hand, dealer)
    bids = legal.get("bids", [])
    if not legal.get("pass"):
        return {"type": "bid", "amount": bids[0]}
    if not bids:
        return {"type": "pass"}
    partner_bid = max((b["amount"] for b in view.get("bids", []) if b["seat"] == view["partner"]), default=0)
    need = bids[0] + margin + (1.5 if partner_bid else 0.0)
    if est >= need:
        return {"type": "bid", "amount": bids[0]}
    return {"type": "pass"}


def choose_rob(legal: dict[str, Any]) -> list[str]:
    """Non-trumps that can still win a trick: highest ranks first (aces, kings)."""
    return sorted(legal["from"], key=lambda c: -(card_index(c) % 13))[: int(legal["take"])]


def choose_under(top: int, under_from: Sequence[int], n: int, t: Tables) -> list[int]:
    """Cards to play under the top: the weakest pointless trumps, keeping strong ones."""
    pool = sorted((c for c in under_from if c != top), key=lambda c: t.power[c])
    return pool[:n]


def _cheap_key(c: int, t: Tables) -> tuple[int, int, int]:
    """Order for throwing a card away: no points at stake, plain before trump, low first.

    Low (the 2 of trump) counts as free: its point stays with its holder.
    """
    pts = 0 if c == t.low else t.points[c]
    trump = t.power[c] >= 0
    return (pts, 1 if trump else 0, t.power[c] if trump else c % 13)


def choose_play(
    hand: Sequence[int],
    legal: Sequence[int],
    trick: Sequence[tuple[int, int]],
    seat: int,
    t: Tables,
    outside_trumps: Iterable[int],
    bidder_side: int,
) -> int:
    """A greedy card choice for ``seat``.

    ``trick`` holds the (seat, card) plays so far; ``outside_trumps`` the
    trumps that other seats may still hold. Rules of thumb: draw trumps with
    the boss trump, cash point trumps once nothing outside can beat them,
    give points to a trick the partner has surely won (or that we win as the
    last player), win pointed tricks cheaply, otherwise throw the cheapest card.
    """
    power = t.power
    pts = t.points
    low = t.low
    top_out = max((power[c] for c in outside_trumps), default=-1)
    if len(legal) == 1:
        return legal[0]
    if not trick:
        return _lead(hand, legal, t, top_out, seat % 2 == bidder_side)
    led = t.esuit[trick[0][1]]
    best_seat, best_card, best = trick[0][0], trick[0][1], t.strength(trick[0][1], led)
    for s, c in trick[1:]:
        st = t.strength(c, led)
        if st > best:
            best_seat, best_card, best = s, c, st
    after = 3 - len(trick)
    at_stake = sum(pts[c] for _, c in trick if c != low)
    if (best_seat - seat) % 2 == 0:  # partner is winning
        safe = after == 0 or (power[best_card] >= 0 and power[best_card] > top_out)
        if safe:
            return max(legal, key=lambda c: (pts[c] if c != low else 0, -_cheap_key(c, t)[1], -_cheap_key(c, t)[2]))
        return min(legal, key=lambda c: _cheap_key(c, t))
    winners = [c for c in legal if t.strength(c, led) > best]
    if winners:
        if after == 0:
            # Last to play: win, and take our own point card home if we can.
            return max(winners, key=lambda c: (pts[c] if c != low else 0, -t.strength(c, led)))
        bosses = [c for c in winners if power[c] >= 0 and power[c] > top_out]
        if bosses and (at_stake > 0 or any(pts[c] >= 5 for c in hand)):
            return min(bosses, key=lambda c: (pts[c] if c != low else 0, power[c]))
        if at_stake > 0:
            return max(winners, key=lambda c: (t.strength(c, led), -pts[c]))
    return min(legal, key=lambda c: _cheap_key(c, t))


def _lead(hand: Sequence[int], legal: Sequence[int], t: Tables, top_out: int, bidding: bool) -> int:
    power, pts = t.power, t.points
    trumps = [c for c in legal if power[c] >= 0]
    if trumps:
        bosses = sorted((c for c in trumps if power[c] > top_out), key=lambda c: -power[c])
        if bosses:
            if top_out < 0:  # nothing outside can beat any trump: cash the points first
                return max(trumps, key=lambda c: (pts[c] if c != t.low else 0, power[c]))
            pointed = [c for c in bosses if pts[c] >= 5]
            if pointed:
                return pointed[0]
            return bosses[0]  # draw trumps with the boss
        if bidding and len(trumps) >= 3:
            # Push out the opponents' high trumps with a pointless middle trump.
            mids = [c for c in trumps if pts[c] == 0 or c == t.low]
            if mids:
                return max(mids, key=lambda c: power[c])
    plains = [c for c in legal if power[c] < 0]
    if plains:
        aces = [c for c in plains if c % 13 == 12]
        if aces:
            return aces[0]
        return min(plains, key=lambda c: c % 13)
    return min(legal, key=lambda c: _cheap_key(c, t))


class Facts:
    """What a play-phase view implies, in integers, for strategies and samplers.

    ``outside_trumps`` are trumps not in the hand and not yet played: since
    every trump is in some hand during play, they are exactly the trumps the
    other seats hold. ``voids[s]`` are suits seat ``s`` showed out of.
    """

    def __init__(self, view: dict[str, Any]) -> None:
        self.seat: int = view["seat"]
        self.trump: int = SUITS.index(view["trump"])
        self.t: Tables = TABLES[self.trump]
        self.hand = [card_index(c) for c in view["hand"]]
        self.maker: int = view["maker"]
        self.bid: int = view["bid"]
        self.bidder_side = self.maker % 2
        self.played: set[int] = set()
        self.played_by: list[list[int]] = [[], [], [], []]
        self.voids: list[set[int]] = [set(), set(), set(), set()]
        self.trick: list[tuple[int, int]] = []
        self.tricks_done = 0
        self.won_points = [0, 0]  # points captured so far (Low excluded: it stays with its holder)
        t = self.t
        for tr in view.get("tricks", []):
            plays = [(p["seat"], card_index(p["card"]), [card_index(u) for u in p.get("under", [])]) for p in tr["plays"]]
            if plays:
                led = t.esuit[plays[0][1]]
                for s, c, under in plays:
                    self.played.add(c)
                    self.played.update(under)
                    self.played_by[s].append(c)
                    self.played_by[s].extend(under)
                    if t.esuit[c] != led and not (led != self.trump and t.esuit[c] == self.trump):
                        self.voids[s].add(led)
            if tr.get("winner") is None:
                self.trick = [(s, c) for s, c, _ in plays]
            else:
                self.tricks_done += 1
                side = tr["winner"] % 2
                for s, c, under in plays:
                    for x in (c, *under):
                        if x != t.low:
                            self.won_points[side] += t.points[x]
        mine = set(self.hand)
        self.outside_trumps = [c for c in t.trumps if c not in mine and c not in self.played]


class EvaluatingBot(Bot):
    """Bids, names trumps, robs and buries extra cards by hand evaluation;
    a subclass only says which card to play (``choose_top``).

    The heuristic and Monte Carlo baselines differ only in card play, so
    this is the one place their shared decisions live.
    """

    margin = 0.5  # points of safety asked of a hand before it bids

    def decide(self, kind: str, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
        if kind == "bid":
            return choose_bid(view, legal, self.margin)
        if kind == "trump":
            suit, _ = best_trump([card_index(c) for c in view["hand"]], view["seat"] == view["dealer"])
            return {"type": "trump", "suit": SUITS[suit]}
        if kind == "rob":
            return {"type": "rob", "take": choose_rob(legal)}
        facts = Facts(view)
        top = self.choose_top(view, facts, [card_index(c) for c in legal["cards"]])
        n = int(legal.get("under") or 0)
        if not n:
            return {"type": "play", "card": card_name(top)}
        under = choose_under(top, [card_index(c) for c in legal["under_from"]], n, facts.t)
        return {"type": "play", "card": card_name(top), "under": [card_name(c) for c in under]}

    def choose_top(self, view: dict[str, Any], facts: Facts, cards: list[int]) -> int:
        """The card to play (the top card, for a long hand) among the legal ``cards``."""
        raise NotImplementedError
