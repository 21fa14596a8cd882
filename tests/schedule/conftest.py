"""Shared pieces: tiny deterministic bots, config writing, one Ray instance."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import yaml

from arena.players import BotEntry, Manifest, PolicyPlayer

TESTBOT = Path(__file__).resolve().parents[1] / "fixtures" / "testbot"
FIRST = TESTBOT / "first.yaml"
LAST = TESTBOT / "last.yaml"
FAST_MATCH: dict[str, Any] = {"sandbox": "none", "format": "deals", "deals": 2}


def write_config(folder: Path, name: str = "t", **fields: Any) -> Path:
    """A config file in ``folder``; entries default to the two tiny bots."""
    data: dict[str, Any] = {
        "name": name,
        "entries": [str(FIRST), str(LAST)],
        "seed": "test-seed",
        "blocks": 1,
        "match": dict(FAST_MATCH),
        "out": str(folder / "out"),
        "backend": "serial",
        "workers": 1,
    }
    data.update(fields)
    p = folder / "config.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


class Policy:
    """An in-process bot: first, last or seeded-random legal option."""

    def __init__(self, name: str, mode: str) -> None:
        self.name = name
        self.mode = mode
        self.rng = random.Random(0)

    def start_game(self, msg: dict, seed: int) -> None:
        self.rng = random.Random(seed)

    def _pick(self, options: list) -> Any:
        if self.mode == "first":
            return options[0]
        if self.mode == "last":
            return options[-1]
        return self.rng.choice(options)

    def decide(self, kind: str, view: dict, legal: dict) -> dict:
        if kind == "bid":
            opts = (["pass"] if legal["pass"] else []) + list(legal["bids"])
            choice = self._pick(opts)
            return {"type": "pass"} if choice == "pass" else {"type": "bid", "amount": choice}
        if kind == "trump":
            return {"type": "trump", "suit": self._pick(legal["suits"])}
        if kind == "rob":
            return {"type": "rob", "take": legal["from"][: legal["take"]]}
        if kind in ("discard", "call"):  # the tables' decisions (docs/rules.md 14): the one legal answer offered
            return legal["any"]
        card = self._pick(legal["cards"])
        under = [c for c in legal["under_from"] if c != card][: legal["under"]]
        return {"type": "play", "card": card, **({"under": under} if under else {})}


def fake_entry(name: str) -> BotEntry:
    """An entry for an in-process policy (never launched as a process)."""
    return BotEntry(manifest=Manifest(name=name, command=["none"]), dir="/nonexistent", digest=(name * 64)[:64])


def policy_factory(modes: dict[str, str]):
    return lambda entry, seed: PolicyPlayer(Policy(entry.name, modes[entry.name]), seed)


