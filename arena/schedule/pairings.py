"""Pairings: which two partnerships meet, keyed by bot identity.

A pairing is two sides of two bots each. Its key is built from the bots'
identities (name plus digest), never from list positions, so reordering or
extending the entries keeps every finished pairing's key, and an extended
tournament plays only what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

from ..players import BotEntry


@dataclass(frozen=True)
class Pairing:
    side_a: tuple[BotEntry, BotEntry]
    side_b: tuple[BotEntry, BotEntry]

    @property
    def key(self) -> str:
        a = "+".join(e.ident for e in self.side_a)
        b = "+".join(e.ident for e in self.side_b)
        return f"{a}~{b}"

    @property
    def bots(self) -> list[BotEntry]:
        return [*self.side_a, *self.side_b]


def _by_ident(entries: Sequence[BotEntry]) -> list[BotEntry]:
    return sorted(entries, key=lambda e: e.ident)


def round_robin(entries: Sequence[BotEntry]) -> list[Pairing]:
    """Self-partnerships A+A vs B+B, each unordered pair once; A has the smaller ident."""
    return [Pairing((a, a), (b, b)) for a, b in combinations(_by_ident(entries), 2)]


def gauntlet(candidate: BotEntry, baselines: Sequence[BotEntry]) -> list[Pairing]:
    """Candidate+candidate (side A) against each baseline pair (side B)."""
    return [Pairing((candidate, candidate), (b, b)) for b in _by_ident(baselines)]


def mixed(entries: Sequence[BotEntry]) -> list[Pairing]:
    """Every 4-subset of distinct bots, split all three ways into two partnerships.

    For a subset w < x < y < z (by ident) the splits are wx~yz, wy~xz and
    wz~xy: side A always holds w, and each side lists its bots by ident.
    """
    out: list[Pairing] = []
    for w, x, y, z in combinations(_by_ident(entries), 4):
        out += [Pairing((w, x), (y, z)), Pairing((w, y), (x, z)), Pairing((w, z), (x, y))]
    return out


def plan_pairings(kind: str, entries: Sequence[BotEntry], candidate: BotEntry | None = None, baselines: Sequence[BotEntry] = ()) -> list[Pairing]:
    if kind == "round_robin":
        return round_robin(entries)
    if kind == "gauntlet":
        assert candidate is not None
        return gauntlet(candidate, baselines)
    if kind == "mixed":
        return mixed(entries)
    raise ValueError(f"unknown schedule {kind!r}")
