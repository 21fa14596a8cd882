"""Actions a seat can take, and the legal choice offered for each decision.

A choice is a description, not always a list: the dealer's rob and a long
hand's extra cards have too many combinations to enumerate (docs/rules.md
section 10), so they are stated as constraints ("take k of these cards",
"one top card plus n-6 of these") that can still be checked and sampled.
"""

from __future__ import annotations

import random
from math import comb
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, Union

from .cards import ALL_CARDS, CARD_NAMES, SUITS, Card, card_str, cards_str, parse_card, parse_cards, parse_suit
from .forms import ActionForm, LegalForm

T = TypeVar("T")


def _name(card: object) -> str:
    """A card's text, or its repr when it is no card (so that an illegal
    action can always be named in the IllegalAction message)."""
    if type(card) is int and 0 <= card < ALL_CARDS:
        return CARD_NAMES[card]
    return repr(card)


@dataclass(frozen=True, slots=True)
class Pass:
    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Bid:
    amount: int
    suit: int | None = None  # the trump the bid names, under profiles whose bids name one (oregon)

    def __str__(self) -> str:
        if self.suit is None:
            return f"bid {self.amount}"
        ok = type(self.suit) is int and 0 <= self.suit < 4
        return f"bid {self.amount} {SUITS[self.suit] if ok else repr(self.suit)}"


@dataclass(frozen=True, slots=True)
class NameTrump:
    suit: int

    def __str__(self) -> str:
        ok = type(self.suit) is int and 0 <= self.suit < 4
        return f"trump {SUITS[self.suit] if ok else repr(self.suit)}"


@dataclass(frozen=True, slots=True)
class Rob:
    """The non-trumps the dealer chooses from the stock (trumps are taken anyway)."""

    take: tuple[Card, ...]

    def __post_init__(self) -> None:
        # A rob is a set of cards: keep one canonical (sorted) order so that a
        # record written from any order replays to an identical record.
        object.__setattr__(self, "take", tuple(sorted(self.take)))

    def __str__(self) -> str:
        return "rob [" + " ".join(_name(c) for c in self.take) + "]"


@dataclass(frozen=True, slots=True)
class Play:
    card: Card
    under: tuple[Card, ...] = ()

    def __str__(self) -> str:
        if self.under:
            return f"play {_name(self.card)} over [{' '.join(_name(c) for c in self.under)}]"
        return f"play {_name(self.card)}"


@dataclass(frozen=True, slots=True)
class Discard:
    """The cards a seat lays away after the trump is named (profiles whose
    seats choose their discards, or show and discard extra trumps)."""

    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards)))  # a set: one canonical order

    def __str__(self) -> str:
        return "discard [" + " ".join(_name(c) for c in self.cards) + "]"


@dataclass(frozen=True, slots=True)
class Call:
    """The maker's call of a partner (five-hand, railroad): the card whose
    holder is its partner for the deal, or ``None`` to play alone."""

    card: Card | None

    def __str__(self) -> str:
        return "call alone" if self.card is None else f"call {_name(self.card)}"


@dataclass(frozen=True, slots=True)
class TakeWidow:
    """A seat's answer, right after its bid or pass, to whether it takes up its widow
    (monterey-widow, rules 12.14: it "may" take it); a widow it leaves stays face down, out of play."""

    take: bool

    def __str__(self) -> str:
        return "take widow" if self.take is True else "leave widow" if self.take is False else f"widow {self.take!r}"


Action = Union[Pass, Bid, NameTrump, Rob, Play, Discard, Call, TakeWidow]
PASS = Pass()

# Actions are immutable, so the common ones are built once and shared: the
# engine's hot loop then never pays for a frozen dataclass construction.
PLAY_CARD: tuple[Play, ...] = tuple(Play(c) for c in range(ALL_CARDS))
"""``PLAY_CARD[c]`` is ``Play(c)`` (no under cards)."""
_BIDS: dict[int, Bid] = {a: Bid(a) for a in range(0, 33)}


def bid_action(amount: int) -> Bid:
    """``Bid(amount)``, shared for the usual amounts."""
    b = _BIDS.get(amount)
    return b if b is not None else Bid(amount)


