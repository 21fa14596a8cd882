"""Every key a tournament derives from its seed, in one place and one argument order.

The seed is a ``Seed`` from the config to ``block_key``; from there a game's
deals, its bots' seeds, a table's seat order and a substitute's draw all
come from one ``DealKey``. Every derivation takes what it derives from first
and its indices after it, outer to inner (block, then game, then seat); its
label is its name, never an argument.

Each is ``engine.derive_key`` over the parts below. That text is a
specification (docs/records.md): it fixes every published block key, seed
and deal, so where a label stands in it is history kept, not a pattern:

==========================================  =========================================
``block_key(seed, b)``                      ``seed, "block", b``
``seat_key(key, ident)``                    ``key, "seat", ident``
``bot_seed(key, game, seat)``               ``"bot-seed", key, game, seat`` (mod 2**53)
``substitute_seed(key, deal, decision)``    ``"substitute", key, deal, decision``
``child_key(key, i)``                       ``key, i`` (the benchmarks' runs, which have no seed)
==========================================  =========================================
"""

from __future__ import annotations

from typing import NewType

from ..engine import DealKey as DealKey  # the engine's key type, named here with the keys derived from a seed
from ..engine import derive_key

#: A tournament's seed: text (secret while it runs, published after).
Seed = NewType("Seed", str)

SEED_LIMIT = 2**53  # bots' seeds stay exact in every JSON reader (JavaScript's numbers included)


def seed_text(value: object) -> object:
    """A seed written as an integer is its decimal text (the engine reads every key through
    ``str``, so 7 and "7" deal alike, and the config hash has always held text); anything else
    is left for the config's own check."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def block_key(seed: Seed, block: int) -> DealKey:
    """Block ``block``'s deal key, the same for every pairing: every pairing of a block plays the same deals."""
    return DealKey(derive_key(seed, "block", block))


def seat_key(key: DealKey, ident: str) -> str:
    """Where entrant ``ident`` sorts in the seat order of a table's block (lowest first)."""
    return derive_key(key, "seat", ident)


def bot_seed(key: DealKey, game: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in game ``game`` of the block (a half, or a table's rotation)."""
    return int(derive_key("bot-seed", key, game, seat), 16) % SEED_LIMIT


def substitute_seed(key: DealKey, deal: int, decision: int) -> int:
    """The seed of the draw that replaces a faulty reply (``faults: substitute``) at decision
    ``decision`` of deal ``deal``: the same game gets the same substitutes however it is run."""
    return int(derive_key("substitute", key, deal, decision), 16)


def child_key(key: str, index: int) -> DealKey:
    """The ``index``-th deal key under ``key``, without a label (a benchmark's blocks or games)."""
    return DealKey(derive_key(key, index))
