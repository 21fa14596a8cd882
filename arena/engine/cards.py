"""Cards as small integers, and the per-trump tables the rules need.

A card is ``suit * 13 + rank`` with suits ``C D H S`` (0-3) and ranks
``2 .. A`` (0-12); the joker of profiles that use one is card 52 (``"JK"``),
a trump of no printed suit. Integers keep the hot loops of the engine cheap;
the text form (``"5H"``) is used at every boundary (records, views sent to
bots).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

SUITS = "CDHS"
RANKS = "23456789TJQKA"
NUM_CARDS = 52
JOKER: "Card" = 52
"""The joker (profiles with ``joker``): the lowest trump whatever suit is named."""
ALL_CARDS = 53
"""Card indices any profile may use (the 52 and the joker): the size of per-card tables."""

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
RANK_2, RANK_5, RANK_T, RANK_J, RANK_A = 0, 3, 8, 9, 12

Card = int


def suit_of(card: Card) -> int:
    """The printed suit, 0-3; 4 for the joker (no suit: tables give its suit once trump is named)."""
    return card // 13


def rank_of(card: Card) -> int:
    """The rank, 0-12 (meaningless for the joker, which is never a plain card)."""
    return card % 13


def make_card(rank: int, suit: int) -> Card:
    return suit * 13 + rank


def sister(suit: int) -> int:
    """The other suit of the same colour (H<->D, S<->C)."""
    return 3 - suit


CARD_NAMES: tuple[str, ...] = tuple(RANKS[c % 13] + SUITS[c // 13] for c in range(NUM_CARDS)) + ("JK",)


def card_str(card: Card) -> str:
    return CARD_NAMES[card]


_card_name = CARD_NAMES.__getitem__
CARD_INDEX: dict[str, Card] = {name: c for c, name in enumerate(CARD_NAMES)}


def parse_card(text: str) -> Card:
    """Parse ``"5H"``/``"10h"``; raise ``ValueError`` naming the bad text."""
    card = CARD_INDEX.get(text)  # the canonical form, on the protocol's hot path
    if card is not None:
        return card
    t = text.strip().upper()
    if t == "JK":
        return JOKER
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(f"not a card: {text!r} (expected rank+suit such as '5H', 'TD', 'AS', or JK for the joker)")
    return make_card(RANKS.index(t[0]), SUITS.index(t[1]))


def parse_suit(text: str) -> int:
    t = text.strip().upper()
    if len(t) != 1 or t not in SUITS:
        raise ValueError(f"not a suit: {text!r} (expected one of C, D, H, S)")
    return SUITS.index(t)


def cards_str(cards: Iterable[Card]) -> list[str]:
    return list(map(_card_name, cards))  # no Python frame per card: every view names its cards


def parse_cards(texts: Iterable[str]) -> list[Card]:
    return [parse_card(t) for t in texts]


class TrumpTable:
    """Everything about the cards that depends on the trump suit.

    ``power[c]`` orders trumps (A high ... right pedro, left pedro, 4, 3, 2
    low) and is -1 for plain cards; ``esuit[c]`` is the suit a card counts as
    (the left pedro counts as trump, not as its printed suit). With
    ``off_jack`` the jack of the sister suit is a trump too, between the jack
    and the ten (Oregon, Lipton: a 15-card trump suit). With ``joker`` the
    joker is the lowest trump, below the 2 (sixty-three); without it the
    joker's entries say "no such card" (power -1, suit 4). Tables cover all
    53 card indices, so every profile indexes them the same way.
    """

    __slots__ = ("trump", "left_pedro", "off_jack", "joker", "power", "esuit", "is_trump", "trumps")

    def __init__(self, trump: int, off_jack: bool = False, joker: bool = False) -> None:
        self.trump = trump
        self.left_pedro = make_card(RANK_5, sister(trump))
        self.off_jack = make_card(RANK_J, sister(trump)) if off_jack else None
        self.joker = joker
        power = [-1] * ALL_CARDS
        esuit = [suit_of(c) for c in range(ALL_CARDS)]
        for rank in range(13):
            power[make_card(rank, trump)] = 2 * rank + 2
        power[self.left_pedro] = 2 * RANK_5 + 1  # between the right pedro and the 4
        esuit[self.left_pedro] = trump
        if self.off_jack is not None:
            power[self.off_jack] = 2 * RANK_J + 1  # between the jack and the ten
            esuit[self.off_jack] = trump
        if joker:
            power[JOKER] = 0  # below the 2 (power 2) and the gap the left pedro does not use
            esuit[JOKER] = trump
        self.power = tuple(power)
        self.esuit = tuple(esuit)
        self.is_trump = tuple(p >= 0 for p in power)
        self.trumps = frozenset(c for c in range(ALL_CARDS) if power[c] >= 0)


TRUMP_TABLES = tuple(TrumpTable(s) for s in range(4))
OFF_JACK_TABLES = tuple(TrumpTable(s, off_jack=True) for s in range(4))


@lru_cache(maxsize=None)
def trump_tables(off_jack: bool = False, joker: bool = False) -> tuple[TrumpTable, ...]:
    """The four tables (one per trump suit) of a profile's trump rules, built once."""
    if not joker:
        return OFF_JACK_TABLES if off_jack else TRUMP_TABLES
    return tuple(TrumpTable(s, off_jack, joker) for s in range(4))