class IllegalAction(ValueError):
    """An action the rules do not allow here; the state is left unchanged.

    Every action the engine refuses raises this and nothing else, however
    malformed (a field of the wrong type, a suit where bids name none):
    ``Choice.is_legal`` checks every field's type before its value.
    """

    def __init__(self, action: object, choice: "Choice") -> None:
        self.action = action
        self.choice = choice
        try:
            shown = str(action)
        except Exception:  # noqa: BLE001 - an object that cannot even be shown is still only illegal
            shown = object.__repr__(action)
        super().__init__(f"illegal action {shown} by seat {choice.seat}: legal is {choice.explain()}")


def _all_cards(cards: object) -> bool:
    """``cards`` is a tuple of distinct card indices (the only form the engine applies)."""
    return (
        type(cards) is tuple
        and all(type(c) is int and 0 <= c < ALL_CARDS for c in cards)
        and len(set(cards)) == len(cards)
    )


def _pick(rng: random.Random, seq: Sequence[T]) -> T:
    """A uniform element of ``seq``: floor(U * n) with one C-level draw.

    Several times cheaper than ``rng.choice`` (which loops in Python over
    getrandbits); its bias is below n / 2**53, far under anything measurable.
    """
    return seq[int(rng.random() * len(seq))]


class Choice:
    """What the acting seat may do. Subclasses describe one decision kind."""

    __slots__ = ()  # one is built per decision: keep them cheap
    kind: str = ""
    seat: int

    def is_legal(self, action: object) -> bool:
        raise NotImplementedError

    def explain(self) -> str:
        raise NotImplementedError

    def sample(self, rng: random.Random) -> Action:
        """A legal action drawn with ``rng``: uniform where enumerable."""
        raise NotImplementedError

    def only(self) -> Action | None:
        """The single legal action if there is exactly one, else None."""
        raise NotImplementedError

    def actions(self) -> list[Action]:
        """Every legal action; only call on small choices (``enumerable``)."""
        raise NotImplementedError

    @property
    def enumerable(self) -> bool:
        return True


@lru_cache(maxsize=256)
def _bid_options(amounts: tuple[int, ...], can_pass: bool) -> tuple[Action, ...]:
    """The options of a bid decision, pass first (built once per distinct decision)."""
    return ((PASS,) if can_pass else ()) + tuple(bid_action(a) for a in amounts)


class BidChoice(Choice):
    kind = "bid"
    __slots__ = ("seat", "amounts", "can_pass")

    def __init__(self, seat: int, amounts: tuple[int, ...], can_pass: bool) -> None:
        self.seat = seat
        self.amounts = amounts
        self.can_pass = can_pass

    def is_legal(self, action: object) -> bool:
        if type(action) is Pass:
            return self.can_pass
        # a bid naming a suit where bids name none is malformed, not a plain bid
        return (
            type(action) is Bid and type(action.amount) is int and action.suit is None and action.amount in self.amounts
        )

    def actions(self) -> list[Action]:
        return list(_bid_options(self.amounts, self.can_pass))

    def only(self) -> Action | None:
        n = len(self.amounts) + self.can_pass
        if n != 1:
            return None
        return PASS if self.can_pass else bid_action(self.amounts[0])

    def sample(self, rng: random.Random) -> Action:
        return _pick(rng, _bid_options(self.amounts, self.can_pass))

    def explain(self) -> str:
        opts = (["pass"] if self.can_pass else []) + [str(a) for a in self.amounts]
        return "bid one of: " + ", ".join(opts)


