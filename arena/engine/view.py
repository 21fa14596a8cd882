"""What one seat may know (docs/rules.md section 9), and nothing more.

A view is built from the deal on demand, only from fields the seat has
seen: its own cards, public counts, the bidding, played cards, and (for the
dealer) the stock it robbed. The information-hiding property test checks
every card a view names against what the seat could have seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, cast

from .cards import CARD_NAMES, SUITS, Card, card_str, cards_str
from .deal import BID, DARK, DONE, PLAY, ROB, Deal, Trick
from .forms import BidForm, PlayForm, SummaryForm, TrickForm, ViewForm
from .jsontext import dumps, loads


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

    def to_dict(self) -> dict[str, Any]:
        """JSON form with cards as text, as sent to bots (``ViewMemo.view_dict`` builds the same
        dict straight from the deal, for the requests of a game in play)."""
        d: ViewForm = {
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
                [_bid_dict(b, False) for b in self.bids] if self.bid_suits is None
                else [_bid_dict(b, u) for b, u in zip(self.bids, self.bid_suits)]
            ),
            "maker": self.maker,
            "bid": self.bid,
            "trump": None if self.trump is None else SUITS[self.trump],
            "discard_counts": list(self.discard_counts),
            "receive_counts": list(self.receive_counts),
            "reshuffles": self.reshuffles,
            "rob_stock": None if self.rob_stock is None else cards_str(self.rob_stock),
            "rob_taken": None if self.rob_taken is None else cards_str(self.rob_taken),
            "tricks": [trick_dict(t) for t in self.tricks],
            "previous": [summary_form(p) for p in self.previous],
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
        return cast("dict[str, Any]", d)  # (typed while it is built; the site reads it as a JSON object)


def trick_dict(t: TrickView) -> TrickForm:
    return {"leader": t.leader, "plays": [_play_form(s, c, u) for s, c, u in t.plays], "winner": t.winner}


def _play_form(seat: int, card: Card, under: tuple[Card, ...]) -> PlayForm:
    """One card of a trick (with the cards put under it, where any)."""
    if under:
        return {"seat": seat, "card": card_str(card), "under": cards_str(under)}
    return {"seat": seat, "card": card_str(card)}


def _bid_dict(bid: tuple[int, int, bool], suit: int | None | bool) -> BidForm:
    """One bid event in wire form; ``suit``: False where bids name none, else the suit or None (a pass)."""
    s, a, f = bid
    if suit is False or suit is None:
        return {"seat": s, "amount": a, "forced": f}
    return {"seat": s, "amount": a, "forced": f, "suit": SUITS[suit]}


#: Each card's name as a JSON string: a list of cards is these joined (``_trick_text``, a hand).
_CARD_TEXT = tuple(dumps(name) for name in CARD_NAMES).__getitem__


def _trick_text(t: Trick) -> bytes:
    """``dumps(trick_dict(...))`` of the engine's trick as it stands, written straight from the trick."""
    plays = b",".join([b'{"seat":%d,"card":%b}' % (s, _CARD_TEXT(c)) if not u else
                       b'{"seat":%d,"card":%b,"under":[%b]}' % (s, _CARD_TEXT(c), b",".join(map(_CARD_TEXT, u)))
                       for s, c, u in t.plays])
    return b'{"leader":%d,"plays":[%b],"winner":%b}' % (t.leader, plays, b"null" if t.winner is None else b"%d" % t.winner)


