"""Every chance outcome of a game as a pure function of a deal key.

docs/rules.md section 3: the first dealer is F(key), the deck of deal k is
F(key, k) and the j-th reshuffle of the discard pile in deal k is
F(key, k, j) applied to the pile in sorted order. Nothing here keeps a
generator running through the game, so two games with the same key deal
the same decks however differently they are played (duplicate replay).

The functions are specified so that any language can reproduce them:

* ``stream(label, *parts)`` is SHAKE-256 of the UTF-8 text
  ``"cinch/v1|" + label + "|" + "|".join(str(p) for p in parts)``.
* a shuffle of ``n`` items reads ``8 * n`` bytes of the stream as
  little-endian unsigned 64-bit words ``w[0..n-1]`` and runs Fisher-Yates
  from the end: for ``i = n-1 .. 1``, swap items ``i`` and ``w[i] % (i+1)``.
* first dealer = ``w[0] % 4`` (``% n`` at a table of n seats) of ``stream("dealer", key)``;
  deck k = shuffle of cards ``0..51`` (``suit*13+rank``, suits C D H S,
  ranks 2..A) with ``stream("deck", key, k)``; under a profile with the
  joker, of cards ``0..52`` (52 is the joker: 53 words); reshuffle j of deal k =
  shuffle of the sorted pile with ``stream("reshuffle", key, k, j)``.

The key is used through ``str(key)``, so the integer 7 and the text "7"
are the same key.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import NewType, Protocol

from .cards import NUM_CARDS, Card

_PREFIX = "cinch/v1|"


def _words(label: str, parts: Sequence[object], n: int) -> tuple[int, ...]:
    text = _PREFIX + label + "|" + "|".join(map(str, parts))
    raw = hashlib.shake_256(text.encode("utf-8")).digest(8 * n)
    return struct.unpack(f"<{n}Q", raw)


def _shuffle(items: list[Card], label: str, parts: Sequence[object]) -> list[Card]:
    n = len(items)
    if n < 2:
        return items
    w = _words(label, parts, n)
    for i in range(n - 1, 0, -1):
        j = w[i] % (i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def first_dealer(key: object, players: int = 4) -> int:
    """The first dealer by lot: ``w[0] % players`` (four seats unless a profile has other)."""
    return _words("dealer", (key,), 1)[0] % players


def deck(key: object, k: int, cards: int = NUM_CARDS) -> list[Card]:
    """The deck of deal ``k`` over cards ``0..cards-1`` (53: with the joker),
    top card first (the cut is not simulated)."""
    return _shuffle(list(range(cards)), "deck", (key, k))


def reshuffle(key: object, k: int, j: int, pile: Sequence[Card]) -> list[Card]:
    """The j-th reshuffle of the discard pile in deal k; top card first."""
    return _shuffle(sorted(pile), "reshuffle", (key, k, j))


#: The key a game deals from (docs/rules.md section 3): a block's key (``match.keys.block_key``), or one
#: given by hand. Text: every function of chance reads its key through ``str``.
DealKey = NewType("DealKey", str)


def derive_key(*parts: object) -> str:
    """A child key from parts (e.g. tournament seed and block index).

    Hashing keeps derived keys unguessable from each other while staying a
    pure function of the parts.
    """
    text = _PREFIX + "key|" + "|".join(str(p) for p in parts)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


class DeckSource(Protocol):
    """Where a game's chance outcomes come from."""

    def first_dealer(self, players: int = 4) -> int:
        """The first dealer of a table of ``players`` seats."""
        ...

    def deck(self, k: int, cards: int = NUM_CARDS) -> list[Card]:
        """The deck of deal ``k``; ``cards`` is how many the profile shuffles (52, or 53 with the joker)."""
        ...

    def reshuffle(self, k: int, j: int, pile: Sequence[Card]) -> list[Card]: ...

    def origin(self, k: int) -> str:
        """``"key"`` for keyed deals, ``"file"`` for decks from a deal file,
        ``"key-after-file"`` for a keyed deal in a game that outlasted its file."""
        ...

    def reshuffle_key(self, k: int) -> str | None:
        """The key the reshuffles of deal ``k`` are drawn from (F(key, k, j)),
        recorded so a record can deal any reshuffle of the deal again; None
        when they come from no key."""
        ...


class KeyedSource:
    """The seeded stream of docs/rules.md section 3."""

    def __init__(self, key: DealKey) -> None:
        self.key = DealKey(str(key))

    def first_dealer(self, players: int = 4) -> int:
        return first_dealer(self.key, players)

    def deck(self, k: int, cards: int = NUM_CARDS) -> list[Card]:
        return deck(self.key, k, cards)

    def reshuffle(self, k: int, j: int, pile: Sequence[Card]) -> list[Card]:
        return reshuffle(self.key, k, j, pile)

    def origin(self, k: int) -> str:
        return "key"

    def reshuffle_key(self, k: int) -> str | None:
        return self.key
