"""The schema of one results line: one finished duplicate block.

These models are the boundary between the tournament runner and everything
that reads results (ratings, leaderboards, other tools): lines are validated
on the way out and on the way back in. Everything that can differ between
two runs of the same config sits under ``run``; the rest is a pure function
of the config and the bots.
"""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

SCHEMA_VERSION = 1


def game_id(pairing: str, block: int, half: int) -> str:
    """A game's stable id: a short hash of where it stands in the tournament.

    It depends only on the pairing key, the block index and the half, so it
    is the same in every run of the tournament and can name the game in
    ``arena replay``, ``arena reproduce`` and the leaderboards.
    """
    return hashlib.blake2b(f"{pairing}|{block}|{half}".encode(), digest_size=5).hexdigest()


class BotRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bot: str = Field(description="the bot's name")
    digest: str = Field(description="SHA-256 of the bot's folder")


class GameLine(BaseModel):
    """One game of the block: ``BlockResult.game_dict(half)``. At a table of n seats (a line
    with ``table``) the game is rotation ``half``, with n seats, a seat as winner, one score per
    seat and no ``side_a``."""

    model_config = ConfigDict(extra="forbid")
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
    faults: list[dict[str, Any]]
    record: dict[str, Any] = Field(description="the engine's game record: every deal's deck, events, points")


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
    reproduce: list[dict[str, Any]] = Field(
        default_factory=list, description="per fault: a shell command that replays it on this machine"
    )


class ResultLine(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_: int = Field(SCHEMA_VERSION, alias="schema")
    config_hash: str
    pairing: str = Field(description="pairing key: side A idents ~ side B idents")
    block: int = Field(ge=0)
    block_key: str = Field(description="derive_key(seed, 'block', block): the deal key of every game of the block")
    side_a: list[BotRef] | None = Field(None, min_length=2, max_length=2, description="partnership A (two pairs)")
    side_b: list[BotRef] | None = Field(None, min_length=2, max_length=2, description="partnership B (two pairs)")
    score_a: float | None = Field(None, ge=0, le=2, description="partnership A's points over the two games (win 1, unfinished 0.5)")
    table: list[BotRef] | None = Field(None, min_length=2, max_length=6, description="at a table of n seats: the"
                                       " entrants by seat in rotation 0 (rotation r seats entrant i at seat (i + r) mod n)")
    games: list[GameLine] = Field(min_length=2, max_length=6, description="two games, or one per rotation of a table")
    run: RunInfo

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="after")
    def _one_kind(self) -> "ResultLine":
        if self.table is not None:
            if self.side_a is not None or self.side_b is not None or self.score_a is not None:
                raise ValueError("a table's line has no partnerships (side_a, side_b, score_a)")
            if len(self.games) != len(self.table) or any(len(g.seats) != len(self.table) or g.side_a is not None
                                                         for g in self.games):
                raise ValueError(f"a table of {len(self.table)} plays {len(self.table)} games of {len(self.table)} seats")
        elif (self.side_a is None or self.side_b is None or self.score_a is None or len(self.games) != 2
              or any(len(g.seats) != 4 or g.side_a is None or len(g.scores) != 2 for g in self.games)):
            raise ValueError("a block of two pairs names side_a, side_b and score_a and has two games of four seats")
        return self

    @property
    def task_key(self) -> tuple[str, int]:
        return (self.pairing, self.block)

    def to_json(self) -> str:
        """The line as stored: a pairs line names no table, a table's line no partnerships."""
        if self.table is None:
            return self.model_dump_json(by_alias=True, exclude={"table"})
        return self.model_dump_json(by_alias=True, exclude={"side_a": True, "side_b": True, "score_a": True,
                                                            "games": {"__all__": {"side_a"}}})