class _DealForms:
    """One deal's parts as text, each made once: its finished tricks and bids so far (public, the same
    for every seat; the engine only appends to both), each seat's dealt hand (a tuple the deal
    replaces whole), and each seat's last view text with the key of what it was made from."""

    __slots__ = ("tricks", "trick_text", "played", "bids", "dealt", "texts", "head", "public")

    def __init__(self) -> None:
        self.tricks = 0  # finished tricks encoded into trick_text
        self.trick_text = b""  # the finished tricks encoded, comma-separated
        self.played = 0  # cards played to the finished tricks (each one event of the deal)
        self.bids: list[bytes] = []  # each bid event encoded (``_bid_dict``)
        self.dealt: dict[int, tuple[tuple[Card, ...], bytes]] = {}
        #: seat -> (key, that view's text cut around what card play changes, the names of those parts)
        self.texts: dict[int, tuple[tuple[str, int], tuple[bytes, ...], tuple[str, ...]]] = {}
        #: the deal's own fields of a view ("dealer" to "scores"), the same for every seat and key but the phase
        self.head: dict[str, bytes] = {}
        #: (key, "bids" to "reshuffles" of a view under that key): public, made once for every seat
        self.public: tuple[tuple[str, int] | None, bytes] = (None, b"")


class ViewMemo:
    """A game's views in wire form, each request built at the cost of what changed (``Game`` keeps one).

    ``view_bytes`` writes the text of ``deal_view(...).to_dict()`` straight
    from the deal (no ``View`` or dict in between), taking from here what no
    later action changed, encoded once: a finished deal's summary, a deal's
    finished tricks and bids (public: the same for every seat), a seat's
    dealt hand, and the rest of the seat's last view while only cards were
    played since. ``view_dict`` is that text read back: a new dict on every
    call (a player adds to it, an in-process bot may change it, a fault keeps it).
    """

    __slots__ = ("summaries", "summary_texts", "_deals")

    def __init__(self) -> None:
        self.summaries: list[DealSummary] = []
        self.summary_texts: list[bytes] = []  # each summary's ``summary_form`` encoded
        #: deal index -> its parts in wire form (the last two deals only: no view of older ones is asked again)
        self._deals: dict[int, _DealForms] = {}

    def previous(self, deals: Sequence[Deal], index: int) -> tuple[DealSummary, ...]:
        """The summaries of the deals before ``index`` (all finished), made once each."""
        while len(self.summaries) < index:
            done = summarize(deals[len(self.summaries)])
            self.summaries.append(done)
            self.summary_texts.append(dumps(summary_form(done)))
        return tuple(self.summaries[:index])

    def _forms(self, index: int) -> _DealForms:
        forms = self._deals.get(index)
        if forms is None:
            for old in [i for i in self._deals if i < index - 1]:
                del self._deals[old]
            forms = self._deals[index] = _DealForms()
        return forms

    def view_dict(self, deals: Sequence[Deal], index: int, seat: int) -> ViewForm:
        """``deal_view(deals[index], seat, previous).to_dict()``: ``view_bytes`` read back (a new dict each call)."""
        return cast(ViewForm, loads(self.view_bytes(deals, index, seat)))

    def view_bytes(self, deals: Sequence[Deal], index: int, seat: int) -> bytes:
        """``dumps(deal_view(deals[index], seat, previous).to_dict())``, the same bytes, from what changed.

        Card play changes a view's hand, tricks, the cards laid face up and
        (a called partner revealed) its sides and partner, nothing else:
        every other change of a deal comes with an event that is not a card
        (a bid, a discard, a reshuffle, a registered kind's answer ...) or a
        new phase. So the rest of a seat's last view is kept as text, cut
        around those parts, under the key (phase, events that are not cards),
        and taken again while that key holds; each request encodes only the
        moving parts, the finished tricks of the deal encoded once each
        (tests/engine/test_view_memo.py holds every profile's text to the
        view built from scratch and encoded).
        """
        deal, forms, open_tricks, key = self._catch_up(deals, index)
        text = forms.texts.get(seat)
        if text is None or text[0] != key:
            text = forms.texts[seat] = (key, *self._settled(deal, forms, seat, index, key))
        cuts, names = text[1], text[2]
        done = forms.trick_text
        if open_tricks:
            now = _trick_text(open_tricks[0]) if len(open_tricks) == 1 else b",".join(map(_trick_text, open_tricks))
            done = done + b"," + now if done else now
        hand = b",".join(map(_CARD_TEXT, deal.hands[seat]))
        if names is _HAND_TRICKS:  # fixed sides, no cards shown: most profiles
            return b"%b[%b]%b[%b]%b" % (cuts[0], hand, cuts[1], done, cuts[2])
        sides, partner = _known_sides(deal, seat)
        out = [cuts[0]]
        for name, cut in zip(names, cuts[1:]):
            if name == "tricks":
                out.append(b"[" + done + b"]")
            elif name == "hand":
                out.append(b"[" + hand + b"]")
            elif name == "partner":
                out.append(b"null" if partner is None else b"%d" % partner)
            elif name == "sides":
                out.append(b"null" if sides is None else dumps(list(sides)))
            else:  # shown
                out.append(dumps([cards_str(c) for c in deal.shown]))
            out.append(cut)
        return b"".join(out)

    def _catch_up(self, deals: Sequence[Deal], index: int) -> tuple[Deal, _DealForms, list[Trick], tuple[str, int]]:
        """The deal, its forms with every finished trick encoded, its open tricks, and the key of what
        a seat's kept view was made from: (phase, events that are not cards)."""
        if len(self.summaries) < index:
            self.previous(deals, index)
        deal = deals[index]
        forms = self._deals.get(index) or self._forms(index)
        tricks = deal.tricks
        while forms.tricks < len(tricks) and tricks[forms.tricks].winner is not None:
            t = tricks[forms.tricks]
            form = _trick_text(t)
            forms.trick_text = forms.trick_text + b"," + form if forms.trick_text else form
            forms.played += len(t.plays)
            forms.tricks += 1
        open_tricks = tricks[forms.tricks:]
        played = forms.played
        for t in open_tricks:  # (one at most in most profiles)
            played += len(t.plays)
        return deal, forms, open_tricks, (deal.phase, len(deal.events) - played)

    def _settled(self, deal: Deal, forms: _DealForms, seat: int, index: int,
                 key: tuple[str, int]) -> tuple[tuple[bytes, ...], tuple[str, ...]]:
        """The seat's view text with what card play leaves as it is, in the wire's key order, cut
        around the parts that card play changes; and those parts' names, in order."""
        profile = deal.profile
        phase = deal.phase
        rob_stock = rob_taken = b"null"
        if seat == deal.dealer:
            if phase == ROB:  # the dealer looks through the stock to decide
                rob_stock, rob_taken = cards_json(deal.rob_pool()), b"[]"
            elif phase == PLAY or phase == DONE:
                rob_stock, rob_taken = cards_json(deal.rob_stock), cards_json(deal.rob_taken)
        bidding_over = phase != BID and phase != DARK
        done = phase == DONE
        dealt_src = deal.dealt[seat]
        dealt = forms.dealt.get(seat)
        if dealt is None or dealt[0] is not dealt_src:
            dealt = forms.dealt[seat] = (dealt_src, cards_json(dealt_src))
        head = forms.head
        if not head:  # the deal's own fields, the same for every seat
            head["deal"] = b',"dealer":%d,"deal_index":%d,"phase":' % (deal.dealer, deal.index)
            head["scores"] = b',"scores":%b,"hand":' % dumps(list(deal.scores_before))
            head["previous"] = b',"previous":[%b]' % b",".join(self.summary_texts[:index])
        public = forms.public
        if public[0] != key:  # what every seat sees alike, made once for all four under this key
            public = forms.public = (key, self._public(deal, forms, bidding_over))
        sides_rule = profile.sides
        fixed_sides = sides_rule == "pairs" or sides_rule == "each"
        names: list[str] = []
        cuts: list[bytes] = []
        if fixed_sides:
            partner = (seat + 2) % 4 if sides_rule == "pairs" else None
            text = b'{"seat":%d,"partner":%b' % (seat, _int_text(partner))
        else:
            cuts.append(b'{"seat":%d,"partner":' % seat)
            names.append("partner")
            text = b""
        cuts.append(text + head["deal"] + _phase_text(phase) + head["scores"])
        names.append("hand")
        cuts.append(b',"dealt":%b,"discarded":%b,"received":%b%b,"rob_stock":%b,"rob_taken":%b,"tricks":' % (
            dealt[1], cards_json(deal.discarded[seat]), cards_json(deal.received[seat]), public[1], rob_stock, rob_taken))
        names.append("tricks")
        points = deal.points if done else None
        after = deal.scores_after if done else None
        text = head["previous"] + b',"points":%b,"scores_after":%b' % (
            b"null" if points is None else dumps(list(points)),
            b"null" if after is None else dumps(list(after)))
        if profile.may_lose_points:
            cuts.append(text + b',"shown":')
            names.append("shown")
            text = b""
        if profile.dark_bid is not None:
            text += b',"dark":' + dumps([{"seat": s, "amount": a} for s, a in deal.dark])
        if sides_rule != "pairs":  # a table of other than fixed pairs
            text += b',"players":%d,"sides":' % deal.n
            if fixed_sides:
                text += dumps(list(range(deal.n)))
            else:
                cuts.append(text)
                names.append("sides")
                text = b""
            called = deal.called
            if called is not None or deal.alone:
                text += b',"called":%b,"alone":%b' % (b"null" if called is None else _CARD_TEXT(called),
                                                       b"true" if deal.alone else b"false")
        cuts.append(text + b"}")
        return tuple(cuts), _HAND_TRICKS if names == ["hand", "tricks"] else tuple(names)


    @staticmethod
    def _public(deal: Deal, forms: _DealForms, bidding_over: bool) -> bytes:
        """A view's public middle, "bids" to "reshuffles": the bids (each encoded once), the maker,
        the bid, the trump, the counts of cards discarded and received, the reshuffles."""
        bids, bid_texts = deal.bids, forms.bids
        n_bids = len(bids) if not deal.profile.bid_suits else min(len(bids), len(deal.bid_suits))  # (as View.to_dict zips)
        if len(bid_texts) < n_bids:
            suits: Sequence[int | None | bool] = deal.bid_suits if deal.profile.bid_suits else [False] * n_bids
            bid_texts.extend(dumps(_bid_dict(bids[i], suits[i])) for i in range(len(bid_texts), n_bids))
        maker, high = (deal.maker, deal.high) if bidding_over else (None, None)
        trump = deal.trump
        return b',"bids":[%b],"maker":%b,"bid":%b,"trump":%b,"discard_counts":%b,"receive_counts":%b,"reshuffles":%d' % (
            b",".join(bid_texts[:n_bids]), _int_text(maker), _int_text(high),
            b"null" if trump is None else _SUIT_TEXT[trump], dumps(list(map(len, deal.discarded))),
            dumps(list(map(len, deal.received))), deal.reshuffles)

