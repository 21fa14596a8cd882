"""Plain-data inputs for the ratings math.

Conventions (binding for everything in :mod:`arena.ratings`):

* ``side_a`` / ``side_b`` are the two sides of one game (or contest), each a
  tuple of bot ids: a partnership of two at a four-seat table (the same id
  twice for a self-partnership), one to five bots at a table of other than
  four (docs/ratings.md, "Tables of n seats").
* In a duplicate block the two games use the same deals and the partnerships
  swap seats.  "Side A" names the same *seats* (hence the same cards) in both
  halves, so ``games[1].side_a`` is the partnership that was ``side_b`` in
  ``games[0]``.  :class:`BlockOutcome` checks this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, NotRequired, TypedDict

#: Flags that mark a game stopped without a winner; these must be draws.
DRAW_FLAGS: frozenset[str] = frozenset({"capped", "drawn_deals"})
#: Fault kinds the harness reports; unknown kinds are still counted.
FAULT_KINDS: tuple[str, ...] = ("timeout", "crash", "illegal", "malformed", "protocol", "sandbox")

_SCORES = (0.0, 0.5, 1.0)


#: Most bots on one side of a contest: the maker alone against five others at a table of six.
MAX_SIDE = 5


class GameOutcomeForm(TypedDict):
    """A ``GameOutcome`` as JSON (``to_dict``, ``from_dict``)."""

    side_a: list[str]
    side_b: list[str]
    score_a: float
    flag: str | None
    forfeit_by: str | None
    points_diff: float | None
    faults: list[list[str]]  # (bot, kind) pairs
    maker_a: NotRequired[bool]  # written only when true


class BlockOutcomeForm(TypedDict):
    """A ``BlockOutcome`` as JSON."""

    block_id: str
    pairing_id: str
    games: list[GameOutcomeForm]


def _side(value: Iterable[str], name: str) -> tuple[str, ...]:
    """Normalise a side to a tuple of 1..MAX_SIDE bot ids (JSON gives lists)."""
    t = tuple(value)
    if not 1 <= len(t) <= MAX_SIDE or not all(isinstance(b, str) and b for b in t):
        raise ValueError(f"{name} must be 1 to {MAX_SIDE} non-empty bot ids, got {value!r}")
    return t


@dataclass(frozen=True)
class GameOutcome:
    """Result of one game (or one contest of a table game) from side A's point of view.

    ``maker_a``: side A is the maker's side of a deal and side B the rest (a
    contest of a called-partner table), so the fit's maker term applies.
    """

    side_a: tuple[str, ...]
    side_b: tuple[str, ...]
    score_a: float
    flag: str | None = None
    forfeit_by: str | None = None
    points_diff: float | None = None
    faults: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    maker_a: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "side_a", _side(self.side_a, "side_a"))
        object.__setattr__(self, "side_b", _side(self.side_b, "side_b"))
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

    def to_dict(self) -> GameOutcomeForm:
        out: GameOutcomeForm = {
            "side_a": list(self.side_a),
            "side_b": list(self.side_b),
            "score_a": self.score_a,
            "flag": self.flag,
            "forfeit_by": self.forfeit_by,
            "points_diff": self.points_diff,
            "faults": [list(f) for f in self.faults],
        }
        if self.maker_a:
            out["maker_a"] = True
        return out

    @classmethod
    def from_dict(cls, d: GameOutcomeForm) -> "GameOutcome":
        return cls(
            side_a=tuple(d["side_a"]),
            side_b=tuple(d["side_b"]),
            score_a=d["score_a"],
            flag=d.get("flag"),
            forfeit_by=d.get("forfeit_by"),
            points_diff=d.get("points_diff"),
            faults=tuple(tuple(f) for f in d.get("faults", ())),  # type: ignore[misc]  # pairs: checked after
            maker_a=bool(d.get("maker_a", False)),
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
        if any(len(g.side_a) != 2 or len(g.side_b) != 2 for g in games):
            raise ValueError(f"block {self.block_id}: a duplicate block is played by two partnerships of two")
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
    def contests(self) -> tuple[GameOutcome, ...]:
        """What the fit counts: the two games."""
        return self.games

    @property
    def group(self) -> str:
        """Who played whom: the two partnerships (sorted labels), the stratum of a pairing bootstrap."""
        g = self.games[0]
        a, b = sorted("+".join(sorted(set(s))) for s in (g.side_a, g.side_b))
        return f"{a}~{b}"

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

    def to_dict(self) -> BlockOutcomeForm:
        return {
            "block_id": self.block_id,
            "pairing_id": self.pairing_id,
            "games": [g.to_dict() for g in self.games],
        }

    @classmethod
    def from_dict(cls, d: BlockOutcomeForm) -> "BlockOutcome":
        g = d["games"]
        return cls(d["block_id"], d["pairing_id"], (GameOutcome.from_dict(g[0]), GameOutcome.from_dict(g[1])))


@dataclass(frozen=True)
class TableGame:
    """One game at a table of n seats (docs/ratings.md, "Tables of n seats").

    ``seats``: the bot id at each seat; ``winner``: the seat that won, or None
    (a capped game, level deals-format scores, a forfeit); ``scores``: each
    seat's final score; ``forfeit_by``: the seat whose fault ended the game;
    ``contests``: what the fit counts (side against side: every two seats by
    their finish at cut-throat, each deal's maker side against the rest at a
    called-partner table, built by the caller).
    """

    seats: tuple[str, ...]
    winner: int | None
    scores: tuple[float, ...]
    contests: tuple[GameOutcome, ...] = ()
    flag: str | None = None
    forfeit_by: int | None = None
    faults: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    unfinished: bool = False  # capped: no finish to compare

    def __post_init__(self) -> None:
        n = len(self.seats)
        if not 2 <= n <= 6 or len(self.scores) != n:
            raise ValueError(f"a table game has 2 to 6 seats, each with a score (got {n} seats, {len(self.scores)} scores)")
        for name, seat in (("winner", self.winner), ("forfeit_by", self.forfeit_by)):
            if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
                raise ValueError(f"{name} must be a seat 0..{n - 1}, got {seat!r}")
        if self.winner is not None and self.forfeit_by is not None:
            raise ValueError("a forfeited table game has no winner")
        object.__setattr__(self, "contests", tuple(self.contests))
        object.__setattr__(self, "faults", tuple((str(b), str(k)) for b, k in self.faults))

    def finish(self, i: int, j: int) -> float:
        """Seat ``i``'s result against seat ``j`` by where they finished: 1 ahead, 0.5 level, 0 behind.

        The forfeiting seat finishes behind every other (which are level with each other: the
        game was cut short); the winner ahead of every other; the rest by final score; a capped
        game has no finish (all level).
        """
        if i == j:
            return 0.5
        if self.forfeit_by is not None:
            return 0.0 if i == self.forfeit_by else 1.0 if j == self.forfeit_by else 0.5
        if self.unfinished:
            return 0.5
        if self.winner is not None and self.winner in (i, j):
            return 1.0 if i == self.winner else 0.0
        a, b = self.scores[i], self.scores[j]
        return 1.0 if a > b else 0.0 if a < b else 0.5

    def standing(self, seat: int) -> float:
        """The share of the other seats ``seat`` finished ahead of (level counts half)."""
        n = len(self.seats)
        return sum(self.finish(seat, j) for j in range(n) if j != seat) / (n - 1)


@dataclass(frozen=True)
class TableBlock:
    """A table's block: the same deals played once per rotation, the entrants rotated through
    the seats so each holds each seat's cards once. ``table_id`` names the table (its
    entrants), the stratum of a by-table bootstrap; the deal key follows ``block_id`` as for
    ``BlockOutcome``."""

    block_id: str
    table_id: str
    games: tuple[TableGame, ...]

    def __post_init__(self) -> None:
        games = tuple(self.games)
        if not games:
            raise ValueError(f"block {self.block_id}: a table block has at least one game")
        who = sorted(games[0].seats)
        for r, g in enumerate(games):
            if sorted(g.seats) != who:
                raise ValueError(f"block {self.block_id}: rotation {r} seats {sorted(g.seats)}, not the table's {who}")
        object.__setattr__(self, "games", games)

    @property
    def deal_key(self) -> str:
        head, sep, tail = self.block_id.rpartition("#")
        return tail if sep else self.block_id

    @property
    def group(self) -> str:
        return self.table_id

    @property
    def entrants(self) -> list[str]:
        return sorted(set(self.games[0].seats))

    @property
    def contests(self) -> tuple[GameOutcome, ...]:
        return tuple(c for g in self.games for c in g.contests)

    def results(self, statistic: str = "standing") -> dict[str, list[float]]:
        """Each entrant's result in each rotation, in rotation order: its standing (the share of
        the others it finished ahead of) or its final score."""
        out: dict[str, list[float]] = {e: [] for e in self.entrants}
        for g in self.games:
            for s, bot in enumerate(g.seats):
                out[bot].append(g.standing(s) if statistic == "standing" else float(g.scores[s]))
        return out
