"""Card helpers for bot authors: parsing, trump membership, trump order, points.

Cards are text (``"5H"``, ``"TD"``) at the protocol boundary. Search code
wants speed, so the same facts are also offered on integers
``suit * 13 + rank`` (suits C D H S, ranks 2..A), the engine's encoding.
Profiles with the joker (``"joker": true``) add card 52, ``"JK"``: the
lowest trump whatever suit is named, with no printed suit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

SUITS = "CDHS"
RANKS = "23456789TJQKA"

#: Trump power order, high to low; ``"L"`` is the left pedro (5 of the sister suit).
TRUMP_ORDER: tuple[str, ...] = ("A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "L", "4", "3", "2")

CARD_NAMES: tuple[str, ...] = tuple(RANKS[i % 13] + SUITS[i // 13] for i in range(52)) + ("JK",)
_INDEX = {name: i for i, name in enumerate(CARD_NAMES)}
JOKER = 52
"""The joker's index (profiles with ``joker``); its text is ``"JK"``."""
ALL_CARDS = 53
"""Card indices any profile may use: the size of the per-card tables."""


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
    """The rank letter: one of ``23456789TJQKA``; ``"JK"`` for the joker."""
    i = card_index(card)
    return "JK" if i == JOKER else CARD_NAMES[i][0]


def suit(card: str) -> str:
    """The printed suit letter (the left pedro still prints its own suit);
    ``""`` for the joker, which prints none (``effective_suit`` gives the trump)."""
    i = card_index(card)
    return "" if i == JOKER else CARD_NAMES[i][1]


def rank_value(card: str) -> int:
    """0 for a 2 ... 12 for an ace (plain-suit order); -1 for the joker."""
    i = card_index(card)
    return -1 if i == JOKER else i % 13


def sister_suit(s: str) -> str:
    """The other suit of the same colour: H<->D, S<->C."""
    return SUITS[3 - SUITS.index(s)]


def left_pedro(trump: str) -> str:
    """The 5 of the sister suit, a trump for every purpose."""
    return "5" + sister_suit(trump)


def is_trump(card: str, trump: str) -> bool:
    """Whether ``card`` is a trump once ``trump`` is named (the joker always is)."""
    card = card.upper()
    return card == "JK" or card[1] == trump or card == left_pedro(trump)


def effective_suit(card: str, trump: str) -> str:
    """The suit a card follows as: the left pedro counts as trump."""
    return trump if is_trump(card, trump) else card[1]


def trump_power(card: str, trump: str, profile: Mapping[str, Any] | None = None) -> float:
    """13 for the ace of trump ... 0 for the 2 (left pedro 4); -1 for a plain card.
    Under a profile with the joker, the joker is 0 and every other trump one higher."""
    return tables_for(profile)[SUITS.index(trump)].power[card_index(card)]


def card_points(card: str, trump: str, profile: Mapping[str, Any] | None = None) -> int:
    """Points the card carries under ``trump`` in ``profile`` (the ``game``
    message's profile; default pagat62: A, J, T, 2 = 1, both pedros = 5)."""
    return tables_for(profile)[SUITS.index(trump)].points[card_index(card)]


def trumps_high_to_low(trump: str, profile: Mapping[str, Any] | None = None) -> list[str]:
    """The trumps of ``trump`` in power order (14; 15 with the off-jack or the joker)."""
    t = tables_for(profile)[SUITS.index(trump)]
    return names(t.order)


def trick_winner(cards: Sequence[str], trump: str, profile: Mapping[str, Any] | None = None) -> int:
    """Position (0-based, in play order) of the card that wins these trick cards."""
    t = tables_for(profile)[SUITS.index(trump)]
    return t.winner_pos(indices(cards))


#: The pagat62 profile's parameters, every one as the engine defines it: what
#: a bot assumes before it has been told the rules, and the value of any
#: parameter a ``game`` message leaves out (messages name the later
#: parameters only where they differ from these; read them with ``param``).
PAGAT62: dict[str, Any] = {
    "name": "pagat62", "target": 62, "deciding_threshold": 55, "min_bid": 7, "max_bid": 14, "dealer_forced_bid": 7,
    "hand_size": 6, "points": {"high": 1, "jack": 1, "game": 1, "right_pedro": 5, "left_pedro": 5, "low": 1, "off_jack": 0,
               "king": 0, "queen": 0, "nine": 0, "three": 0, "joker": 0},
    "low_goes_to": "holder", "scoring": "standard", "extra_trumps": "play_under", "rob_from": "stock",
    "players": 4, "sides": "pairs", "call": None, "call_alone": False, "kitty_before_trump": False,
    "forced_bid_any": False, "bid_start": "left", "auction": "once_around", "bid_suits": False,
    "suit_order": "SHCD", "dealer_low_bid": None, "discard": "non_trumps", "second_deal": 0,
    "deck_ranks": "23456789TJQKA", "packets": [3, 3, 3], "kitty": 0,
    "min_discard": 0, "discards_face_up": False, "rob": "take_trumps", "defender_discards_to_bidders": False,
    "set_rule": "minus_bid", "full_bid_doubles": False, "moon_bid": None, "win_requires_bid": False,
    "first_lead_trump": False, "play": "follow", "off_jack_trump": False, "lose_at": None, "both_reach": "play_on",
    "widow": 0, "dark_bid": None, "joker": False,
}