class SuitBidChoice(Choice):
    """A bid that names its trump: one of ``options`` (each a ``Bid`` with a
    suit, at most 4 per amount), or a pass when ``can_pass``."""

    kind = "bid"
    __slots__ = ("seat", "options", "can_pass")

    def __init__(self, seat: int, options: tuple[Bid, ...], can_pass: bool) -> None:
        self.seat = seat
        self.options = options
        self.can_pass = can_pass

    @property
    def amounts(self) -> tuple[int, ...]:
        return tuple(sorted({b.amount for b in self.options}))

    def is_legal(self, action: object) -> bool:
        if type(action) is Pass:
            return self.can_pass
        return (
            type(action) is Bid and type(action.amount) is int and type(action.suit) is int and action in self.options
        )

    def actions(self) -> list[Action]:
        out: list[Action] = [PASS] if self.can_pass else []
        return out + list(self.options)

    def only(self) -> Action | None:
        acts = self.actions()
        return acts[0] if len(acts) == 1 else None

    def sample(self, rng: random.Random) -> Action:
        return _pick(rng, self.actions())

    def explain(self) -> str:
        opts = (["pass"] if self.can_pass else []) + [f"{b.amount} {SUITS[b.suit]}" for b in self.options]  # type: ignore[index]
        return "bid one of: " + ", ".join(opts)


class TrumpChoice(Choice):
    kind = "trump"
    __slots__ = ("seat",)

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def is_legal(self, action: object) -> bool:
        return type(action) is NameTrump and type(action.suit) is int and action.suit in (0, 1, 2, 3)

    def actions(self) -> list[Action]:
        return [NameTrump(s) for s in range(4)]

    def only(self) -> Action | None:
        return None

    def sample(self, rng: random.Random) -> Action:
        return NameTrump(rng.randrange(4))

    def explain(self) -> str:
        return "name a trump suit: C, D, H or S"


class RobChoice(Choice):
    """Take ``count`` of ``candidates`` (the stock's non-trumps).

    ``must_take`` are the stock's trumps, which the dealer takes anyway.
    ``or_all`` (california), when not empty, is the one other legal take:
    exactly these cards, every trump of the stock, more than ``count``.
    """

    kind = "rob"
    __slots__ = ("seat", "stock", "must_take", "candidates", "count", "or_all")

    def __init__(
        self, seat: int, stock: tuple[Card, ...], must_take: tuple[Card, ...], candidates: tuple[Card, ...], count: int,
        or_all: tuple[Card, ...] = (),
    ) -> None:
        self.seat = seat
        self.stock = stock
        self.must_take = must_take
        self.candidates = candidates
        self.count = count
        self.or_all = tuple(sorted(or_all))

    def is_legal(self, action: object) -> bool:
        if type(action) is not Rob:
            return False
        take = action.take
        if not _all_cards(take):
            return False
        if self.or_all and take == self.or_all:
            return True
        return len(take) == self.count and all(c in self.candidates for c in take)

    @property
    def enumerable(self) -> bool:
        return False

    def actions(self) -> list[Action]:
        out: list[Action] = [Rob(tuple(sorted(t))) for t in combinations(self.candidates, self.count)]
        return out + [Rob(self.or_all)] if self.or_all else out

    def only(self) -> Action | None:
        if self.or_all:  # (more cards than count: never the same take as a choice of count cards)
            return None
        if self.count == 0:
            return Rob(())
        if self.count == len(self.candidates):
            return Rob(tuple(sorted(self.candidates)))
        return None

    def sample(self, rng: random.Random) -> Action:
        """A take of ``count`` cards, uniform; with ``or_all``, that take half the time."""
        if self.or_all and rng.random() < 0.5:
            return Rob(self.or_all)
        return Rob(tuple(sorted(rng.sample(self.candidates, self.count))))

    def explain(self) -> str:
        text = (
            f"take {self.count} of [{' '.join(cards_str(self.candidates))}]"
            f" (the trumps [{' '.join(cards_str(self.must_take))}] are taken anyway)"
        )
        if self.or_all:
            text += f", or take exactly [{' '.join(cards_str(self.or_all))}] (every trump of the stock)"
        return text


