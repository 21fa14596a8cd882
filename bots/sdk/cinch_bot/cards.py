"""Card helpers for bot authors: parsing, trump membership, trump order, points.

Cards are text (``"5H"``, ``"TD"``) at the protocol boundary. Search code
wants speed, so the same facts are also offered on integers
``suit * 13 + rank`` (suits C D H S, ranks 2..A), the engine's encoding.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

SUITS = "CDHS"
RANKS = "23456789TJQKA"

#: Trump power order, high to low; ``"L"`` is the left pedro (5 of the sister suit).
TRUMP_ORDER: tuple[str, ...] = ("A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "L", "4", "3", "2")

CARD_NAMES: tuple[str, ...] = tuple(RANKS[i % 13] + SUITS[i // 13] for i in range(52))
_INDEX = {name: i for i, name in enumerate(CARD_NAMES)}


def card_index(card: str) -> int:
    """``"5H"`` -> integer ``suit * 13 + rank``; raises ValueError on bad text."""
    try:
        return _INDEX[card.upper().replace("10", "T")]
    except (KeyError, AttributeError):
        raise ValueError(f"not a card: {card!r}") from None


def card_name(index: int) -> str:
    return CARD_NAMES[index]


def indices(cards: Iterable[str]) -> list[int]:
    return [card_index(c) for c in cards]


def names(cards: Iterable[int]) -> list[str]:
    return [CARD_NAMES[c] for c in cards]


def rank(card: str) -> str:
    """The rank letter: one of ``23456789TJQKA``."""
    return CARD_NAMES[card_index(card)][0]


def suit(card: str) -> str:
    """The printed suit letter (the left pedro still prints its own suit)."""
    return CARD_NAMES[card_index(card)][1]


def rank_value(card: str) -> int:
    """0 for a 2 ... 12 for an ace (plain-suit order)."""
    return card_index(card) % 13


def sister_suit(s: str) -> str:
    """The other suit of the same colour: H<->D, S<->C."""
    return SUITS[3 - SUITS.index(s)]


def left_pedro(trump: str) -> str:
    """The 5 of the sister suit, a trump for every purpose."""
    return "5" + sister_suit(trump)


def is_trump(card: str, trump: str) -> bool:
    return card[1] == trump or card == left_pedro(trump)


def effective_suit(card: str, trump: str) -> str:
    """The suit a card follows as: the left pedro counts as trump."""
    return trump if is_trump(card, trump) else card[1]


def trump_power(card: str, trump: str) -> int:
    """13 for the ace of trump ... 0 for the 2 (left pedro 4); -1 for a plain card."""
    return TABLES[SUITS.index(trump)].power[card_index(card)]


def card_points(card: str, trump: str) -> int:
    """Points the card carries under ``trump`` (pagat62): A, J, T, 2 = 1; both pedros = 5."""
    return TABLES[SUITS.index(trump)].points[card_index(card)]


def trumps_high_to_low(trump: str) -> list[str]:
    """The 14 trumps of ``trump`` in power order."""
    t = TABLES[SUITS.index(trump)]
    return names(t.order)


def trick_winner(cards: Sequence[str], trump: str) -> int:
    """Position (0-based, in play order) of the card that wins these trick cards."""
    t = TABLES[SUITS.index(trump)]
    return t.winner_pos(indices(cards))


class Tables:
    """Integer tables for one trump suit: the fast path for simulations.

    ``power[c]`` is 0..13 for trumps (2 low, ace high; left pedro 4) and -1
    for plain cards; ``esuit[c]`` is the suit index a card follows as;
    ``points[c]`` the pagat62 points; ``low`` the 2 of trump.
    """

    __slots__ = ("trump", "left", "low", "power", "esuit", "points", "is_trump", "trumps", "order", "pointless")

    def __init__(self, trump: int) -> None:
        self.trump = trump
        self.left = 3 + 13 * (3 - trump)
        self.low = 13 * trump
        power = [-1] * 52
        for r in range(13):
            c = 13 * trump + r
            power[c] = r if r < 3 else r + 1  # 2,3,4 -> 0..2; 5..A -> 4..13
        power[self.left] = 3  # the left pedro sits between the right pedro and the 4
        self.power = tuple(power)
        esuit = [c // 13 for c in range(52)]
        esuit[self.left] = trump
        self.esuit = tuple(esuit)
        pts = [0] * 52
        for r, p in ((12, 1), (9, 1), (8, 1), (3, 5), (0, 1)):
            pts[13 * trump + r] = p
        pts[self.left] = 5
        self.points = tuple(pts)
        self.is_trump = tuple(p >= 0 for p in power)
        self.trumps = frozenset(c for c in range(52) if power[c] >= 0)
        self.order = tuple(sorted(self.trumps, key=lambda c: -power[c]))
        self.pointless = frozenset(c for c in self.trumps if pts[c] == 0)

    def strength(self, card: int, led: int) -> int:
        """Comparable strength of a card in a trick whose led (effective) suit is ``led``."""
        p = self.power[card]
        if p >= 0:
            return 100 + p
        return card % 13 if self.esuit[card] == led else -1

    def winner_pos(self, cards: Sequence[int]) -> int:
        led = self.esuit[cards[0]]
        best, pos = -2, 0
        for i, c in enumerate(cards):
            s = self.strength(c, led)
            if s > best:
                best, pos = s, i
        return pos

    def legal_follow(self, hand: Sequence[int], led_card: int | None) -> list[int]:
        """Cards of ``hand`` that may be played (top card) after ``led_card`` leads."""
        if led_card is None:
            return list(hand)
        esuit, trump = self.esuit, self.trump
        led = esuit[led_card]
        if led == trump:
            return [c for c in hand if esuit[c] == trump] or list(hand)
        if any(esuit[c] == led for c in hand):
            return [c for c in hand if esuit[c] == led or esuit[c] == trump]
        return list(hand)


TABLES: tuple[Tables, ...] = tuple(Tables(s) for s in range(4))
