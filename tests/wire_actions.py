"""A fixed legal answer to a decide message (pagat62's kinds), for in-process test players."""

from __future__ import annotations

from typing import Any


def simple_action(kind: str, legal: dict[str, Any], pick: int = 0) -> dict[str, Any]:
    """Pass when allowed, else the lowest bid; the ``pick``-th suit and card (0 first, -1 last);
    the first cards of a rob; as many under cards as asked."""
    if kind == "bid":
        return {"type": "pass"} if legal["pass"] else {"type": "bid", "amount": legal["bids"][0]}
    if kind == "trump":
        return {"type": "trump", "suit": legal["suits"][pick]}
    if kind == "rob":
        return {"type": "rob", "take": legal["from"][: legal["take"]]}
    c = legal["cards"][pick]
    return {"type": "play", "card": c, "under": [x for x in legal["under_from"] if x != c][: legal["under"]]}