class DiscardChoice(Choice):
    """Discard between ``least`` and ``most`` distinct cards of ``candidates``.

    Stated as a constraint, like the rob: a nine-card hand has hundreds of
    subsets. ``most`` never leaves the seat fewer cards than it keeps anyway.
    """

    kind = "discard"
    __slots__ = ("seat", "candidates", "least", "most")

    def __init__(self, seat: int, candidates: tuple[Card, ...], least: int, most: int) -> None:
        self.seat = seat
        self.candidates = candidates
        self.least = least
        self.most = most

    def is_legal(self, action: object) -> bool:
        if type(action) is not Discard:
            return False
        cards = action.cards
        if type(cards) is not tuple or not self.least <= len(cards) <= self.most:
            return False
        candidates = self.candidates  # (cards of the deck: a member is a card index in range)
        for c in cards:
            if type(c) is not int or c not in candidates:
                return False
        return len(set(cards)) == len(cards)

    @property
    def enumerable(self) -> bool:
        return False

    def actions(self) -> list[Action]:
        return [
            Discard(tuple(t)) for n in range(self.least, self.most + 1) for t in combinations(self.candidates, n)
        ]

    def only(self) -> Action | None:
        if self.least == self.most and self.least in (0, len(self.candidates)):
            return Discard(self.candidates if self.least else ())
        return None

    def sample(self, rng: random.Random) -> Action:
        """``n`` of the candidates, uniform: a partial Fisher-Yates on one C-level draw per card
        (``_pick``'s draw), several times cheaper than ``rng.sample``; ``n`` uniform in
        ``least..most``, drawn only where they differ."""
        least, most = self.least, self.most
        n = least if least == most else least + int(rng.random() * (most - least + 1))
        pool = list(self.candidates)
        m = len(pool)
        for i in range(n):
            j = i + int(rng.random() * (m - i))
            pool[i], pool[j] = pool[j], pool[i]
        return Discard(tuple(pool[:n]))

    def explain(self) -> str:
        span = str(self.least) if self.least == self.most else f"{self.least} to {self.most}"
        return f"discard {span} of [{' '.join(cards_str(self.candidates))}]"


class CallChoice(Choice):
    """Call one of ``cards`` (the cards the maker does not hold that the
    profile lets it call), or, where ``alone``, no card: play alone."""

    kind = "call"
    __slots__ = ("alone", "cards", "seat")

    def __init__(self, seat: int, cards: tuple[Card, ...], alone: bool) -> None:
        self.seat = seat
        self.cards = cards
        self.alone = alone

    def is_legal(self, action: object) -> bool:
        if type(action) is not Call:
            return False
        card = action.card
        return (self.alone and card is None) or (type(card) is int and card in self.cards)

    def actions(self) -> list[Action]:
        return [*(Call(c) for c in self.cards), *((Call(None),) if self.alone else ())]

    def only(self) -> Action | None:
        if len(self.cards) + self.alone != 1:
            return None
        return Call(self.cards[0] if self.cards else None)

    def sample(self, rng: random.Random) -> Action:
        i = int(rng.random() * (len(self.cards) + self.alone))  # (uniform as ``_pick``, without building every call)
        return Call(self.cards[i] if i < len(self.cards) else None)

    def to_wire(self) -> LegalForm:
        """The legal call as a constraint: the cards that may be called, and whether alone is one."""
        return {"cards": cards_str(self.cards), "alone": self.alone}

    def explain(self) -> str:
        text = "call one of [" + " ".join(cards_str(self.cards)) + "]"
        return text + (" or go alone" if self.alone else "")


_WIDOW_OPTIONS: tuple[Action, ...] = (TakeWidow(True), TakeWidow(False))


class WidowChoice(Choice):
    """Take up the widow, or leave it face down (two options, listed on the wire)."""

    kind = "take_widow"
    __slots__ = ("seat",)

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def is_legal(self, action: object) -> bool:
        return type(action) is TakeWidow and type(action.take) is bool

    def actions(self) -> list[Action]:
        return list(_WIDOW_OPTIONS)

    def only(self) -> Action | None:
        return None

    def sample(self, rng: random.Random) -> Action:
        return _pick(rng, _WIDOW_OPTIONS)

    def explain(self) -> str:
        return "take up the widow (take_widow) or leave it face down (leave_widow)"


