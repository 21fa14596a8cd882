"""Plain-data inputs for the ratings math.

Conventions (binding for everything in :mod:`arena.ratings`):

* ``side_a`` / ``side_b`` are the two partnerships of one game, each a pair of
  bot ids (the same id twice for a self-partnership).
* In a duplicate block the two games use the same deals and the partnerships
  swap seats.  "Side A" names the same *seats* (hence the same cards) in both
  halves, so ``games[1].side_a`` is the partnership that was ``side_b`` in
  ``games[0]``.  :class:`BlockOutcome` checks this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

#: Flags that mark a game stopped without a winner; these must be draws.
DRAW_FLAGS: frozenset[str] = frozenset({"capped", "drawn_deals"})
#: Fault kinds the harness reports; unknown kinds are still counted.
FAULT_KINDS: tuple[str, ...] = ("timeout", "crash", "illegal", "malformed", "protocol", "sandbox")

_SCORES = (0.0, 0.5, 1.0)


def _pair(value: Iterable[str], name: str) -> tuple[str, str]:
    """Normalise a partnership to a 2-tuple (JSON gives lists)."""
    t = tuple(value)
    if len(t) != 2 or not all(isinstance(b, str) and b for b in t):
        raise ValueError(f"{name} must be two non-empty bot ids, got {value!r}")
    return t


@dataclass(frozen=True)
class GameOutcome:
    """Result of one game from side A's point of view."""

    side_a: tuple[str, str]
    side_b: tuple[str, str]
    score_a: float
    flag: str | None = None
    forfeit_by: str | None = None
    points_diff: float | None = None
    faults: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "side_a", _pair(self.side_a, "side_a"))
        object.__setattr__(self, "side_b", _pair(self.side_b, "side_b"))
        score = float(self.score_a)
        if score not in _SCORES:
            raise ValueError(f"score_a must be 1.0, 0.5 or 0.0, got {self.score_a!r}")
        object.__setattr__(self, "score_a", score)
        if self.flag in DRAW_FLAGS and score != 0.5:
            raise ValueError(f"flag {self.flag!r} marks a draw but score_a={score}")
        if self.forfeit_by is not None:
            in_a = self.forfeit_by in self.side_a
            in_b = self.forfeit_by in self.side_b
            if not (in_a or in_b):
                raise ValueError(f"forfeit_by {self.forfeit_by!r} is not in this game")
            if in_a and not in_b and score != 0.0:
                raise ValueError("a forfeit by side A must be a loss for side A")
            if in_b and not in_a and score != 1.0:
                raise ValueError("a forfeit by side B must be a win for side A")
        faults = tuple((str(b), str(k)) for b, k in self.faults)
        object.__setattr__(self, "faults", faults)
        if self.points_diff is not None:
            object.__setattr__(self, "points_diff", float(self.points_diff))

    def to_dict(self) -> dict[str, Any]:
        return {
            "side_a": list(self.side_a),
            "side_b": list(self.side_b),
            "score_a": self.score_a,
            "flag": self.flag,
            "forfeit_by": self.forfeit_by,
            "points_diff": self.points_diff,
            "faults": [list(f) for f in self.faults],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GameOutcome":
        return cls(
            side_a=tuple(d["side_a"]),
            side_b=tuple(d["side_b"]),
            score_a=d["score_a"],
            flag=d.get("flag"),
            forfeit_by=d.get("forfeit_by"),
            points_diff=d.get("points_diff"),
            faults=tuple(tuple(f) for f in d.get("faults", ())),
        )


@dataclass(frozen=True)
class BlockOutcome:
    """Two games on the same deals with the partnerships swapped."""

    block_id: str
    pairing_id: str
    games: tuple[GameOutcome, GameOutcome]

    def __post_init__(self) -> None:
        games = tuple(self.games)
        if len(games) != 2:
            raise ValueError("a duplicate block has exactly two games")
        g1, g2 = games
        if sorted(g2.side_a) != sorted(g1.side_b) or sorted(g2.side_b) != sorted(g1.side_a):
            raise ValueError(
                f"block {self.block_id}: game 2 must swap the partnerships of game 1 "
                "(games[1].side_a == games[0].side_b)"
            )
        object.__setattr__(self, "games", games)

    @property
    def deal_key(self) -> str:
        """The deals this block was played on, shared by every pairing.

        Results ids are "pairing#block" and block i of every pairing uses the
        same deals, so the key is the part after the last "#" (the whole id
        when there is none: then every block is its own key).
        """
        head, sep, tail = self.block_id.rpartition("#")
        return tail if sep else self.block_id

    @property
    def same_cards_scores(self) -> tuple[float, float]:
        """(x1, x2): scores of the two partnerships that held the seat-A cards.

        x1 is partnership P (side A of game 1) in game 1, x2 is partnership Q
        (side A of game 2) in game 2: same cards, different players.
        """
        return self.games[0].score_a, self.games[1].score_a

    def total_for(self, partnership: tuple[str, str]) -> float:
        """Total score (0..2) of ``partnership`` over both halves."""
        key = sorted(partnership)
        g1, g2 = self.games
        if sorted(g1.side_a) == key:
            return g1.score_a + (1.0 - g2.score_a)
        if sorted(g1.side_b) == key:
            return (1.0 - g1.score_a) + g2.score_a
        raise ValueError(f"partnership {partnership!r} did not play block {self.block_id}")

    def points_for(self, partnership: tuple[str, str]) -> float:
        """Sum of ``partnership``'s points differences over both halves."""
        key = sorted(partnership)
        g1, g2 = self.games
        if g1.points_diff is None or g2.points_diff is None:
            raise ValueError(f"block {self.block_id} has no points_diff")
        if sorted(g1.side_a) == key:
            return g1.points_diff - g2.points_diff
        if sorted(g1.side_b) == key:
            return g2.points_diff - g1.points_diff
        raise ValueError(f"partnership {partnership!r} did not play block {self.block_id}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "block_id": self.block_id,
            "pairing_id": self.pairing_id,
            "games": [g.to_dict() for g in self.games],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "BlockOutcome":
        g = d["games"]
        return cls(d["block_id"], d["pairing_id"], (GameOutcome.from_dict(g[0]), GameOutcome.from_dict(g[1])))
