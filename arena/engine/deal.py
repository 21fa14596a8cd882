"""One deal of Cinch as a state machine (docs/rules.md sections 3-7).

The deal asks for a decision only when a seat has a real choice: bids,
trump, the rob and card play. Every decision with exactly one legal option
is applied on the spot and marked ``forced`` (rules 4). Discarding and
filling involve no choice and happen when the trump is named.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from collections.abc import Sequence
from functools import lru_cache

from .actions import (
    PLAY_CARD,
    Action,
    Bid,
    BidChoice,
    Call,
    CallChoice,
    Choice,
    Discard,
    DiscardChoice,
    IllegalAction,
    NameTrump,
    Pass,
    Play,
    PlayChoice,
    Rob,
    RobChoice,
    SuitBidChoice,
    TakeWidow,
    TrumpChoice,
    WidowChoice,
)
from .cards import ALL_CARDS, Card, TrumpTable, trump_tables
from .chance import DeckSource, KeyedSource
from .profile import RuleProfile

DARK, BID, TRUMP, DISCARD, ROB, CALL, PLAY, DONE = "dark", "bid", "trump", "discard", "rob", "call", "play", "done"
WIDOW = "take_widow"  # a seat that has just bid or passed takes up its widow or leaves it (monterey-widow)


class Stage(Protocol):
    """A decision kind registered at run time that the deal asks itself (``kinds.DecisionKind``
    overriding ``asked_in``): where its profiles have it, it is asked before the deal's own next
    decision (any but a card after the first of the deal), as often as ``ask`` returns one."""

    name: str
    action_type: type | None

    def asked_in(self, profile: RuleProfile) -> bool:
        """Whether deals under ``profile`` ask this kind."""
        ...

    def ask(self, deal: "Deal") -> Choice | None:
        """The decision of this kind the deal asks now, before its own; None: none (now)."""
        ...

    def take(self, deal: "Deal", seat: int, action: Any, forced: bool) -> None:
        """Apply ``seat``'s legal answer to ``deal`` (its event is already in ``deal.events``)."""
        ...

    def most(self, profile: RuleProfile) -> int:
        """The most decisions of this kind (forced ones included) one deal under ``profile`` asks."""
        ...


#: The stages registered (``kinds.register_kind``); a deal keeps those its profile has.
STAGES: list[Stage] = []

@lru_cache(maxsize=1024)
def _suit_bids(lo: int, hi: int, above: int, order: str) -> tuple[Bid, ...]:
    """Bids naming a suit, ``lo..hi``, ranked above the key ``above`` (amount * 4
    + the suit's place in ``order`` counted from the lowest), lowest first."""
    out = []
    for amount in range(lo, hi + 1):
        for place, name in enumerate(reversed(order)):
            if amount * 4 + place > above:
                out.append(Bid(amount, "CDHS".index(name)))
    return tuple(out)


@lru_cache(maxsize=256)
def _amounts(lo: int, hi: int) -> tuple[int, ...]:
    """Bids ``lo..hi`` as a shared tuple (the same few ranges recur in every deal)."""
    return tuple(range(lo, hi + 1))


@lru_cache(maxsize=16)
def orders(n: int, right: bool = False) -> tuple[tuple[int, ...], ...]:
    """``orders(n)[dealer]``: the n seats from the dealer's left, clockwise, dealer last
    (``right``: from the dealer's right, anticlockwise, dealer last)."""
    if right:
        return tuple(tuple((d + n - 1 - i) % n for i in range(n)) for d in range(n))
    return tuple(tuple((d + 1 + i) % n for i in range(n)) for d in range(n))


_ORDERS = orders(4)
"""``_ORDERS[dealer]``: seats from the dealer's left, clockwise, dealer last."""
_RIGHT_ORDERS = orders(4, right=True)
"""``_RIGHT_ORDERS[dealer]``: seats from the dealer's right, anticlockwise, dealer last."""
_PAIRS = (0, 1, 0, 1)


def _lists(n: int) -> list[list[Card]]:
    """One empty list per seat (four written out: this runs several times a deal)."""
    return [[], [], [], []] if n == 4 else [[] for _ in range(n)]


def _strength_table(table: TrumpTable, led: int) -> tuple[int, ...]:
    """How strongly each card competes in a trick whose led suit is ``led``:
    trumps by power above everything, then the led suit by rank, else -1."""
    return tuple(
        100 + table.power[c] if table.power[c] >= 0 else (c % 13 if table.esuit[c] == led else -1)
        for c in range(ALL_CARDS)
    )


