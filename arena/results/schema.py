"""The schema of one results line: one finished block, of two pairs or of a table.

These models are the boundary between the tournament runner and everything
that reads results (ratings, leaderboards, the site, the server): a line is
validated when it is written and when it is read back, and every reader gets
these objects and reads attributes. A line has one of two shapes, told apart
by the field it names (``table`` or the partnerships ``side_a``/``side_b``),
a pydantic discriminated union (``ResultLine``): ``PairsLine``, a duplicate
block of two partnerships swapped over two games, and ``TableLine``, a table
of n seats played once per rotation. What a reader needs of a game whatever
the shape, who sat where, the sides, how each finished, scores per seat, the
faults, is the line's ``Seating`` of that game: a new seating rule changes
that one class. Everything that can differ between two runs of the same
config sits under ``run``; the rest is a pure function of the config and
the bots.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Iterable, TypeVar, Union

from pydantic import (BaseModel, ConfigDict, Discriminator, Field, SerializerFunctionWrapHandler, Tag, TypeAdapter,
                      model_serializer, model_validator)

#: ``JsonObject``: a JSON object kept as the file wrote it (a game record's settings, a run's recorded
#: options), only carried and printed, never read field by field (those are models); the one alias.
from .._json import Json as Json, JsonObject as JsonObject

SCHEMA_VERSION = 1


def game_id(pairing: str, block: int, half: int) -> str:
    """A game's stable id: a short hash of where it stands in the tournament.

    It depends only on the pairing key, the block index and the half, so it
    is the same in every run of the tournament and can name the game in
    ``arena replay``, ``arena reproduce`` and the leaderboards.
    """
    return hashlib.blake2b(f"{pairing}|{block}|{half}".encode(), digest_size=5).hexdigest()


class BotRef(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    bot: str = Field(description="the bot's name")
    digest: str = Field(description="SHA-256 of the bot's folder")

    @property
    def ref(self) -> tuple[str, str]:
        """(name, digest): what a bot version is keyed by (``bot_ids``)."""
        return (self.bot, self.digest)


class _AsGiven(BaseModel):
    """A record stored with exactly the keys it was given (a hand-written line may name fewer): its
    defaults are for reading, never written."""

    @model_serializer(mode="wrap")
    def _as_given(self, handler: SerializerFunctionWrapHandler) -> Any:
        given, fields = self.model_fields_set, type(self).model_fields
        return {k: v for k, v in handler(self).items() if k in given or k not in fields}


class Fault(_AsGiven):
    """One fault of a game, as the judge recorded it (``match.game.SeatFault.to_dict``)."""

    model_config = ConfigDict(extra="allow", frozen=True)
    seat: int | None = None
    bot: str = "?"
    deal: int | None = None
    decision: int | None = None
    kind: str = "unknown"
    message: str = ""
    request: Any = None
    reply: Any = None
    substituted: str | None = None


class Reproduce(_AsGiven):
    """One fault with what replays it on the host that ran it (``match.reproduce.fault_commands``): under
    ``run``, never scored (a host's paths, its stderr tail)."""

    model_config = ConfigDict(extra="allow")
    game: int = Field(description="the game of the block (its half, or a table's rotation)")
    game_id: str | None = None
    seat: int
    bot: str
    kind: str
    message: str = ""
    reply: Any = None
    stderr: str | None = None
    command: str | None = None


class GameLine(BaseModel):
    """One game of the block: ``BlockResult.game_dict(half)``. At a table of n seats (a line
    with ``table``) the game is rotation ``half``, with n seats, a seat as winner, one score per
    seat and no ``side_a``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str | None = Field(None, description="the game's stable id: game_id(pairing, block, half)")
    seats: list[BotRef] = Field(min_length=2, max_length=6, description="bot at seat 0..n-1 (4 seats in two pairs)")
    seeds: list[int] = Field(min_length=2, max_length=6, description="each seat's bot seed")
    side_a: int | None = Field(None, ge=0, le=1, description="engine side (0 = seats 0+2) where partnership A sits;"
                               " absent at a table of n seats")
    winner: int | None = Field(description="engine side that won (a seat at a table of n seats); null when unfinished or drawn")
    end: str = Field(description="target, bidder_out, deals, cap or forfeit")
    unfinished: bool
    scores: list[int] = Field(min_length=2, max_length=6, description="engine sides' final scores (each seat's at a table of n seats)")
    forfeit_by: int | None = Field(description="seat whose fault forfeited the game")
    faults: list[Fault]
    record: dict[str, Any] = Field(description="the engine's game record: every deal's deck, events, points")

    def to_dict(self, table: bool = False) -> JsonObject:
        """The game as stored, its record the object read (not a copy: a copy of every deal's events would
        double a digest's cost); at a table without ``side_a``."""
        out = self.model_dump(exclude=_GAME_TABLE if table else _GAME_PAIRS)
        out["record"] = self.record
        return out


class RunInfo(BaseModel):
    """Run-dependent facts: timings, host, worker, attempt. Never scored."""

    model_config = ConfigDict(extra="allow")
    attempt: int = 1
    backend: str = ""
    host: str = ""
    pid: int = 0
    wall_s: float = 0.0
    finished_at: float = 0.0
    games: list[dict[str, Any]] = Field(default_factory=list, description="BlockResult.game_run(half)")
    reproduce: list[Reproduce] = Field(
        default_factory=list, description="per fault: a shell command that replays it on this machine"
    )


@dataclass(frozen=True, slots=True)
class Seating:
    """One game as every reader sees it, whatever the line's shape: who sat at each seat, the sides
    (the seats that win or lose together: two partnerships of two seats, or each seat of a table on
    its own), which side won, each side's and each seat's final score, and the faults by seat.

    A side is an index into ``sides``; at two pairs it is the engine side (seats 0+2 are side 0), at a
    table a seat. A game nobody won gives each side an equal share (``points``)."""

    game: GameLine
    half: int
    sides: tuple[tuple[int, ...], ...]
    side_a: int | None  # the side partnership A sits on (None at a table)

    @property
    def seats(self) -> list[BotRef]:
        return self.game.seats

    @property
    def winner(self) -> int | None:
        return self.game.winner

    @property
    def table(self) -> bool:
        """A table's game (each seat its own side)."""
        return self.side_a is None

    def side_of(self, seat: int) -> int:
        return seat % len(self.sides)

    def points(self, side: int) -> float:
        """The side's score in the game: 1 for the winner, 0 for the others, an equal share each when nobody won."""
        w = self.game.winner
        return 1.0 / len(self.sides) if w is None else float(w == side)

    def seat_points(self, seat: int) -> float:
        return self.points(self.side_of(seat))

    def seat_score(self, seat: int) -> int:
        """The seat's final score (its side's)."""
        return self.game.scores[self.side_of(seat)]

    def bots(self, side: int) -> list[BotRef]:
        """The bots of one side, seat by seat."""
        return [self.game.seats[s] for s in self.sides[side]]

    def opponents(self, seat: int) -> list[int]:
        """The seats not on the seat's side."""
        side = self.side_of(seat)
        return [s for s in range(len(self.game.seats)) if self.side_of(s) != side]

    def fault_seat(self, fault: Fault) -> int | None:
        """The seat a fault names, when it names a seat of this game."""
        s = fault.seat
        return s if s is not None and 0 <= s < len(self.game.seats) else None


class _Block(BaseModel):
    """What every results line names: which block of which pairing or table, under which config."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)
    shape: ClassVar[str]
    schema_: int = Field(SCHEMA_VERSION, alias="schema")
    config_hash: str
    pairing: str = Field(description="pairing key: side A idents ~ side B idents (at a table: table:idents)")
    block: int = Field(ge=0)
    block_key: str = Field(description="derive_key(seed, 'block', block): the deal key of every game of the block")

    @property
    def task_key(self) -> tuple[str, int]:
        return (self.pairing, self.block)

    @property
    def where(self) -> str:
        """How messages name the block: ``pairing#block``."""
        return f"{self.pairing}#{self.block}"


class PairsLine(_Block):
    """A duplicate block of two partnerships: two games of four seats on one deal key, the partnerships
    swapped between them (game ``h`` seats partnership A on engine side ``games[h].side_a``)."""

    shape: ClassVar[str] = "pairs"
    side_a: list[BotRef] = Field(min_length=2, max_length=2, description="partnership A (two pairs)")
    side_b: list[BotRef] = Field(min_length=2, max_length=2, description="partnership B (two pairs)")
    score_a: float = Field(ge=0, le=2, description="partnership A's points over the two games (win 1, unfinished 0.5)")
    games: list[GameLine] = Field(min_length=2, max_length=2, description="two games, partnerships swapped")
    run: RunInfo

    @model_validator(mode="after")
    def _two_pairs(self) -> "PairsLine":
        if any(len(g.seats) != 4 or g.side_a is None or len(g.scores) != 2 for g in self.games):
            raise ValueError("a block of two pairs names side_a, side_b and score_a and has two games of four seats")
        _check_seats(self.games, 2, 4)
        return self

    def seating(self, half: int) -> Seating:
        return Seating(self.games[half], half, PAIR_SIDES, self.games[half].side_a)

    def to_dict(self) -> JsonObject:
        """The line as stored (``json.loads`` of ``to_json``), the games' records as read."""
        return _line_dict(self, False)

    def to_json(self) -> str:
        """The line as stored: a pairs line names no table."""
        return self.model_dump_json(by_alias=True)


class TableLine(_Block):
    """A block at a table of n seats: one game per rotation (rotation r seats entrant i at seat
    (i + r) mod n), each seat for itself (or, at a called-partner table, a partnership deal by deal)."""

    shape: ClassVar[str] = "table"
    table: list[BotRef] = Field(min_length=2, max_length=6, description="at a table of n seats: the entrants by"
                                " seat in rotation 0 (rotation r seats entrant i at seat (i + r) mod n)")
    games: list[GameLine] = Field(min_length=2, max_length=6, description="one game per rotation of the table")
    run: RunInfo

    @model_validator(mode="after")
    def _table(self) -> "TableLine":
        n = len(self.table)
        if len(self.games) != n or any(len(g.seats) != n or g.side_a is not None for g in self.games):
            raise ValueError(f"a table of {n} plays {n} games of {n} seats")
        if any(len(g.scores) != n for g in self.games):
            raise ValueError("a table's game has one score per seat")
        _check_seats(self.games, n, n)
        return self

    def seating(self, half: int) -> Seating:
        n = len(self.games[half].seats)
        return Seating(self.games[half], half, TABLE_SIDES[n], None)

    def to_dict(self) -> JsonObject:
        """The line as stored (``json.loads`` of ``to_json``), the games' records as read."""
        return _line_dict(self, True)

    def to_json(self) -> str:
        """The line as stored: a table's line names no partnerships."""
        return self.model_dump_json(by_alias=True, exclude=_TABLE_EXCLUDE)


def _check_seats(games: list[GameLine], sides: int, seats: int) -> None:
    """The winner names a side and ``forfeit_by`` a seat of the game."""
    for h, g in enumerate(games):
        if g.winner is not None and not 0 <= g.winner < sides:
            raise ValueError(f"game {h}: winner must be a side 0..{sides - 1} or null, got {g.winner}")
        if g.forfeit_by is not None and not 0 <= g.forfeit_by < seats:
            raise ValueError(f"game {h}: forfeit_by must be a seat 0..{seats - 1}, got {g.forfeit_by}")


PAIR_SIDES: tuple[tuple[int, ...], ...] = ((0, 2), (1, 3))
TABLE_SIDES: dict[int, tuple[tuple[int, ...], ...]] = {n: tuple((s,) for s in range(n)) for n in range(2, 7)}
_TABLE_EXCLUDE: Any = {"games": {"__all__": {"side_a"}}}
_GAME_PAIRS, _GAME_TABLE = {"record"}, {"record", "side_a"}


def _line_dict(line: PairsLine | TableLine, table: bool, run: bool = True) -> JsonObject:
    out = line.model_dump(by_alias=True, exclude={"games", "run"})
    out["games"] = [g.to_dict(table) for g in line.games]
    if run:
        out["run"] = line.run.model_dump()
    return out


def scored_dict(line: PairsLine | TableLine) -> JsonObject:
    """The line as stored without its run-dependent part (``run``): what two runs of a tournament share."""
    return _line_dict(line, isinstance(line, TableLine), run=False)


def _shape(v: Any) -> str:
    if isinstance(v, dict):
        return "table" if v.get("table") is not None else "pairs"
    return str(getattr(v, "shape", "pairs"))


#: a results line: the union of the two shapes, told apart by ``table``
ResultLine = Annotated[Union[Annotated[PairsLine, Tag("pairs")], Annotated[TableLine, Tag("table")]],
                       Discriminator(_shape)]
RESULT_LINE: TypeAdapter[PairsLine | TableLine] = TypeAdapter(ResultLine)


def parse_line(obj: Any) -> PairsLine | TableLine:
    """A results line from its JSON object, validated (``pydantic.ValidationError`` when it is not one)."""
    return RESULT_LINE.validate_python(obj)


M = TypeVar("M", bound=BaseModel)


def _construct(cls: type[M], values: dict[str, object], shared: dict[Any, Any]) -> M:
    """``cls.model_construct(**values)``; a frozen model's set of given fields is one set object for every
    model of ``cls`` built from the same keys across ``shared`` (a set for each of a line's games, its
    faults and the line itself: about 3 KB a line of a site's ledger). A model that is not frozen gets its
    own (setting a field adds to that set)."""
    if not cls.model_config.get("frozen"):
        return cls.model_construct(None, **values)
    key = ("\0fields", cls, tuple(values))
    given = shared.get(key)
    if given is None:
        m = cls.model_construct(None, **values)
        shared[key] = m.model_fields_set
        return m
    return cls.model_construct(given, **values)


def trusted_line(obj: dict[str, Any], shared: dict[Any, Any]) -> PairsLine | TableLine:
    """A line this code wrote itself from a line it had checked (a site's ledger), built without the checks:
    thousands of them are read at every rebuild. Equal seats are one ``BotRef`` across the lines sharing
    ``shared`` (a ledger of 10,000 lines would otherwise hold 20,000 copies of each bot's seat), and so is
    each kind of model's set of given fields (``_construct``)."""
    def ref(d: dict[str, Any]) -> BotRef:
        key = (d["bot"], d["digest"])
        got = shared.get(key)
        if got is None:
            got = shared[key] = BotRef.model_construct(bot=d["bot"], digest=d["digest"])
        return got

    def game(g: dict[str, Any]) -> GameLine:
        return _construct(GameLine, {**g, "seats": [ref(s) for s in g["seats"]],
                                     "faults": [_construct(Fault, f, shared) for f in g["faults"]]}, shared)

    top = {k: v for k, v in obj.items() if k != "schema"}
    top["schema_"] = obj.get("schema", SCHEMA_VERSION)
    top["games"] = [game(g) for g in obj["games"]]
    run = dict(obj.get("run") or {})
    run["reproduce"] = [Reproduce.model_construct(**r) for r in run.get("reproduce") or []]
    top["run"] = RunInfo.model_construct(**run)
    if obj.get("table") is not None:
        top["table"] = [ref(s) for s in obj["table"]]
        return _construct(TableLine, top, shared)
    top["side_a"], top["side_b"] = [ref(s) for s in obj["side_a"]], [ref(s) for s in obj["side_b"]]
    return _construct(PairsLine, top, shared)


def seatings(line: PairsLine | TableLine) -> Iterable[Seating]:
    """Every game of the line, as its ``Seating``."""
    return (line.seating(h) for h in range(len(line.games)))
