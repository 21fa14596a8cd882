"""Helpers for the engine tests: decks built to order, scripted sources, and
an independent model of what the rules say (written from docs/rules.md, not from
the engine), so that tests compare two readings of the rules."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from arena.engine import Deal, Game, RuleProfile, parse_card, parse_cards
from arena.engine.chance import reshuffle as keyed_reshuffle

SUITS = "CDHS"
RANKS = "23456789TJQKA"
ALL_CARDS = [r + s for s in SUITS for r in RANKS]


def c(text: str) -> int:
    return parse_card(text)


def cs(texts: str | Iterable[str]) -> list[int]:
    if isinstance(texts, str):
        texts = texts.split()
    return parse_cards(texts)


def seat_order(dealer: int) -> list[int]:
    """Seats from the dealer's left, clockwise, ending with the dealer."""
    return [(dealer + 1 + i) % 4 for i in range(4)]


def build_deck(dealer: int, hands: dict[int, str | Sequence[str]], stock: str | Sequence[str] = ()) -> list[int]:
    """A deck (top first) that deals ``hands[seat]`` (9 cards, in dealing
    order) to the given seats and starts the stock with ``stock``.

    Dealing (rules 3): three rounds of 3-card packets from the dealer's left,
    so packet ``r`` of the ``i``-th seat in that order is deck[12r+3i : +3].
    Unnamed cards are filled in from the remaining ones in suit/rank order.
    """
    named: dict[int, list[str]] = {}
    for seat, h in hands.items():
        named[seat] = h.split() if isinstance(h, str) else list(h)
        assert len(named[seat]) <= 9
    stock_l = stock.split() if isinstance(stock, str) else list(stock)
    used = [x for h in named.values() for x in h] + stock_l
    assert len(set(used)) == len(used), "a card is named twice"
    spare = [x for x in ALL_CARDS if x not in used]
    deck: list[str | None] = [None] * 52
    for i, seat in enumerate(seat_order(dealer)):
        h = named.get(seat, [])
        h = h + [spare.pop(0) for _ in range(9 - len(h))]
        for r in range(3):
            deck[12 * r + 3 * i : 12 * r + 3 * i + 3] = h[3 * r : 3 * r + 3]
    deck[36 : 36 + len(stock_l)] = stock_l
    for p in range(36 + len(stock_l), 52):
        deck[p] = spare.pop(0)
    assert not spare
    return cs(deck)  # type: ignore[arg-type]


class ScriptSource:
    """A DeckSource with given decks; reshuffles come from the keyed function."""

    def __init__(self, decks: Sequence[Sequence[int]], first_dealer: int = 0, key: str = "script") -> None:
        self.decks = [list(d) for d in decks]
        self._first = first_dealer
        self.key = key
        self.reshuffle_calls: list[tuple[int, int, list[int]]] = []

    def first_dealer(self, players: int = 4) -> int:
        return self._first

    def deck(self, k: int, cards: int = 52) -> list[int]:
        return list(self.decks[k % len(self.decks)])

    def reshuffle(self, k: int, j: int, pile: Sequence[int]) -> list[int]:
        self.reshuffle_calls.append((k, j, list(pile)))
        return keyed_reshuffle(self.key, k, j, pile)

    def origin(self, k: int) -> str:
        return "key"

    def reshuffle_key(self, k: int) -> str | None:
        return self.key


def make_deal(deck: Sequence[int], dealer: int = 0, scores: tuple[int, int] = (0, 0), profile: RuleProfile | None = None) -> tuple[Deal, ScriptSource]:
    src = ScriptSource([deck], dealer)
    return Deal(profile or RuleProfile(), 0, dealer, scores, src), src


def game_with_scores(scores: tuple[int, int], deck: Sequence[int] | None = None, dealer: int = 0, key: str = "g", **kw) -> Game:
    """A game whose first deal starts from ``scores`` (for end-of-game tests).

    Games always start at 0-0, so this rebuilds the first deal with other
    scores; everything after that is the public ``Game`` machinery.
    """
    if deck is None:
        from arena.engine import KeyedSource

        g = Game(source=KeyedSource(key), **kw)
    else:
        g = Game(source=ScriptSource([deck], dealer, key), **kw)
    g.deals.clear()
    g.scores = scores
    g._start_deal()
    return g


def bid_script(deal_or_game, bids: dict[int, int | None]) -> None:
    """Apply bids (None = pass) for seats asked, in the order the engine asks."""
    from arena.engine import PASS, Bid

    while (deal_or_game.deal if isinstance(deal_or_game, Game) else deal_or_game).phase == "bid":
        seat = deal_or_game.to_act
        amount = bids.get(seat)
        deal_or_game.apply(PASS if amount is None else Bid(amount))


# -- an independent model of the rules -------------------------------------

POINTS = {"A": 1, "J": 1, "T": 1, "5": 5, "2": 1}  # of trump; the left pedro is 5 as well


def sister_suit(s: str) -> str:
    return {"H": "D", "D": "H", "S": "C", "C": "S"}[s]


def is_trump_txt(card: str, trump: str) -> bool:
    return card[1] == trump or card == "5" + sister_suit(trump)


def trump_order(trump: str) -> list[str]:
    """The 14 trumps high to low, as the table in rules 2 lists them."""
    return [r + trump for r in "AKQJT9876"] + ["5" + trump, "5" + sister_suit(trump)] + [r + trump for r in "432"]


def card_points(card: str, trump: str) -> int:
    if not is_trump_txt(card, trump):
        return 0
    if card == "5" + sister_suit(trump):
        return 5
    return POINTS.get(card[0], 0)


def effective_suit(card: str, trump: str) -> str:
    return trump if is_trump_txt(card, trump) else card[1]


def trick_winner_txt(plays: Sequence[tuple[int, str]], trump: str) -> int:
    """Seat winning a trick of (seat, top card) plays (rules 6)."""
    order = trump_order(trump)
    trumps = [(order.index(card), seat) for seat, card in plays if is_trump_txt(card, trump)]
    if trumps:
        return min(trumps)[1]
    led = plays[0][1][1]
    return max((RANKS.index(card[0]), seat) for seat, card in plays if card[1] == led)[1]


def legal_tops_txt(hand: Sequence[str], led: str | None, trump: str) -> set[str]:
    """Cards the follow rules of rules 6 allow (ignoring extra cards)."""
    if led is None:
        return set(hand)
    led_suit = effective_suit(led, trump)
    if led_suit == trump:
        trumps = {x for x in hand if is_trump_txt(x, trump)}
        return trumps or set(hand)
    if any(effective_suit(x, trump) == led_suit for x in hand):
        return {x for x in hand if effective_suit(x, trump) in (led_suit, trump)}
    return set(hand)


def random_game(key: str, rng: random.Random, **kw) -> Game:
    g = Game(key=key, **kw)
    while not g.over:
        g.apply(g.choice.sample(rng))
    return g
