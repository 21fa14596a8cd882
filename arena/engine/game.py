"""A game: deal after deal until the end rules of docs/rules.md section 8.

Two formats share this class: ``target`` (play to the profile's target with
"bidder goes out"; a deal cap ends a runaway game as unfinished) and a fixed
number of deals (``fixed_deals``), where section 8 is ignored and the side
with the larger score change wins (equal is a draw).
"""

from __future__ import annotations

from typing import Any

from .actions import Action, Choice
from .chance import DealKey, DeckSource, KeyedSource
from .deal import Deal
from .profile import RuleProfile
from .forms import ViewForm

DEFAULT_MAX_DEALS = 200


class Game:
    def __init__(
        self,
        profile: RuleProfile | None = None,
        key: DealKey = DealKey("0"),
        source: DeckSource | None = None,
        max_deals: int = DEFAULT_MAX_DEALS,
        fixed_deals: int | None = None,
    ) -> None:
        self.profile = profile or RuleProfile()
        self.source: DeckSource = source if source is not None else KeyedSource(key)
        self.key = getattr(self.source, "key", str(key))
        if max_deals < 1:
            raise ValueError("max_deals must be at least 1")
        if fixed_deals is not None and fixed_deals < 1:
            raise ValueError("fixed_deals must be at least 1")
        self.max_deals = max_deals
        self.fixed_deals = fixed_deals
        n = self.profile.players
        self.first_dealer = self.source.first_dealer(n) if n != 4 else self.source.first_dealer()
        self.scores: tuple[int, ...] = (0,) * self.profile.score_slots  # per side of pairs, else per seat
        self.deals: list[Deal] = []
        self.over = False
        self.winner: int | None = None  # side 0 (seats 0+2) or 1 (seats 1+3); a seat at tables of single scores
        self.end_reason: str | None = None  # target, bidder_out, deals, cap
        self._memo = ViewMemo()  # the views' parts that never change once made (filled on first use)
        self._start_deal()

    @property
    def deal(self) -> Deal:
        return self.deals[-1]

    @property
    def unfinished(self) -> bool:
        return self.end_reason == "cap"

    @property
    def to_act(self) -> int:
        return -1 if self.over else self.deals[-1].to_act

    @property
    def choice(self) -> Choice:
        if self.over:
            raise RuntimeError("the game is over: there is no decision to make")
        return self.deals[-1].choice

    def apply(self, action: Action) -> None:
        if self.over:
            raise RuntimeError("the game is over: no action can be applied")
        deal = self.deals[-1]
        deal.apply(action)
        if deal.done:
            self._end_deal(deal)

    def _start_deal(self) -> None:
        k = len(self.deals)
        deal = Deal(self.profile, k, (self.first_dealer + k) % self.profile.players, self.scores, self.source)
        self.deals.append(deal)
        if deal.done:  # cannot happen in pagat62 (naming trump is a choice); kept total
            self._end_deal(deal)

    def _end_deal(self, deal: Deal) -> None:
        before = deal.scores_before
        after = deal.scores_after
        assert after is not None
        self.scores = after
        n = len(self.deals)
        if self.fixed_deals is not None:
            if n >= self.fixed_deals:
                top = max(after)
                self._finish("deals", after.index(top) if after.count(top) == 1 else None)
                return
        elif not deal.redeal:
            end = self._end_of(deal, before, after)
            if end is not None:
                self._finish(*end)
                return
        if n >= self.max_deals:
            self._finish("cap", None)
            return
        self._start_deal()

    def _end_of(self, deal: Deal, before: tuple[int, ...], after: tuple[int, ...]) -> tuple[str, int] | None:
        """The end rules of the profile (docs/rules.md 8 and 11), checked after a scored deal."""
        p = self.profile
        if p.sides != "pairs":
            return _end_of_seats(p, deal, after)
        b = deal.bidders
        assert b is not None
        if p.moon_bid is not None and deal.high >= p.moon_bid:  # shooting the moon: all or nothing
            return ("moon", b if deal.made else 1 - b)
        thr = p.deciding_threshold
        if thr is not None and before[0] >= thr and before[1] >= thr and deal.made:
            return ("bidder_out", b)
        if p.lose_at is not None and min(after) <= p.lose_at:  # a side fell through the floor
            return ("floor", 0 if after[1] <= p.lose_at else 1)
        reached = (after[0] >= p.target, after[1] >= p.target)
        if p.win_requires_bid:  # only the bidders can go out, by making their bid
            return ("target", b) if deal.made and reached[b] else None
        if reached[0] != reached[1]:
            return ("target", 0 if reached[0] else 1)
        if reached[0] and p.both_reach == "bidders":
            return ("target", b)
        if reached[0] and p.both_reach == "higher_or_bidders":
            return ("target", b if after[0] == after[1] else (0 if after[0] > after[1] else 1))
        return None

    def _finish(self, reason: str, winner: int | None) -> None:
        self.over = True
        self.end_reason = reason
        self.winner = winner

    def view(self, seat: int, index: int | None = None) -> "View":
        """What ``seat`` knows now (rules 9), including earlier deals' outcomes; with ``index``,
        what it knew at the end of that deal."""
        i = len(self.deals) - 1 if index is None else index
        return deal_view(self.deals[i], seat, self._memo.previous(self.deals, i))

    def view_dict(self, seat: int, index: int | None = None) -> ViewForm:
        """``view(seat, index).to_dict()``, what no earlier view changed taken as it was made
        (``ViewMemo``): the request of every decision, at the cost of what changed."""
        return self._memo.view_dict(self.deals, len(self.deals) - 1 if index is None else index, seat)

    def view_bytes(self, seat: int, index: int | None = None) -> bytes:
        """``view_dict(seat, index)`` as the JSON text a bot reads (``jsontext.dumps``), made from
        parts encoded once (``ViewMemo.view_bytes``): no dict or list per request."""
        return self._memo.view_bytes(self.deals, len(self.deals) - 1 if index is None else index, seat)


