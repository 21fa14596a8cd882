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
    label: str = ""  # names the pairing's role where the bots alone do not (an SPRT matchup)

    @property
    def key(self) -> str:
        a = "+".join(e.ident for e in self.side_a)
        b = "+".join(e.ident for e in self.side_b)
        return f"{self.label}:{a}~{b}" if self.label else f"{a}~{b}"

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


SPRT_MATCHUPS = ("pair", "mixed")


def sprt_matchups(candidate: BotEntry, baseline: BotEntry, matchups: Sequence[str] = SPRT_MATCHUPS) -> list[Pairing]:
    """The SPRT's matchups, the candidate side always side A.

    ``pair``: candidate+candidate vs baseline+baseline; ``mixed``:
    candidate+baseline vs baseline+baseline. The key carries the matchup,
    so even a bot tested against a copy of itself has distinct pairings.
    """
    sides = {"pair": (candidate, candidate), "mixed": (candidate, baseline)}
    return [Pairing(sides[m], (baseline, baseline), label=f"sprt-{m}") for m in matchups]


def matchup_of(pairing_key: str) -> str | None:
    """The SPRT matchup a pairing key belongs to, or None for other schedules."""
    label = pairing_key.split(":", 1)[0] if ":" in pairing_key else ""
    return label[5:] if label.startswith("sprt-") else None


def plan_pairings(kind: str, entries: Sequence[BotEntry], candidate: BotEntry | None = None,
                  baselines: Sequence[BotEntry] = (), matchups: Sequence[str] = SPRT_MATCHUPS) -> list[Pairing]:
    if kind == "sprt":
        assert candidate is not None and len(baselines) == 1
        return sprt_matchups(candidate, baselines[0], matchups)
    if kind == "round_robin":
        return round_robin(entries)
    if kind == "gauntlet":
        assert candidate is not None
        return gauntlet(candidate, baselines)
    if kind == "mixed":
        return mixed(entries)
    raise ValueError(f"unknown schedule {kind!r}")