class PlayChoice(Choice):
    """Play one of ``cards``; a long hand in the first trick adds
    ``under_count`` distinct cards of ``under_from`` other than the top."""

    kind = "play"
    __slots__ = ("seat", "cards", "under_count", "under_from")

    def __init__(self, seat: int, cards: tuple[Card, ...], under_count: int = 0, under_from: tuple[Card, ...] = ()) -> None:
        self.seat = seat
        self.cards = cards
        self.under_count = under_count
        self.under_from = under_from

    def is_legal(self, action: object) -> bool:
        if type(action) is not Play or type(action.card) is not int or action.card not in self.cards:
            return False
        under = action.under
        if type(under) is tuple and not under:  # the common case: no cards under
            return self.under_count == 0
        return (
            _all_cards(under)
            and len(under) == self.under_count
            and action.card not in under
            and all(c in self.under_from for c in under)
        )

    @property
    def enumerable(self) -> bool:
        return self.under_count == 0

    def actions(self) -> list[Action]:
        if not self.under_count:
            return [PLAY_CARD[c] for c in self.cards]
        out: list[Action] = []
        for top in self.cards:
            pool = [c for c in self.under_from if c != top]
            out.extend(Play(top, tuple(sorted(u))) for u in combinations(pool, self.under_count))
        return out

    def only(self) -> Action | None:
        if self.under_count == 0:
            return PLAY_CARD[self.cards[0]] if len(self.cards) == 1 else None
        # counted, not listed: a long hand's options can run to thousands
        n = sum(comb(sum(1 for c in self.under_from if c != top), self.under_count) for top in self.cards)
        return self.actions()[0] if n == 1 else None

    def sample(self, rng: random.Random) -> Action:
        top = _pick(rng, self.cards)
        if not self.under_count:
            return PLAY_CARD[top]
        pool = [c for c in self.under_from if c != top]
        return Play(top, tuple(sorted(rng.sample(pool, self.under_count))))

    def explain(self) -> str:
        text = "play one of [" + " ".join(cards_str(self.cards)) + "]"
        if self.under_count:
            text += (
                f" with {self.under_count} other card(s) under it from"
                f" [{' '.join(cards_str(self.under_from))}]"
            )
        return text


def action_to_dict(action: Action) -> ActionForm:
    """The JSON form of an action (an ``ActionForm``), shared by records and the bot protocol: a plain
    dict, to which a record adds the event's seat and whether it was forced."""
    if type(action) is Play and not action.under:  # the most common action, first
        return {"type": "play", "card": CARD_NAMES[action.card]}
    to_dict = _TO_DICT.get(type(action))
    if to_dict is None:  # a subclass of an action's type: found the long way
        to_dict = next((f for t, f in _TO_DICT.items() if isinstance(action, t)), None)
        if to_dict is None:
            raise TypeError(f"not an action: {action!r}")
    return to_dict(action)


def _play_dict(action: Any) -> ActionForm:
    d: ActionForm = {"type": "play", "card": card_str(action.card)}
    if action.under:
        d["under"] = cards_str(action.under)
    return d


def _bid_dict(action: Any) -> ActionForm:
    if action.suit is not None:
        return {"type": "bid", "amount": action.amount, "suit": SUITS[action.suit]}
    return {"type": "bid", "amount": action.amount}


#: The JSON form of each kind of action, by its exact type (one lookup where a chain of
#: ``isinstance`` tests cost a deal's record of five discards and a call a dozen tests each).
_TO_DICT: dict[type, Callable[[Any], ActionForm]] = {
    Play: _play_dict,
    Bid: _bid_dict,
    Pass: lambda a: {"type": "pass"},
    NameTrump: lambda a: {"type": "trump", "suit": SUITS[a.suit]},
    Rob: lambda a: {"type": "rob", "take": cards_str(a.take)},
    Discard: lambda a: {"type": "discard", "cards": cards_str(a.cards)},
    Call: lambda a: {"type": "call", "alone": True} if a.card is None else {"type": "call", "card": card_str(a.card)},
    TakeWidow: lambda a: {"type": "take_widow" if a.take else "leave_widow"},
}


def _need(d: Mapping[str, object], kind: object, field: str) -> object:
    value = d.get(field)
    if value is None:
        raise ValueError(f"action of type {kind!r} is missing field {field!r}")
    return value


