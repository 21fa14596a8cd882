"""What one seat may know (docs/rules.md section 9), and nothing more.

A view is built from the deal on demand, only from fields the seat has
seen: its own cards, public counts, the bidding, played cards, and (for the
dealer) the stock it robbed. The information-hiding property test checks
every card a view names against what the seat could have seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence, TypeVar

from .cards import SUITS, Card, card_str, cards_str
from .deal import BID, DARK, DONE, PLAY, ROB, Deal


@dataclass(frozen=True, slots=True)
class TrickView:
    leader: int
    plays: tuple[tuple[int, Card, tuple[Card, ...]], ...]
    winner: int | None


@dataclass(frozen=True, slots=True)
class DealSummary:
    """The public outcome of a finished deal."""

    index: int
    dealer: int
    maker: int | None  # None (and trump None, bid 0) for a deal every seat passed (redeal)
    bid: int
    trump: int | None
    points: tuple[int, ...]  # per side: of pairs; of each seat; or the maker's side, then the others
    made: bool
    scores_after: tuple[int, ...]
    redeal: bool = False
    dark: bool = False  # the maker bid in the dark (before the deal)
    sides: tuple[int, ...] | None = None  # sides other than pairs: each seat's side in the deal
    called: int | None = None  # a called partner: the card called (None: alone, or no call)


@dataclass(slots=True)
class View:
    """One seat's knowledge at one moment. Not frozen: one is made for every request, and a frozen
    dataclass's init (a guarded set per field, 31 of them) costs more than the rest of the view;
    nothing keeps a view past the message it becomes."""

    seat: int
    partner: int | None  # fixed pairs: the seat opposite; a called partner once this seat may know it; else None
    dealer: int
    deal_index: int
    phase: str
    scores: tuple[int, ...]  # before this deal; side 0 = seats 0+2, side 1 = seats 1+3; else one per seat
    hand: tuple[Card, ...]
    dealt: tuple[Card, ...]
    discarded: tuple[Card, ...]
    received: tuple[Card, ...]
    bids: tuple[tuple[int, int, bool], ...]  # (seat, amount or 0 for pass, forced)
    maker: int | None
    bid: int | None
    trump: int | None
    discard_counts: tuple[int, ...]  # one per seat
    receive_counts: tuple[int, ...]
    reshuffles: int
    rob_stock: tuple[Card, ...] | None  # dealer only
    rob_taken: tuple[Card, ...] | None  # dealer only
    tricks: tuple[TrickView, ...]
    previous: tuple[DealSummary, ...]
    points: tuple[int, ...] | None  # once the deal is over
    scores_after: tuple[int, ...] | None
    shown: tuple[tuple[Card, ...], ...] | None = None  # cards each seat laid face up; None: the profile shows none
    bid_suits: tuple[int | None, ...] | None = None  # the suit of each bid event (None: a pass); None: bids name none
    dark: tuple[tuple[int, int], ...] | None = None  # (seat, 0 or the bid) before the deal; None: no dark bids
    players: int = 4
    sides: tuple[int | None, ...] | None = None  # sides other than pairs: each seat's side as this seat knows it
    called: int | None = None  # the card the maker called (a called partner), once called
    alone: bool = False  # the maker called no card

    def cards_named(self) -> set[Card]:
        """Every card this view mentions (used to audit information hiding)."""
        out = set(self.hand) | set(self.dealt) | set(self.discarded) | set(self.received)
        out |= set(self.rob_stock or ()) | set(self.rob_taken or ())
        for cards in self.shown or ():
            out.update(cards)
        for t in self.tricks:
            for _, c, under in t.plays:
                out.add(c)
                out.update(under)
        return out

    def to_dict(self, memo: ViewMemo | None = None) -> dict[str, Any]:
        """JSON form with cards as text, as sent to bots; with a ``memo`` (``Game.view_dict``), the
        earlier deals and finished tricks it already holds in that form are taken from it."""
        d: dict[str, Any] = {
            "seat": self.seat,
            "partner": self.partner,
            "dealer": self.dealer,
            "deal_index": self.deal_index,
            "phase": self.phase,
            "scores": list(self.scores),
            "hand": cards_str(self.hand),
            "dealt": cards_str(self.dealt),
            "discarded": cards_str(self.discarded),
            "received": cards_str(self.received),
            "bids": (
                [{"seat": s, "amount": a, "forced": f} for s, a, f in self.bids]
                if self.bid_suits is None
                else [
                    {"seat": s, "amount": a, "forced": f, **({"suit": SUITS[u]} if u is not None else {})}
                    for (s, a, f), u in zip(self.bids, self.bid_suits)
                ]
            ),
            "maker": self.maker,
            "bid": self.bid,
            "trump": None if self.trump is None else SUITS[self.trump],
            "discard_counts": list(self.discard_counts),
            "receive_counts": list(self.receive_counts),
            "reshuffles": self.reshuffles,
            "rob_stock": None if self.rob_stock is None else cards_str(self.rob_stock),
            "rob_taken": None if self.rob_taken is None else cards_str(self.rob_taken),
            "tricks": (
                [trick_dict(t) for t in self.tricks] if memo is None
                else _reuse(self.tricks, *memo.trick_forms(self.deal_index), trick_dict)
            ),
            "previous": (
                [summary_dict(p) for p in self.previous] if memo is None
                else _reuse(self.previous, memo.summaries, memo.summary_dicts, summary_dict)
            ),
            "points": None if self.points is None else list(self.points),
            "scores_after": None if self.scores_after is None else list(self.scores_after),
        }
        if self.shown is not None:
            d["shown"] = [cards_str(c) for c in self.shown]
        if self.dark is not None:
            d["dark"] = [{"seat": s, "amount": a} for s, a in self.dark]
        if self.sides is not None:  # a table of other than fixed pairs
            d["players"] = self.players
            d["sides"] = list(self.sides)
            if self.called is not None or self.alone:
                d["called"] = None if self.called is None else card_str(self.called)
                d["alone"] = self.alone
        return d


def trick_dict(t: TrickView) -> dict[str, Any]:
    return {
        "leader": t.leader,
        "plays": [{"seat": s, "card": card_str(c), **({"under": cards_str(u)} if u else {})} for s, c, u in t.plays],
        "winner": t.winner,
    }


_T = TypeVar("_T")


def _reuse(items: Sequence[_T], made: Sequence[_T], forms: Sequence[dict[str, Any]],
           convert: Callable[[_T], dict[str, Any]]) -> list[dict[str, Any]]:
    """``[convert(x) for x in items]``, taking the form already made of each item that is one of ``made``."""
    k = len(made)
    return [forms[i] if i < k and made[i] is x else convert(x) for i, x in enumerate(items)]


class ViewMemo:
    """The parts of a game's views that never change once made, each made once (``Game`` keeps one).

    A finished deal's summary, and a finished trick of a deal still being
    viewed (tricks are public: the same for every seat), are kept both as
    the view's objects and in wire form; a view built with the memo shares
    those objects, and its ``to_dict(memo)`` takes their wire form from here
    instead of converting them again. So a request costs what changed since
    the last one, not the whole game so far.
    """

    __slots__ = ("summaries", "summary_dicts", "_tricks")

    def __init__(self) -> None:
        self.summaries: list[DealSummary] = []
        self.summary_dicts: list[dict[str, Any]] = []
        #: deal index -> its finished tricks, as TrickViews and in wire form (the last two deals only)
        self._tricks: dict[int, tuple[list[TrickView], list[dict[str, Any]]]] = {}

    def previous(self, deals: Sequence[Deal], index: int) -> tuple[DealSummary, ...]:
        """The summaries of the deals before ``index`` (all finished), made once each."""
        while len(self.summaries) < index:
            done = summarize(deals[len(self.summaries)])
            self.summaries.append(done)
            self.summary_dicts.append(summary_dict(done))
        return tuple(self.summaries[:index])

    def tricks(self, deal: Deal) -> tuple[TrickView, ...]:
        """The deal's tricks as views: the finished ones made once, the one being played anew."""
        made = self._tricks.get(deal.index)
        if made is None:
            for old in [i for i in self._tricks if i < deal.index - 1]:  # no view of those is asked again
                del self._tricks[old]
            made = self._tricks[deal.index] = ([], [])
        views, forms = made
        tricks = deal.tricks
        while len(views) < len(tricks) and tricks[len(views)].winner is not None:
            t = tricks[len(views)]
            views.append(TrickView(t.leader, tuple(t.plays), t.winner))
            forms.append(trick_dict(views[-1]))
        return (*views, *(TrickView(t.leader, tuple(t.plays), t.winner) for t in tricks[len(views):]))

    def trick_forms(self, deal_index: int) -> tuple[Sequence[TrickView], Sequence[dict[str, Any]]]:
        return self._tricks.get(deal_index, ((), ()))