def _end_of_seats(p: RuleProfile, deal: Deal, after: tuple[int, ...]) -> tuple[str, int] | None:
    """The end of a game of single scores (docs/rules.md 14): the one seat at the target
    wins; of several, the maker, then (``maker_or_best_card``, seeds/003) the one credited
    with the deal's highest point card, or (``bidders_or_higher``, seeds/004) the maker's
    partner, then the highest score, a tie playing on."""
    reached = [s for s, v in enumerate(after) if v >= p.target]
    if len(reached) <= 1:
        return ("target", reached[0]) if reached else None
    if deal.maker in reached:
        return ("target", deal.maker)
    if p.both_reach == "maker_or_best_card":
        for seat in _best_card_order(deal):
            if seat in reached:
                return ("target", seat)
        return None
    if deal.partner in reached:
        return ("target", deal.partner)
    top = max(after[s] for s in reached)
    best = [s for s in reached if after[s] == top]
    return ("target", best[0]) if len(best) == 1 else None


def _best_card_order(deal: Deal) -> list[int]:
    """The seats credited with the deal's point cards, highest card first: right pedro,
    left pedro, then the trump ace, jack, ten and two (seeds/003); Low to its holder
    where the profile says so."""
    trump = deal.trump
    assert trump is not None
    order = [make_card(RANK_5, trump), make_card(RANK_5, sister(trump)), make_card(RANK_A, trump),
             make_card(RANK_J, trump), make_card(RANK_T, trump), make_card(RANK_2, trump)]
    won: dict[int, int] = {}
    for t in deal.tricks:
        for _, top, under in t.plays:
            for c in (top, *under):
                won[c] = t.winner  # type: ignore[assignment]
    low = order[-1]
    if deal.profile.low_goes_to == "holder" and deal.low_holder is not None:
        won[low] = deal.low_holder
    return [won[c] for c in order if c in won]


from .cards import RANK_2, RANK_5, RANK_A, RANK_J, RANK_T, make_card, sister
from .view import View, ViewMemo, deal_view  # noqa: E402  (view imports deal, not game)