#: The moving parts of a view where sides are fixed and no cards are shown (``view_bytes``'s short way).
_HAND_TRICKS = ("hand", "tricks")
_SUIT_TEXT = tuple(dumps(s) for s in SUITS)
_PHASES: dict[str, bytes] = {}


def _phase_text(phase: str) -> bytes:
    """A phase's name as JSON (each made once: a profile's own kinds add phases)."""
    text = _PHASES.get(phase)
    if text is None:
        text = _PHASES[phase] = dumps(phase)
    return text


def cards_json(cards: Sequence[Card]) -> bytes:
    """``dumps(cards_str(cards))``, from each card's text made once (views, and the requests' legal plays)."""
    return b"[" + b",".join(map(_CARD_TEXT, cards)) + b"]"


def _int_text(value: int | None) -> bytes:
    return b"null" if value is None else b"%d" % value


def summary_dict(d: DealSummary) -> dict[str, Any]:
    """``summary_form`` as the site's JSON object."""
    return cast("dict[str, Any]", summary_form(d))


def summary_form(d: DealSummary) -> SummaryForm:
    """A finished deal's public outcome in a view's ``previous``."""
    out: SummaryForm = {
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


def deal_view(deal: Deal, seat: int, previous: tuple[DealSummary, ...] = ()) -> View:
    """What ``seat`` may know of ``deal``."""
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
        tricks=tuple(TrickView(t.leader, tuple(t.plays), t.winner) for t in deal.tricks),
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