def param(profile: Mapping[str, Any] | None, name: str) -> Any:
    """The profile's value of parameter ``name``; pagat62's where the profile
    does not name it (None for a parameter this SDK does not know either)."""
    if profile and name in profile:
        return profile[name]
    return PAGAT62.get(name)


#: The point cards by rank letter (``"L"``: the left pedro, ``"O"``: the off-jack, the jack of
#: the sister suit, a trump only where the profile says so), keyed as in ``profile["points"]``.
POINT_CARDS: tuple[tuple[str, str], ...] = (
    ("high", "A"), ("jack", "J"), ("game", "T"), ("right_pedro", "5"), ("left_pedro", "L"), ("low", "2"),
    ("off_jack", "O"), ("king", "K"), ("queen", "Q"), ("nine", "9"), ("three", "3"), ("joker", "JK"))
#: The off-jack's trump power: between the jack (10) and the ten (9).
OFF_JACK_POWER = 9.5


class Tables:
    """Integer tables for one trump suit under one profile: the fast path for simulations.

    ``power[c]`` is 0..13 for trumps (2 low, ace high; left pedro 3; where
    the profile makes the off-jack a trump, it is ``OFF_JACK_POWER``, 9.5;
    with the joker, the joker is 0 and every other trump one higher)
    and -1 for plain cards; ``esuit[c]`` is the suit index a card follows as;
    ``points[c]`` the profile's points; ``captured[c]`` the points a trick
    winner takes for the card (Low's are 0 where it stays with its holder);
    ``total`` the points of a deal; ``low`` the 2 of trump.
    """

    __slots__ = ("trump", "left", "low", "off_jack", "power", "esuit", "points", "captured", "total", "low_to_holder",
                 "is_trump", "trumps", "order", "pointless", "joker")

    def __init__(self, trump: int, values: Mapping[str, int] | None = None, low_to_holder: bool = True,
                 off_jack: bool = False, joker: bool = False) -> None:
        values = {**PAGAT62["points"], **(values or {})}
        self.trump = trump
        self.left = 3 + 13 * (3 - trump)
        self.low = 13 * trump
        self.off_jack = 9 + 13 * (3 - trump) if off_jack else None
        self.joker = joker
        up = 1 if joker else 0  # the joker takes 0, below the 2
        power: list[float] = [-1] * ALL_CARDS
        for r in range(13):
            c = 13 * trump + r
            power[c] = (r if r < 3 else r + 1) + up  # 2,3,4 -> 0..2; 5..A -> 4..13
        power[self.left] = 3 + up  # the left pedro sits between the right pedro and the 4
        esuit = [c // 13 for c in range(ALL_CARDS)]  # (4 for the joker: no suit, unless it is in the deck)
        esuit[self.left] = trump
        if self.off_jack is not None:
            power[self.off_jack] = OFF_JACK_POWER + up
            esuit[self.off_jack] = trump
        if joker:
            power[JOKER] = 0
            esuit[JOKER] = trump
        self.power = tuple(power)
        self.esuit = tuple(esuit)
        pts = [0] * ALL_CARDS
        for key, letter in POINT_CARDS:
            if letter == "O":
                if self.off_jack is not None:
                    pts[self.off_jack] = int(values.get(key, 0))
                continue
            if letter == "JK":
                if joker:
                    pts[JOKER] = int(values.get(key, 0))
                continue
            card = self.left if letter == "L" else 13 * trump + RANKS.index(letter)
            pts[card] = int(values.get(key, 0))
        self.points = tuple(pts)
        self.low_to_holder = low_to_holder
        cap = list(pts)
        if low_to_holder:
            cap[self.low] = 0
        self.captured = tuple(cap)
        self.total = sum(pts)
        self.is_trump = tuple(p >= 0 for p in power)
        self.trumps = frozenset(c for c in range(ALL_CARDS) if power[c] >= 0)
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
"""The pagat62 tables, by trump suit index."""


def deck_of(profile: Mapping[str, Any] | None) -> frozenset[int]:
    """The cards the profile's deck holds (lipton: 32, without the 3s, 4s, 6s, 7s and 8s;
    sixty-three-joker: 53, the joker included)."""
    ranks = str(param(profile, "deck_ranks"))
    cards = [c for c in range(52) if RANKS[c % 13] in ranks]
    return frozenset(cards + [JOKER] if param(profile, "joker") else cards)


@lru_cache(maxsize=32)
def _tables(values: tuple[tuple[str, int], ...], low_to_holder: bool, off_jack: bool,
            joker: bool = False) -> tuple[Tables, ...]:
    return tuple(Tables(s, dict(values), low_to_holder, off_jack, joker) for s in range(4))


def tables_for(profile: Mapping[str, Any] | None) -> tuple[Tables, ...]:
    """The ``Tables`` of the four trump suits under ``profile`` (a ``game``
    message's ``profile``; None: pagat62): its point values, who scores Low
    and whether the off-jack is a trump.

    Parameters a profile leaves out keep their pagat62 values.
    """
    if not profile:
        return TABLES
    values = {**PAGAT62["points"], **(param(profile, "points") or {})}
    holder = param(profile, "low_goes_to") != "capturer"
    off_jack = bool(param(profile, "off_jack_trump"))
    joker = bool(param(profile, "joker"))
    key = tuple(sorted((k, int(v)) for k, v in values.items() if isinstance(v, (int, float))))
    if holder and not off_jack and not joker and dict(key) == PAGAT62["points"]:
        return TABLES
    return _tables(key, holder, off_jack, joker)
