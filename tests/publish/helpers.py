"""Hand-built results lines for the publish tests.

Lines are validated with the results schema (``ResultLine``), so the tests
exercise the same shape the runner writes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Sequence

from arena.results import BotRef, ResultLine, parse_line

#: the schema's key for a bot's name ("bot"; older drafts said "name")
NAME_KEY = "bot" if "bot" in BotRef.model_fields else "name"
PROFILE = {"name": "pagat62", "target": 62}


def digest(name: str) -> str:
    return (name.encode().hex() * 64)[:64]


def seat(name: str, dig: str | None = None) -> dict[str, str]:
    return {NAME_KEY: name, "digest": dig or digest(name)}


def game(seats: Sequence[str | dict[str, str]], side_a: int, winner: int | None, *, end: str = "target",
         scores: Sequence[int] = (62, 40), forfeit_by: int | None = None, faults: Sequence[dict[str, Any]] = (),
         fixed_deals: int | None = None) -> dict[str, Any]:
    """One game dict: ``seats`` by seat (names or seat dicts), ``side_a`` engine side of partnership A."""
    return {
        "seats": [s if isinstance(s, dict) else seat(s) for s in seats],
        "seeds": [1, 2, 3, 4],
        "side_a": side_a,
        "winner": winner,
        "end": end,
        "unfinished": end == "cap",
        "scores": list(scores),
        "forfeit_by": forfeit_by,
        "faults": list(faults),
        "record": {"format": "cinch-game", "version": 1, "profile": PROFILE, "max_deals": 200,
                   "fixed_deals": fixed_deals},
    }


def line(a: Sequence[str], b: Sequence[str], block: int, g0: dict[str, Any], g1: dict[str, Any],
         pairing: str | None = None) -> dict[str, Any]:
    """A results line for partnerships A and B; validated against the schema."""
    def total(g: dict[str, Any]) -> float:
        return 0.5 if g["winner"] is None else float(g["winner"] == g["side_a"])

    obj = {
        "schema": 1, "config_hash": "cafe" * 8,
        "pairing": pairing or f"{'+'.join(a)}~{'+'.join(b)}", "block": block, "block_key": f"key{block}",
        "side_a": [seat(x) for x in a], "side_b": [seat(x) for x in b],
        "score_a": total(g0) + total(g1), "games": [g0, g1], "run": {"wall_s": 1.0},
    }
    return parse_line(obj).model_dump(mode="json", by_alias=True)


def typed(lines: Sequence[dict[str, Any]]) -> list[ResultLine]:
    """Hand-built lines as the results store gives them to its readers."""
    return [parse_line(x) for x in lines]


def block(a: Sequence[str], b: Sequence[str], idx: int, w0: int | None, w1: int | None, **kw: Any) -> dict[str, Any]:
    """Standard seating: game 0 has A at seats 0+2 (side 0), game 1 at seats 1+3 (side 1).

    ``w0`` / ``w1`` are the engine-side winners of the two games.
    """
    a0, a1 = a
    b0, b1 = b
    g0 = game([a0, b0, a1, b1], 0, w0, **kw)
    g1 = game([b0, a0, b1, a1], 1, w1, **kw)
    return line(a, b, idx, g0, g1)


def tournament(rng: random.Random, strength: dict[str, float], blocks: int = 12) -> list[dict[str, Any]]:
    """Round robin of self-partnerships; a game is won with the logistic probability."""
    names = sorted(strength)
    out = []
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            p = 1.0 / (1.0 + 10 ** (-(strength[x] - strength[y]) / 400.0))
            for k in range(blocks):
                x_wins = [rng.random() < p for _ in range(2)]
                out.append(block((x, x), (y, y), k, 0 if x_wins[0] else 1, 1 if x_wins[1] else 0))
    return out


def write(path: Path, lines: Sequence[dict[str, Any]], tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + tail)
    return path


def meta(name: str = "unit", seed: str | None = "tseed", anchor: str | None = None) -> dict[str, Any]:
    """A tournament.json as ``arena run`` writes it."""
    return {
        "schema": 1, "name": name, "config_hash": "cafe" * 8, "seed": seed, "complete": seed is not None,
        "match": {"profile": PROFILE, "format": "game", "deals": 8, "max_deals": 200,
                  "time": {"startup_ms": 10000, "decision_ms": 1000, "bank_ms": 120000},
                  "sandbox": "none", "faults": {"mode": "forfeit", "strikes": 3}},
        "schedule": {"kind": "round_robin"}, "blocks": 12,
        "entries": [{"name": n, "digest": digest(n), "version": "2.5"} for n in ("alpha", "bravo", "charlie")],
        "deal_files": [], "anchor": anchor,
    }