def summary_dict(d: DealSummary) -> dict[str, Any]:
    out = {
        "index": d.index,
        "dealer": d.dealer,
        "maker": d.maker,
        "bid": d.bid,
        "trump": None if d.trump is None else SUITS[d.trump],
        "points": list(d.points),
        "made": d.made,
        "scores_after": list(d.scores_after),
    }
    if d.redeal:
        out["redeal"] = True
    if d.dark:
        out["dark"] = True
    if d.sides is not None:
        out["sides"] = list(d.sides)
        if d.called is not None:
            out["called"] = card_str(d.called)
    return out


def summarize(deal: Deal) -> DealSummary:
    assert deal.phase == DONE
    return DealSummary(
        deal.index,
        deal.dealer,
        deal.maker,
        deal.high,
        deal.trump,
        deal.points or (0, 0),
        bool(deal.made),
        deal.scores_after,  # type: ignore[arg-type]
        deal.redeal,
        deal.in_dark,
        None if deal.profile.sides == "pairs" else deal.side_of,
        deal.called,
    )


def deal_view(deal: Deal, seat: int, previous: tuple[DealSummary, ...] = (), memo: ViewMemo | None = None) -> View:
    """What ``seat`` may know of ``deal``; ``memo``: a game's memo, whose finished tricks it shares."""
    rob_stock: tuple[Card, ...] | None = None
    rob_taken: tuple[Card, ...] | None = None
    if seat == deal.dealer:
        if deal.phase == ROB:  # the dealer looks through the stock to decide
            rob_stock, rob_taken = deal.rob_pool(), ()
        elif deal.phase in (PLAY, DONE):
            rob_stock, rob_taken = deal.rob_stock, deal.rob_taken
    bidding_over = deal.phase not in (BID, DARK)
    done = deal.phase == DONE
    sides, partner = _known_sides(deal, seat)
    return View(
        seat=seat,
        partner=partner,
        dealer=deal.dealer,
        deal_index=deal.index,
        phase=deal.phase,
        scores=deal.scores_before,
        hand=tuple(deal.hands[seat]),
        dealt=deal.dealt[seat],
        discarded=tuple(deal.discarded[seat]),
        received=tuple(deal.received[seat]),
        bids=tuple(deal.bids),
        maker=deal.maker if bidding_over else None,
        bid=deal.high if bidding_over else None,
        trump=deal.trump,
        discard_counts=tuple(map(len, deal.discarded)),
        receive_counts=tuple(map(len, deal.received)),
        reshuffles=deal.reshuffles,
        rob_stock=rob_stock,
        rob_taken=rob_taken,
        tricks=(tuple(TrickView(t.leader, tuple(t.plays), t.winner) for t in deal.tricks) if memo is None
                else memo.tricks(deal)),
        previous=previous,
        points=deal.points if done else None,
        scores_after=deal.scores_after if done else None,
        shown=tuple(tuple(c) for c in deal.shown) if deal.profile.may_lose_points else None,
        bid_suits=tuple(deal.bid_suits) if deal.profile.bid_suits else None,
        dark=tuple(deal.dark) if deal.profile.dark_bid is not None else None,
        players=deal.n,
        sides=sides,
        called=deal.called,
        alone=deal.alone,
    )


def _known_sides(deal: Deal, seat: int) -> tuple[tuple[int | None, ...] | None, int | None]:
    """The sides as ``seat`` knows them, and its partner (None: it has none, or does not know it).

    A called partner is known to its holder from the call (it holds the card),
    to everyone once the card is played to the first trick (or the deal is
    over); until then the others know only the maker's side: None for
    every seat but the maker and itself (docs/protocol.md, "A called partner")."""
    p = deal.profile
    if p.sides == "pairs":
        return None, (seat + 2) % 4
    if p.sides == "each":
        return tuple(range(deal.n)), None
    maker = deal.maker
    if deal.called is None and not deal.alone:  # before the call: no sides yet
        return tuple(None for _ in range(deal.n)), None
    assert maker is not None
    if deal.revealed or deal.phase == DONE or seat == deal.partner:
        sides = deal.side_of
        mate = deal.partner if seat == maker else maker if seat == deal.partner else None
        if sides[seat] == 1:  # a defender's partners are the other defenders: no single partner
            mate = None
        return tuple(sides), mate
    # a seat that does not hold the called card knows it is not the partner: its own side is known
    return tuple(0 if s == maker else 1 if s == seat else None for s in range(deal.n)), None