@lru_cache(maxsize=None)
def _strengths(off_jack: bool, joker: bool) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``_strengths(off_jack, joker)[trump][led][card]``, built once per trump rule."""
    tables = trump_tables(off_jack, joker)
    return tuple(tuple(_strength_table(tables[t], led) for led in range(4)) for t in range(4))


class Trick:
    """Cards played to one trick: ``plays`` holds (seat, top card, under cards).

    ``led`` is the suit the first card counts as (-1 before it is played);
    ``best``/``best_seat`` track the winning card so far, so finishing a
    trick costs nothing extra.
    """

    __slots__ = ("leader", "plays", "winner", "led", "best", "best_seat")

    def __init__(self, leader: int) -> None:
        self.leader = leader
        self.plays: list[tuple[int, Card, tuple[Card, ...]]] = []
        self.winner: int | None = None
        self.led = -1
        self.best = -1
        self.best_seat = -1


class Deal:
    """All state of one deal. Read its attributes; change it only via ``apply``.

    The phase says which decision comes next (``_make_choice``); an action is
    applied by its type (``_do`` matches on the action classes), and card play
    goes to the trick rules picked once from the profile (``_tricks``): the
    follow loop (``_play_from``, the hot path) or the loop of the plays in
    which seats sit out (``_play_trumps``).
    """

    # Slots: attribute access is most of the engine's hot path.
    __slots__ = (
        "profile", "index", "dealer", "scores_before", "_source", "deck", "origin", "reshuffle_key", "events", "_order",
        "hands", "dealt", "stock", "pile", "reshuffles", "bids", "high", "maker", "trump", "table",
        "discarded", "received", "rob_stock", "rob_taken", "blind", "tricks", "low_holder", "points",
        "made", "scores_after", "phase", "to_act", "_choice", "_pointless", "_card_points", "_esuit",
        "_strength", "redeal", "shown", "out", "lost", "_bid_order", "_bid_pos", "_passed", "_queue", "_in_trick",
        "bid_suits", "_high_key", "kitty", "widows", "dark", "in_dark", "_tricks", "_is_trump", "_power",
        "n", "side_of", "called", "partner", "alone", "_must", "widows_dealt", "left_widows", "_stages", "_held",
    )

    def __init__(
        self,
        profile: RuleProfile,
        index: int,
        dealer: int,
        scores_before: Sequence[int],
        source: DeckSource,
    ) -> None:
        self.profile = profile
        self.index = index
        self.dealer = dealer
        n = self.n = profile.players
        self.scores_before = tuple(scores_before)
        if len(self.scores_before) != profile.score_slots:
            raise ValueError(f"{len(self.scores_before)} scores before the deal; {profile.name} keeps {profile.score_slots}")
        # the side of each seat (points are counted per side): fixed pairs, each seat for itself,
        # or, with a called partner, none until the call (then the maker's side is 0, the rest 1)
        sides = profile.sides
        self.side_of: tuple[int, ...] = _PAIRS if sides == "pairs" else tuple(range(n)) if sides == "each" else ()
        self.called: int | None = None  # the card the maker called (sides "called"), once called
        self.partner: int | None = None  # its holder: hidden from the other seats until it is played
        self.alone = False  # the maker called no card (railroad's going alone)
        self._must = -1  # the seat that must play the called card in the first trick
        self._source = source
        nc = profile.shuffled_cards  # 52, or 53 with the joker
        deck = source.deck(index, nc)
        short = profile.short_deck
        if short is not None:  # a short deck: the shuffled deck without the missing ranks, order kept
            deck = [c for c in deck if c in short]
            if len(deck) != len(short) or set(deck) != short:
                raise ValueError(f"deck of deal {index} is not a permutation of the profile's {len(short)} cards")
        elif type(source) is not KeyedSource and (len(deck) != nc or set(deck) != profile.deck_cards):
            # (a keyed deck is a shuffle of the profile's cards by construction: only other sources are checked)
            raise ValueError(f"deck of deal {index} is not a permutation of the profile's {nc} cards"
                             + (" (the 52 and the joker JK)" if profile.joker else ""))
        self.deck: tuple[Card, ...] = tuple(deck)
        self.origin = source.origin(index)
        self.reshuffle_key = source.reshuffle_key(index)
        # ``events`` is the replayable log: ("act", seat, action, forced) and
        # ("reshuffle", j, new stock order, "fill" or "rob").
        self.events: list[tuple[Any, ...]] = []
        self._order = _ORDERS[dealer] if n == 4 else orders(n)[dealer]
        self.widows: list[list[Card]] = []  # face-down cards each seat takes after bidding (per seat, where dealt)
        self.widows_dealt: tuple[tuple[Card, ...], ...] = ()  # the widows as dealt (taken up or left)
        self.left_widows: list[int] = []  # seats that left their widow (face down until the bidding is over)
        self.dark: list[tuple[int, int]] = []  # (seat, 0 or the dark bid), before the deal
        self.in_dark = False  # the maker bid in the dark
        self.hands: list[list[Card]]  # (set when the cards are dealt)
        self.dealt: tuple[tuple[Card, ...], ...] = ((),) * n
        self.kitty: tuple[Card, ...] = ()
        self.stock: list[Card] = []
        if profile.dark_bid is None:
            self._deal_cards()
        else:  # nothing is dealt until every seat has had its chance to bid in the dark
            self.hands = _lists(n)
            self.stock = list(self.deck)
        self.pile: list[Card] = []
        self.reshuffles = 0
        self.bids: list[tuple[int, int, bool]] = []  # (seat, amount or 0 for pass, forced)
        self._bid_order = self._order if profile.bid_start == "left" else orders(n, True)[dealer]
        self._bid_pos = 0
        self._passed: list[int] = []  # seats that passed (final with auction "until_three_pass")
        self._queue: list[int] = []  # seats still to discard, in order
        self.redeal = False  # every seat passed and the profile redeals
        # cards each seat laid face up (public); shared empty tuples where the profile shows none
        self.shown: list[list[Card]] = _lists(n)  # (filled only where the profile may_lose_points)
        self.out: list[tuple[int, Card]] = []  # (laid away by seat or -1, card) at play
        self.lost = 0  # points that count for nobody (cards out of play)
        self._in_trick: tuple[int, ...] = ()  # play other than "follow": the seats in the current trick, in order
        self.bid_suits: list[int | None] = []  # the suit of each bid event, where bids name one
        # the trick rules, picked once from the profile: the follow loop, or the loop of the other plays
        self._tricks: Callable[[Deal, int, Play | None, bool], None] = (
            Deal._play_from if profile.play == "follow" else Deal._play_trumps)
        self._is_trump: tuple[bool, ...] = ()  # once the trump is named: the trump table's columns
        self._power: tuple[int, ...] = ()
        self._high_key = -1  # with bid_suits: amount * 4 + suit place of the highest bid
        self.high = 0
        self.maker: int | None = None
        self.trump: int | None = None
        self.table: TrumpTable | None = None
        self.discarded: list[list[Card]] = _lists(n)
        self.received: list[list[Card]] = _lists(n)
        self.rob_stock: tuple[Card, ...] = ()
        self.rob_taken: tuple[Card, ...] = ()
        self.blind: tuple[Card, ...] = ()
        self.tricks: list[Trick] = []
        self.low_holder: int | None = None
        self.points: tuple[int, ...] | None = None  # per side (side_of)
        self.made: bool | None = None
        self.scores_after: tuple[int, ...] | None = None
        self.phase = BID if profile.dark_bid is None else DARK
        self.to_act: int = self._bid_order[0]
        self._choice: Choice | None = None
        self._pointless: frozenset[Card] = frozenset()
        self._card_points: tuple[int, ...] = ()
        self._esuit: tuple[int, ...] = ()
        self._strength: tuple[tuple[int, ...], ...] = ()
        # decision kinds registered at run time that this profile's deals ask (none for the engine's profiles)
        self._stages: tuple[Stage, ...] = tuple(s for s in STAGES if s.asked_in(profile)) if STAGES else ()
        self._held = -1  # the seat the deal's own next decision is for, while a stage's seat is on move
        self._advance()

    def _deal_cards(self) -> None:
        """Deal the hands (rules 3), then any widows and the kitty; the rest is the stock."""
        deck = self.deck
        profile = self.profile
        order = self._order
        n = self.n
        hands: list[list[Card]] = _lists(n)
        packets = profile.packets
        if packets == (3, 3, 3):
            r2, r3 = 3 * n, 6 * n
            for i, s in enumerate(order):  # three rounds of 3-card packets (rules 3)
                p = 3 * i
                hands[s] = [*deck[p : p + 3], *deck[p + r2 : p + r2 + 3], *deck[p + r3 : p + r3 + 3]]
            p = 9 * n
        else:  # rounds of the profile's packets, each from the dealer's left
            p = 0
            for size in packets:
                for s in order:
                    hands[s].extend(deck[p : p + size])
                    p += size
        w = profile.widow
        if w:  # one face-down packet before each seat, from the dealer's left (rules 12.14)
            self.widows = _lists(n)
            for s in order:
                self.widows[s] = list(deck[p : p + w])
                p += w
            self.widows_dealt = tuple(map(tuple, self.widows))
        self.kitty = tuple(deck[p : p + profile.kitty])
        self.hands = hands
        self.dealt = tuple(map(tuple, hands))
        self.stock = list(deck[p + profile.kitty :])

    # -- public interface ------------------------------------------------
    @property
    def done(self) -> bool:
        return self.phase == DONE

    @property
    def choice(self) -> Choice:
        """The pending decision; only valid while the deal is not done."""
        if self._choice is None:
            raise RuntimeError("the deal is over: there is no decision to make")
        return self._choice

    def apply(self, action: Action) -> None:
        """Apply the acting seat's action, or raise IllegalAction unchanged."""
        choice = self._choice
        if choice is None:
            raise RuntimeError("the deal is over: there is no decision to make")
        try:
            legal = choice.is_legal(action)
        except Exception:  # noqa: BLE001 - an action the checks cannot even read is refused, never applied
            legal = False
        if not legal:
            raise IllegalAction(action, choice)
        seat = choice.seat
        if type(action) is Play:  # (only a play's choice takes a play)
            self._tricks(self, seat, action, False)
            return
        self.events.append(("act", seat, action, False))
        self._do(seat, action, False)
        self._advance()

    def rob_pool(self) -> tuple[Card, ...]:
        """The cards the dealer looks through while robbing (rules 5.4; ru51: the discards too)."""
        if self.profile.rob_from == "stock_and_discards":
            return tuple(self.stock) + tuple(self.pile)
        return tuple(self.stock)

    @property
    def bidders(self) -> int | None:
        """The maker's side (with a called partner, side 0 once the partner is called)."""
        if self.maker is None:
            return None
        return self.side_of[self.maker] if self.side_of else 0

    @property
    def revealed(self) -> bool:
        """Whether the called partner is public: its card is played (or the maker went alone)."""
        if self.alone:
            return True
        called = self.called
        return called is not None and any(c == called for t in self.tricks[:1] for _, c, _ in t.plays)

    # -- the machine -----------------------------------------------------
    def _advance(self) -> None:
        """Find the next real decision, applying forced ones on the way."""
        while True:
            phase = self.phase
            if self._stages and phase is not DONE:
                staged = self._staged()
                if staged is not None:
                    only = staged.only()
                    if only is None:
                        self._choice = staged
                        return
                    self.events.append(("act", staged.seat, only, True))
                    self._do(staged.seat, only, True)
                    continue
            if phase is PLAY:
                self._tricks(self, self.to_act, None, False)
                return
            if phase is DONE:
                self._choice = None
                return
            choice = self._make_choice()
            only = choice.only()
            if only is None:
                self._choice = choice
                return
            self.events.append(("act", choice.seat, only, True))
            self._do(choice.seat, only, True)

    def _staged(self) -> Choice | None:
        """A stage's decision to ask before the deal's own (its seat on move), else None (the deal's
        own seat back on move)."""
        for stage in self._stages:
            choice = stage.ask(self)
            if choice is not None:
                if self._held < 0:
                    self._held = self.to_act
                self.to_act = choice.seat
                return choice
        if self._held >= 0:
            self.to_act, self._held = self._held, -1
        return None

    def _make_choice(self) -> Choice:
        phase = self.phase
        if phase == DARK:  # before the deal: the deal's whole total, blind, or pass
            total = self.profile.deal_points
            return BidChoice(self.to_act, _amounts(total, total), can_pass=True)
        if phase == BID:
            p = self.profile
            seat = self.to_act
            if p.bid_suits:
                lo = p.min_bid
                last = self.high == 0 and len(self._passed) == self.n - 1  # the dealer after three passes
                if last and p.dealer_low_bid is not None:
                    lo = p.dealer_low_bid  # (oregon's 5)
                forced = p.dealer_forced_bid
                must = last and forced is not None
                if last and forced is not None:
                    lo = forced
                return SuitBidChoice(seat, _suit_bids(lo, p.max_bid, self._high_key, p.suit_order), not must)
            if self.high == 0 and len(self._passed) == self.n - 1 and p.dealer_forced_bid is not None:
                # the last seat to speak, after three passes (the dealer): must bid
                forced = p.dealer_forced_bid
                return BidChoice(seat, _amounts(forced, p.max_bid) if p.forced_bid_any else (forced,), can_pass=False)
            lo = max(self.high + 1, p.min_bid)
            return BidChoice(seat, _amounts(lo, p.max_bid), can_pass=True)
        if phase == TRUMP:
            return TrumpChoice(self.to_act)
        if phase == DISCARD:
            return self._discard_choice()
        if phase == CALL:
            return self._call_choice()
        if phase == WIDOW:
            return WidowChoice(self.to_act)
        return self._rob_choice()

    def _do(self, seat: int, action: Action, forced: bool) -> None:
        """Apply a bid, trump, discard or rob, by the action's type (card play goes
        to the trick rules). The choice has checked the action: its type is the
        one the phase takes (a bid or a pass before the deal is one in the dark)."""
        match action:
            case Bid(amount=amount, suit=suit):
                if self.phase is DARK:
                    self._bid_dark(seat, amount)
                    return
                self.bids.append((seat, amount, forced))
                self.high = amount
                self.maker = seat
                if suit is not None:
                    self.bid_suits.append(suit)
                    self._high_key = amount * 4 + self.profile.suit_order[::-1].index("CDHS"[suit])
                self._spoken(seat)
            case Pass():
                if self.phase is DARK:
                    self._bid_dark(seat, 0)
                    return
                self.bids.append((seat, 0, forced))
                self._passed.append(seat)
                if self.profile.bid_suits:
                    self.bid_suits.append(None)
                self._spoken(seat)
            case NameTrump(suit=suit):
                self._name_trump(suit)
            case Discard(cards=cards):
                self._discard(seat, cards)
            case Rob(take=take):
                self._rob(take)
            case Call(card=card):
                self._call(card)
            case TakeWidow(take=take):
                self._take_widow(seat, take)
            case _:
                for stage in self._stages:  # a kind registered at run time applies its own answer
                    if type(action) is stage.action_type:
                        stage.take(self, seat, action, forced)
                        return
                raise RuntimeError(f"internal: {action!r} reached the deal in phase {self.phase}")

    def _spoken(self, seat: int) -> None:
        """A seat has bid or passed: it decides on its widow, if it has one still face down
        and has not left it; else the auction goes on."""
        if self.widows and self.widows[seat] and seat not in self.left_widows:
            self.phase = WIDOW
            self.to_act = seat
            return
        self._next_bidder()

    def _take_widow(self, seat: int, take: bool) -> None:
        """The seat takes its widow into its hand, or leaves it face down until the bidding is
        over (then it is turned face up, out of play: rules 12.14); the auction goes on."""
        if take:
            got = self.widows[seat]
            self.widows[seat] = []
            self.hands[seat].extend(got)
            self.received[seat].extend(got)
        else:
            self.left_widows.append(seat)
        self.phase = BID
        self._next_bidder()

    def _bid_dark(self, seat: int, amount: int) -> None:
        """One seat's turn before the deal: a bid in the dark makes it the maker
        at the deal's whole total and ends the bidding; after four passes the
        cards are dealt and the auction starts as usual (rules 12.6)."""
        self.dark.append((seat, amount))
        if not amount and len(self.dark) < 4:
            self.to_act = self._bid_order[len(self.dark)]
            return
        self._deal_cards()
        if amount:
            self.in_dark = True
            self.high = amount
            self.maker = seat
            self.phase = TRUMP
            self.to_act = seat
        else:
            self.phase = BID
            self.to_act = self._bid_order[0]

    def _next_bidder(self) -> None:
        """Whose turn in the auction, or its end: naming trump, or a redeal."""
        order = self._bid_order
        passed = self._passed
        if self.profile.auction == "once_around":
            pos = self._bid_pos = self._bid_pos + 1
            if pos < self.n:  # the common case, first
                self.to_act = order[pos]
                return
            over = True
        elif self.profile.auction == "open":  # rounds with re-entry, until three passes in a row follow a bid
            bids = self.bids
            over = (self.high == 0 and len(bids) == 4) or (
                self.high > 0 and len(bids) >= 3 and not any(a for _, a, _ in bids[-3:])
            )
            self._bid_pos = (self._bid_pos + 1) % 4
        else:  # rounds, skipping seats that passed, until three have passed
            over = len(passed) == 4 or (len(passed) == 3 and self.high > 0)
            pos = self._bid_pos
            while not over:
                pos = (pos + 1) % 4
                if order[pos] not in passed:
                    break
            self._bid_pos = pos
        if not over:
            self.to_act = order[self._bid_pos]
            return
        for s in self.left_widows:  # the bidding is over: a widow left is turned face up, out of play
            self.shown[s].extend(self.widows[s])
            self.widows[s] = []
        if self.maker is None:  # everybody passed: the deal is void (rules 11)
            self.redeal = True
            self.scores_after = self.scores_before
            self.phase = DONE
            self.to_act = -1
        elif self.profile.bid_suits:  # the winning bid named the trump
            named = [x for x in self.bid_suits if x is not None]
            self._name_trump(named[-1])
        else:
            if self.profile.kitty_before_trump:  # five-hand: the maker sees the kitty before naming trump
                self.hands[self.maker].extend(self.kitty)
                self.received[self.maker].extend(self.kitty)
            self.phase = TRUMP
            self.to_act = self.maker

    def _draw_reshuffled(self, kind: str) -> None:
        """Turn the discard pile into the stock: during the fill (``kind``
        "fill", rules 5.3) or for the dealer's blind cards ("rob", 5.4)."""
        if not self.pile:
            raise RuntimeError("internal: the discard pile is empty but cards are needed")
        j = self.reshuffles
        new_stock = self._source.reshuffle(self.index, j, self.pile)
        if sorted(new_stock) != sorted(self.pile):
            raise ValueError(f"reshuffle {j} of deal {self.index} is not a permutation of the discard pile")
        self.events.append(("reshuffle", j, tuple(new_stock), kind))
        self.reshuffles = j + 1
        self.pile = []
        self.stock = list(new_stock)

    def _name_trump(self, suit: int) -> None:
        self.trump = suit
        table = self.table = self.profile.trump_table(suit)
        self._esuit = table.esuit
        self._is_trump = table.is_trump
        self._power = table.power
        self._strength = _strengths(self.profile.off_jack_trump, self.profile.joker)[suit]
        self._card_points = self.profile.point_table(suit)
        self._pointless = self.profile.pointless_trumps(suit)
        is_trump = table.is_trump
        p = self.profile
        if p.second_deal:  # sixty-three: more cards to every seat, from the dealer's left, one packet each
            n = p.second_deal
            for s in self._order:
                got = self.stock[:n]
                del self.stock[:n]
                self.hands[s].extend(got)
                self.received[s].extend(got)
        maker = self.maker
        assert maker is not None  # (the trump is named by the maker, or by its bid)
        if self.kitty and not p.kitty_before_trump:  # the maker takes the kitty, which only it ever sees (lipton, eighty-three)
            self.hands[maker].extend(self.kitty)
            self.received[maker].extend(self.kitty)
        if p.discard == "choose":  # each seat in turn, the dealer last (rules 12.1)
            self._queue = list(self._order)
        elif p.discard == "keep":  # nobody discards but the maker, as many as the kitty gave it (lipton)
            if self.kitty:
                self._queue = [maker]
        elif p.discard == "to_hand_size":  # keep every trump, choose the plain cards that make up the hand
            size = p.hand_size
            trump_at = is_trump.__getitem__  # (counted by map: C loops, not a generator per hand)
            for s in range(self.n):  # a hand of hand_size trumps or more puts every plain card down at once
                hand = self.hands[s]
                if sum(map(trump_at, hand)) >= size:
                    gone = [c for c in hand if not is_trump[c]]
                    self.hands[s] = [c for c in hand if is_trump[c]]
                    self.discarded[s].extend(gone)
                    self.pile.extend(gone)
            # extra trumps: discarded (a choice), or played under cards in tricks (then only plain cards are chosen)
            under = p.extra_trumps != "discard"
            self._queue = [s for s in self._order if len(self.hands[s]) > size
                           and not (under and all(map(trump_at, self.hands[s])))]
        else:
            for s in range(self.n):
                hand = self.hands[s]
                keep = [c for c in hand if is_trump[c]]
                gone = [c for c in hand if not is_trump[c]]
                self.hands[s] = keep
                self.discarded[s] = gone
                self.pile.extend(gone)
            if p.extra_trumps == "discard":
                self._queue = [s for s in self._order if len(self.hands[s]) > p.hand_size]
        if self._queue:
            self.phase = DISCARD
            self.to_act = self._queue[0]
        else:
            self._fill()

    def _discard_choice(self) -> DiscardChoice:
        seat = self.to_act
        hand = self.hands[seat]
        p = self.profile
        if p.discard == "choose":
            return DiscardChoice(seat, tuple(hand), max(p.min_discard, len(hand) - p.hand_size), len(hand))
        extra = len(hand) - p.hand_size
        if p.discard == "to_hand_size":
            is_trump = self._is_trump
            plain = tuple([c for c in hand if not is_trump[c]])
            if len(hand) - len(plain) < p.hand_size:  # fewer trumps than the hand: choose plain cards to put down
                return DiscardChoice(seat, plain, extra, extra)
        return DiscardChoice(seat, tuple(hand), extra, extra)

    def _discard(self, seat: int, cards: tuple[Card, ...]) -> None:
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
        self.discarded[seat].extend(cards)
        p = self.profile
        is_trump = self._is_trump
        if p.discard in ("choose", "keep") or (p.discard == "to_hand_size" and not is_trump[cards[0]]):
            self.pile.extend(cards)
            if p.discards_face_up:
                self.shown[seat].extend(cards)
        else:  # extra trumps: shown and put out of play, never back into a stock (rules 12.8)
            self.shown[seat].extend(cards)
        self._queue.pop(0)
        if self._queue:
            self.to_act = self._queue[0]
        else:
            self._fill()

    def _fill(self) -> None:
        """The dealer fills the other hands from the stock, then robs (rules 5).
        With widows nothing is filled: hands play as the discard left them."""
        if self.profile.widow:
            self._start_play()
            return
        size = self.profile.hand_size
        for s in self._order[:-1]:
            hand = self.hands[s]
            need = size - len(hand)
            while need > 0:
                if not self.stock:
                    self._draw_reshuffled("fill")
                got = self.stock[:need]
                del self.stock[:need]
                hand.extend(got)
                self.received[s].extend(got)
                need -= len(got)
        if self.profile.rob == "none":  # the stock was dealt out (sixty-three): nothing to rob
            self._start_play()
            return
        self.phase = ROB
        self.to_act = self.dealer

    def _rob_choice(self) -> RobChoice:
        p = self.profile
        if p.rob == "free":  # any cards of the pool; trumps left go out face up
            pool = self.rob_pool()
            short = max(0, p.hand_size - len(self.hands[self.dealer]))
            return RobChoice(self.dealer, pool, (), pool, min(short, len(pool)))
        is_trump = self._is_trump
        stock = tuple(self.stock)
        must = self._rob_must()
        short = max(0, p.hand_size - len(self.hands[self.dealer]))
        if p.rob != "take_trumps" and not must:  # choose: any cards it needs (california: or every trump)
            trumps = tuple(c for c in stock if is_trump[c])
            or_all = trumps if p.rob_all == "may" and len(trumps) > short else ()
            return RobChoice(self.dealer, stock, (), stock, min(short, len(stock)), or_all)
        cands = tuple(c for c in stock if not is_trump[c])
        count = min(max(0, short - len(must)), len(cands))
        return RobChoice(self.dealer, stock, must, cands, count)

    def _rob_must(self) -> tuple[Card, ...]:
        """The stock's trumps the dealer must take whatever it chooses: all of them (``take_trumps``; under
        ``choose`` with ``rob_all: must`` only when they are more than ``hand_size``, monterey-draw), else none."""
        p = self.profile
        trumps = tuple(c for c in self.stock if self._is_trump[c])
        if p.rob == "take_trumps" or (p.rob_all == "must" and len(trumps) > p.hand_size):
            return trumps
        return ()

    def _rob(self, take: tuple[Card, ...]) -> None:
        dealer = self.dealer
        p = self.profile
        is_trump = self._is_trump
        if p.rob == "free":
            from_pile = p.rob_from == "stock_and_discards"
            self.rob_stock = tuple(self.stock) + (tuple(self.pile) if from_pile else ())
            taken = tuple(take)
            self.stock = [c for c in self.stock if c not in taken]
            if from_pile:
                self.pile = [c for c in self.pile if c not in taken]
            left = [c for c in self.stock if is_trump[c]]
            if from_pile:
                left += [c for c in self.pile if is_trump[c]]
            if left:  # trumps the dealer leaves are laid face up, out of play
                self.shown[dealer].extend(left)
                self.stock = [c for c in self.stock if not is_trump[c]]
                self.pile = [c for c in self.pile if not is_trump[c]]
        else:  # the trumps it must take and the chosen cards (cards left stay face down)
            self.rob_stock = tuple(self.stock)
            taken = self._rob_must() + tuple(take)
            self.stock = [c for c in self.stock if c not in taken]
        self.rob_taken = taken
        hand = self.hands[dealer]
        hand.extend(taken)
        self.received[dealer].extend(taken)
        short = p.hand_size - len(hand)
        if short > 0:  # the whole stock was not enough: blind from the discards (rules 5.4)
            self.stock = []
            self._draw_reshuffled("rob")
            blind = tuple(self.stock[:short])
            del self.stock[:short]
            self.blind = blind
            hand.extend(blind)
            self.received[dealer].extend(blind)
        self._start_play()

    def _start_play(self) -> None:
        p = self.profile
        self.phase = PLAY
        trump, maker = self.trump, self.maker
        assert trump is not None and maker is not None
        low = p.low_card(trump)
        self.low_holder = next((s for s in range(self.n) if low in self.hands[s]), None)
        if p.may_lose_points:
            self._out_of_play()
        if p.call is not None:  # the maker calls its partner before it leads
            self.phase = CALL
            self.to_act = maker
            return
        self._first_trick()

    def _call_choice(self) -> CallChoice:
        """The cards the maker may call: any card, or any trump, it does not hold."""
        maker = self.to_act
        hand = self.hands[maker]
        pool = self.table.trumps if self.profile.call == "trump" and self.table is not None else self.profile.deck_cards
        return CallChoice(maker, tuple(sorted(pool.difference(hand))), self.profile.call_alone)

    def _call(self, card: Card | None) -> None:
        """The call: its card's holder (if anyone holds it) is the maker's partner, side 0
        with it; it must play that card to the first trick, which reveals it."""
        maker = self.maker
        assert maker is not None
        self.called = card
        self.alone = card is None
        partner = None if card is None else next((s for s in range(self.n) if card in self.hands[s]), None)
        self.partner = partner
        self.side_of = tuple(0 if s == maker or s == partner else 1 for s in range(self.n))
        self._must = -1 if partner is None else partner
        self.phase = PLAY
        self._first_trick()

    def _first_trick(self) -> None:
        """The maker leads to the first trick (rules 6)."""
        p = self.profile
        maker = self.maker
        assert maker is not None
        if p.play != "follow":
            self._next_trump_trick(maker)
            return
        self.tricks.append(Trick(maker))
        self.to_act = maker

    def _next_trump_trick(self, leader: int) -> None:
        """Play ``trumps_only`` (pidro): a seat out of trumps lays its hand face up
        and sits out; the next trick is led by ``leader``, or if it is out, by the
        next seat clockwise still holding a trump. No such seat: the deal is scored."""
        is_trump = self._is_trump
        active = []
        trumps_only = self.profile.play == "trumps_only"
        for s in range(4):
            hand = self.hands[s]
            if any(is_trump[c] for c in hand) or (hand and not trumps_only):
                active.append(s)
            elif hand:
                self.shown[s].extend(hand)
                self.hands[s] = []
        if not active:
            self._in_trick = (-1,)  # (still marks the play mode)
            self._score()
            self._choice = None
            return
        while leader not in active:
            leader = (leader + 1) % 4
        self._in_trick = tuple(s for s in _ORDERS[(leader + 3) % 4] if s in active)
        self.tricks.append(Trick(leader))
        self.to_act = leader

    def _play_trumps(self, seat: int, action: Play | None, forced: bool) -> None:
        """The trick-play loop of the plays other than ``follow``: a trick has a
        card from each seat still in it, the highest trump wins it, and a trick
        without a trump goes to its leader (oregon: plain cards have no rank).

        ``trumps_only``: every play is a trump. ``oregon``: a plain lead allows
        any card; a seat that cannot follow a trump lead throws its hand, face
        down, on the discard pile and sits out the rest of the deal.
        ``monterey``: as oregon, but a plain lead is followed as in rules 6
        (the suit or a trump, else any card) and the led suit ranks; with
        ``first_lead_trump`` the first lead is a trump when the maker has one."""
        power = self._power
        is_trump = self._is_trump
        esuit = self._esuit
        trump = self.trump
        hands = self.hands
        play = self.profile.play
        trumps_only = play == "trumps_only"
        ranked = play == "monterey"
        strength = self._strength
        while True:
            trick = self.tricks[-1]
            if action is not None:
                self.events.append(("act", seat, action, forced))
                card = action.card
                hand = hands[seat]
                hand.remove(card)
                for c in action.under:
                    hand.remove(c)
                trick.plays.append((seat, card, action.under))
                if trick.led < 0:
                    trick.led = esuit[card]
                value = strength[trick.led][card] if ranked else power[card]
                if value > trick.best:
                    trick.best = value
                    trick.best_seat = seat
            n = len(trick.plays)
            if n == len(self._in_trick):
                trick.winner = trick.best_seat if trick.best >= 0 else trick.leader
                self._next_trump_trick(trick.winner)
                if self.phase == DONE:
                    return
                seat = self.to_act
                trick = self.tricks[-1]
                n = 0
            else:
                seat = self.to_act = self._in_trick[n]
            hand = hands[seat]
            trumps = [c for c in hand if is_trump[c]]
            if trumps_only or trick.led == trump:
                legal = trumps
                if not legal:  # oregon: cannot follow a trump lead; the hand goes, the seat sits out
                    self.pile.extend(hand)
                    hands[seat] = []
                    self._in_trick = tuple(s for s in self._in_trick if s != seat)
                    action = None
                    continue
            elif trick.led < 0:  # leading
                first = self.profile.first_lead_trump and len(self.tricks) == 1
                legal = trumps if first and trumps else hand
            elif ranked and any(esuit[c] == trick.led for c in hand):  # follow the suit, or trump
                legal = [c for c in hand if esuit[c] == trick.led or is_trump[c]]
            else:
                legal = hand
            if len(hand) > self.profile.hand_size and len(self.tricks) == 1:
                self._choice = self._long_choice(seat, hand, legal)
                return
            if len(legal) > 1:
                self._choice = PlayChoice(seat, tuple(legal))
                return
            action = PLAY_CARD[legal[0]]
            forced = True

    def _out_of_play(self) -> None:
        """Every card in no hand when play begins, with the seat that laid it away
        (-1: never dealt to anyone), for the points of cards out of play."""
        held = set().union(*self.hands)
        by: dict[Card, int] = {}
        # the dealer last: a trump another seat discarded, brought back into the stock
        # by a reshuffle (5.3) and left there by the dealer's free rob, was laid away by
        # the dealer (12.1); every other card was laid away once
        for s in self._order:
            for c in self.discarded[s]:
                by[c] = s
            for c in self.shown[s]:
                by[c] = s
        self.out = [(by.get(c, -1), c) for c in self.deck if c not in held]

    def _long_choice(self, seat: int, hand: list[Card], legal: list[Card]) -> PlayChoice:
        """A hand of more cards than tricks left: a legal top plus pointless trumps under it. Its
        extras (cards beyond the tricks left) all go under its first card (rules 6.5), or one
        under each card until they are gone (``one_per_trick``, five-hand: rules 14.2); either
        way a top is legal only if enough pointless trumps are left for every extra.

        A profile with more than six point trumps (the off-jack) can deal a
        long hand too few pointless trumps for any top; then any of its
        trumps may go under (rules 6.5, [decision]).
        """
        extra = len(hand) - (self.profile.hand_size - len(self.tricks) + 1)
        n_under = 1 if self.profile.extra_trumps == "one_per_trick" else extra
        pointless = self._pointless
        pool = tuple(c for c in hand if c in pointless)
        tops = tuple(c for c in legal if len(pool) - (c in pointless) >= extra)
        if not tops:
            is_trump = self._is_trump
            pool = tuple(c for c in hand if is_trump[c])
            tops = tuple(c for c in legal if len(pool) - (c in pool) >= extra)
        return PlayChoice(seat, tops, n_under, pool)

    def _play_from(self, seat: int, action: Play | None, forced: bool) -> None:
        """Apply ``action`` (if any), then every forced card, up to the next real
        decision or the end of the deal.

        One loop for the whole trick-play phase: it runs for every card of
        every deal, so it keeps its state in locals and calls nothing per card.
        """
        events = self.events
        hands = self.hands
        tricks = self.tricks
        esuit = self._esuit
        strengths = self._strength
        trump = self.trump
        trick = tricks[-1]
        n_tricks = self.profile.hand_size  # one trick per card of a full hand (rules 6: six)
        n_seats = self.n
        must = self._must  # the seat that must play the called card (-1: none, or played)
        while True:
            if action is not None:
                events.append(("act", seat, action, forced))
                card = action.card
                under = action.under
                hand = hands[seat]
                hand.remove(card)
                if under:
                    for c in under:
                        hand.remove(c)
                plays = trick.plays
                plays.append((seat, card, under))
                led = trick.led
                if led < 0:
                    trick.led = led = esuit[card]
                # Trumps beat everything (by power); otherwise the highest card of the led suit.
                strength = strengths[led][card]
                if strength > trick.best:
                    trick.best = strength
                    trick.best_seat = seat
                if len(plays) < n_seats:
                    seat = (seat + 1) % n_seats
                else:
                    seat = trick.winner = trick.best_seat
                    if len(tricks) == n_tricks:
                        self._score()
                        self._choice = None
                        return
                    trick = Trick(seat)
                    tricks.append(trick)
                self.to_act = seat
            hand = hands[seat]
            if seat == must:  # the called card's holder plays it now, to the first trick
                must = self._must = -1
                action, forced = self._called_play(seat, hand)
                if action is None:
                    return
                continue
            led = trick.led
            legal = hand
            if led >= 0:
                if led == trump:
                    legal = [c for c in hand if esuit[c] == trump] or hand
                else:
                    for c in hand:
                        if esuit[c] == led:  # can follow: the suit or a trump
                            legal = [c for c in hand if esuit[c] == led or esuit[c] == trump]
                            break
            n = len(legal)
            if n > 1:
                if len(hand) > n_tricks - len(tricks) + 1:  # more cards than tricks left: extras go under
                    choice = self._long_choice(seat, hand, legal)
                    only = choice.only()  # (one extra left beside a single point trump: forced)
                    if only is None:
                        self._choice = choice
                        return
                    assert type(only) is Play
                    action, forced = only, True
                    continue
                self._choice = PlayChoice(seat, tuple(legal))
                return
            action = PLAY_CARD[legal[0]]  # (a long hand holds only trumps: never a single option)
            forced = True

    def _called_play(self, seat: int, hand: list[Card]) -> tuple[Play | None, bool]:
        """The partner's play of the called card (a long hand adds its under cards):
        the forced action, or None after setting the choice when the unders are a choice."""
        called = self.called
        assert called is not None
        if len(hand) <= self.profile.hand_size:
            return PLAY_CARD[called], True
        choice = self._long_choice(seat, hand, [called])
        only = choice.only()
        if only is None:
            self._choice = choice
            return None, False
        assert type(only) is Play
        return only, True

    def _score(self) -> None:
        side_of = self.side_of
        n_sides = 2 if self.profile.sides != "each" else self.n
        pts = [0] * n_sides
        card_points = self._card_points
        trump, maker = self.trump, self.maker
        assert trump is not None and maker is not None
        low = self.profile.low_card(trump)
        holder = self.low_holder if self.profile.low_goes_to == "holder" else None  # (None: Low to the capturer)
        for trick in self.tricks:
            winner = trick.winner
            assert winner is not None
            side = side_of[winner]
            for _, card, under in trick.plays:
                for c in (card, *under) if under else (card,):
                    v = card_points[c]
                    if not v:
                        continue
                    if c == low and holder is not None:
                        pts[side_of[holder]] += v
                    else:
                        pts[side] += v
        b = side_of[maker]
        d = 1 - b  # (difference scoring: two sides)
        p = self.profile
        if self.out:  # cards out of play: the defenders' point trumps may count for the bidders
            lost = 0
            for s, c in self.out:
                v = card_points[c]
                if v:
                    if p.defender_discards_to_bidders and s >= 0 and side_of[s] != b:
                        pts[b] += v
                    else:
                        lost += v
            self.lost = lost
        self.points = tuple(pts)
        bid = self.high
        made = pts[b] >= bid
        self.made = made
        delta = [0] * n_sides
        if p.scoring == "standard":
            delta = list(pts)  # the defenders add their points
            delta[b] = pts[b] if made else -bid
            if self.in_dark and p.dark_bid is not None:  # a bid in the dark wins or loses its own value
                delta[b] = p.dark_bid if made else -p.dark_bid
            if made and p.full_bid_doubles and bid == p.deal_points:
                delta[b] = 2 * bid
        else:  # difference scoring (foster1897 and relatives)
            if made:
                diff = pts[b] - pts[d]
                if diff > 0:
                    delta[b] = diff
                else:
                    delta[d] = -diff
            elif p.set_rule == "total_plus_gap":
                delta[d] = p.deal_points + bid - pts[b]
            else:
                delta[d] = pts[d] + bid
        if self.alone:  # going alone doubles the deal for both sides (railroad)
            delta = [2 * x for x in delta]
        before = self.scores_before
        if p.sides == "pairs":
            self.scores_after = (before[0] + delta[0], before[1] + delta[1])
        else:  # one score per seat: each seat adds its side's change
            self.scores_after = tuple(before[s] + delta[side_of[s]] for s in range(self.n))
        self.phase = DONE
        self.to_act = -1