def action_from_dict(d: Mapping[str, object]) -> Action:
    """Parse the JSON form; raise ValueError naming what is wrong.

    A field set to None counts as absent, so a validated protocol model's
    fields can be passed as they are. This runs once per bot decision.
    """
    if not isinstance(d, dict):
        raise ValueError(f"an action must be an object, got {type(d).__name__}")
    kind = d.get("type")
    try:
        if kind == "play":
            under = d.get("under") or []
            if not isinstance(under, list):
                raise ValueError("'under' must be a list of cards")
            card = parse_card(_need(d, kind, "card"))  # type: ignore[arg-type]
            return PLAY_CARD[card] if not under else Play(card, tuple(parse_cards(under)))
        if kind == "bid":
            amount = _need(d, kind, "amount")
            if not isinstance(amount, int) or isinstance(amount, bool):
                raise ValueError(f"bid amount must be an integer, got {amount!r}")
            suit = d.get("suit")
            return Bid(amount) if suit is None else Bid(amount, parse_suit(suit))
        if kind == "pass":
            return PASS
        if kind == "trump":
            return NameTrump(parse_suit(_need(d, kind, "suit")))  # type: ignore[arg-type]
        if kind == "rob":
            take = d.get("take")
            if not isinstance(take, list):
                raise ValueError("'take' must be a list of cards")
            return Rob(tuple(sorted(parse_cards(take))))
        if kind == "discard":
            cards = d.get("cards")
            if not isinstance(cards, list):
                raise ValueError("'cards' must be a list of cards")
            return Discard(tuple(parse_cards(cards)))
        if kind == "call":
            if d.get("alone") is True and d.get("card") is None:
                return Call(None)
            if d.get("alone"):
                raise ValueError("a call names a card or goes alone, not both")
            return Call(parse_card(_need(d, kind, "card")))  # type: ignore[arg-type]
        if kind in ("take_widow", "leave_widow"):
            return TakeWidow(kind == "take_widow")
        registered = _FROM_DICT.get(kind) if type(kind) is str else None
        if registered is not None:  # a decision kind registered at run time reads its own
            action: Action = registered(d)
            return action
    except (AttributeError, TypeError):
        shown = {k: v for k, v in d.items() if v is not None}
        raise ValueError(f"malformed {kind!r} action: {shown!r}") from None
    expected = ", ".join((*CORE_ACTION_TYPES[:-1], *_FROM_DICT)) + f" or {CORE_ACTION_TYPES[-1]}"
    raise ValueError(f"unknown action type {kind!r} (expected {expected})")


#: The action types of the decision kinds the engine's own deal machine asks (the record's and the
#: protocol's ``type``), in the order its messages list them.
CORE_ACTION_TYPES = ("pass", "bid", "trump", "discard", "rob", "call", "take_widow", "leave_widow", "play")
_FROM_DICT: dict[str, Callable[[Mapping[str, object]], Any]] = {}


def register_action(cls: type, types: Sequence[str], to_dict: Callable[[Any], ActionForm],
                    from_dict: Callable[[Mapping[str, object]], Any]) -> None:
    """Make the actions of a decision kind registered at run time (``kinds.register_kind``) readable and
    writable in their JSON form: ``cls`` is written by ``to_dict``, each of ``types`` read by ``from_dict``."""
    clash = [t for t in types if t in CORE_ACTION_TYPES]
    if clash or cls in _TO_DICT and cls not in _REGISTERED_CLASSES:
        raise ValueError(f"action types {clash or [cls.__name__]} are the engine's own")
    _TO_DICT[cls] = to_dict
    _REGISTERED_CLASSES.add(cls)
    for t in types:
        _FROM_DICT[t] = from_dict


def unregister_action(cls: type, types: Sequence[str]) -> None:
    """Forget what ``register_action`` registered (a test's toy kind)."""
    if cls in _REGISTERED_CLASSES:
        _REGISTERED_CLASSES.discard(cls)
        _TO_DICT.pop(cls, None)
    for t in types:
        _FROM_DICT.pop(t, None)


def action_types() -> tuple[str, ...]:
    """Every action type an action's JSON form may have: the core ones, then those registered."""
    return CORE_ACTION_TYPES + tuple(_FROM_DICT)


_REGISTERED_CLASSES: set[type] = set()
