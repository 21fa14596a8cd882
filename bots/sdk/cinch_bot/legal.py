"""Legal-choice helpers: a uniform random legal action, and a legality check.

The ``legal`` dicts are the protocol's constrained choices (docs/protocol.md):
a rob is "take k of ``from``", a discard "``least`` to ``most`` of
``from``", a long first-trick hand is "a top card plus ``under`` cards of
``under_from`` other than the top", so these helpers sample and check the
constraints instead of enumerating combinations.
"""

from __future__ import annotations

import random
from typing import Any, Callable, NamedTuple


def random_legal(legal: dict[str, Any], kind: str, rng: random.Random) -> dict[str, Any]:
    """A legal action drawn with ``rng``: uniform over options for every kind.

    For bids the options are pass (if allowed) and each amount (each of the
    ``suited`` bids, where bids name their trump); for a rob,
    a uniformly random k-subset of ``from``; for a discard, a uniform count
    from ``least`` to ``most``, then that many cards of ``from``; for a play, a random top card,
    then a random set of ``under`` cards from ``under_from`` minus the top;
    for a kind a rule profile adds, ``other_legal``.
    """
    kind_of = KINDS.get(kind)
    return kind_of.sample(legal, rng) if kind_of is not None else other_legal(legal, kind, rng)


def bid_action(legal: dict[str, Any], amount: int, suit: str | None = None) -> dict[str, Any]:
    """The legal bid nearest ``amount`` (and ``suit``, where bids name their trump):
    that bid, else the cheapest legal bid above it in the suit, else the cheapest
    legal bid of all. Bids without a suit: ``amount`` as it is."""
    suited = legal.get("suited")
    if not suited:
        return {"type": "bid", "amount": amount}
    fits = [o for o in suited if o["amount"] >= amount and (suit is None or o["suit"] == suit)]
    best = min(fits or suited, key=lambda o: o["amount"])
    return {"type": "bid", "amount": best["amount"], "suit": best["suit"]}


def other_legal(legal: dict[str, Any], kind: str, rng: random.Random) -> dict[str, Any]:
    """A legal answer to a decision kind this SDK does not know (a rule profile's own).

    Such a choice lists its ``options`` when they are few (one is drawn with
    ``rng``) and always carries ``any``, one legal action (docs/protocol.md).
    """
    options = legal.get("options")
    if isinstance(options, list) and options:
        return dict(rng.choice(options))
    if isinstance(legal.get("any"), dict):
        return dict(legal["any"])
    raise ValueError(f"decision kind {kind!r} is unknown and its legal choice offers neither options nor any")


def is_legal(action: dict[str, Any], legal: dict[str, Any], kind: str) -> bool:
    """Whether ``action`` satisfies the constrained choice ``legal`` of ``kind``."""
    t = action.get("type") if isinstance(action, dict) else None
    kind_of = KINDS.get(kind)
    if kind_of is not None:
        return kind_of.check(action, t, legal)
    options = legal.get("options")
    if isinstance(options, list):
        return action in options
    return action == legal.get("any")


def _sample_bid(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    if legal.get("suited"):  # bids that name their trump (oregon)
        suited: list[dict[str, Any] | None] = ([None] if legal.get("pass") else []) + list(legal["suited"])
        choice = rng.choice(suited)
        return {"type": "pass"} if choice is None else {"type": "bid", **choice}
    options: list[int | None] = ([None] if legal.get("pass") else []) + list(legal.get("bids", []))
    pick = rng.choice(options)
    return {"type": "pass"} if pick is None else {"type": "bid", "amount": pick}


def _check_bid(action: dict[str, Any], t: Any, legal: dict[str, Any]) -> bool:
    if t == "pass":
        return bool(legal.get("pass"))
    if legal.get("suited"):
        return t == "bid" and {"amount": action.get("amount"), "suit": action.get("suit")} in legal["suited"]
    return t == "bid" and action.get("amount") in legal.get("bids", [])


def _sample_play(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    top = rng.choice(list(legal["cards"]))
    n = int(legal.get("under") or 0)
    if not n:
        return {"type": "play", "card": top}
    pool = [c for c in legal.get("under_from", []) if c != top]
    return {"type": "play", "card": top, "under": rng.sample(pool, n)}


def _check_play(action: dict[str, Any], t: Any, legal: dict[str, Any]) -> bool:
    if t != "play" or action.get("card") not in legal["cards"]:
        return False
    under = action.get("under") or []
    n = int(legal.get("under") or 0)
    if len(under) != n or len(set(under)) != n:
        return False
    return all(c in legal.get("under_from", []) and c != action["card"] for c in under)


def _check_rob(action: dict[str, Any], t: Any, legal: dict[str, Any]) -> bool:
    take = action.get("take") if t == "rob" else None
    if not isinstance(take, list):
        return False
    if legal.get("or_all") and sorted(take) == sorted(legal["or_all"]) and len(set(take)) == len(take):
        return True  # california: every trump of the stock instead
    return len(take) == legal["take"] and len(set(take)) == len(take) and all(c in legal["from"] for c in take)


def _sample_discard(legal: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    n = rng.randint(int(legal["least"]), int(legal["most"]))
    return {"type": "discard", "cards": rng.sample(list(legal["from"]), n)}


def _check_discard(action: dict[str, Any], t: Any, legal: dict[str, Any]) -> bool:
    cards = action.get("cards") if t == "discard" else None
    if not isinstance(cards, list):
        return False
    n = len(cards)
    return legal["least"] <= n <= legal["most"] and len(set(cards)) == n and all(c in legal["from"] for c in cards)


class Kind(NamedTuple):
    """What this SDK knows of one decision kind's constrained choice: how to draw and check an answer."""

    sample: Callable[[dict[str, Any], random.Random], dict[str, Any]]
    check: Callable[[dict[str, Any], Any, dict[str, Any]], bool]  # (action, its type, legal)


#: The decision kinds whose constraints this SDK reads (docs/protocol.md); any other kind is answered
#: from its ``options`` or ``any`` (``other_legal``). A new constrained kind is one entry here.
KINDS: dict[str, Kind] = {
    "bid": Kind(_sample_bid, _check_bid),
    "trump": Kind(lambda legal, rng: {"type": "trump", "suit": rng.choice(list(legal.get("suits") or "CDHS"))},
                  lambda action, t, legal: t == "trump" and action.get("suit") in (legal.get("suits") or "CDHS")),
    "rob": Kind(lambda legal, rng: {"type": "rob", "take": rng.sample(list(legal["from"]), int(legal["take"]))},
                _check_rob),
    "discard": Kind(_sample_discard, _check_discard),
    "play": Kind(_sample_play, _check_play),
}
