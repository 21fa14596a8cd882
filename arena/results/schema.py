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

from pydantic import BaseModel, ConfigDict, Field

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
    """One game of the block: ``BlockResult.game_dict(half)``."""

    model_config = ConfigDict(extra="forbid")
    id: str | None = Field(None, description="the game's stable id: game_id(pairing, block, half)")
    seats: list[BotRef] = Field(min_length=4, max_length=4, description="bot at seat 0..3")
    seeds: list[int] = Field(min_length=4, max_length=4, description="each seat's bot seed")
    side_a: int = Field(ge=0, le=1, description="engine side (0 = seats 0+2) where partnership A sits")
    winner: int | None = Field(description="engine side that won; null when unfinished or drawn")
    end: str = Field(description="target, bidder_out, deals, cap or forfeit")
    unfinished: bool
    scores: list[int] = Field(min_length=2, max_length=2, description="engine sides' final scores")
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
    block_key: str = Field(description="derive_key(seed, 'block', block): the deal key of both games")
    side_a: list[BotRef] = Field(min_length=2, max_length=2)
    side_b: list[BotRef] = Field(min_length=2, max_length=2)
    score_a: float = Field(ge=0, le=2, description="partnership A's points over the two games (win 1, unfinished 0.5)")
    games: list[GameLine] = Field(min_length=2, max_length=2)
    run: RunInfo

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @property
    def task_key(self) -> tuple[str, int]:
        return (self.pairing, self.block)

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True)
