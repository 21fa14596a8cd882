"""Everything that shapes how one game is played, as validated data.

The tournament config embeds these models, so a bad value is reported with
its field name before anything runs.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..engine import DEFAULT_MAX_DEALS, RuleProfile
from ..sandbox import Level, Limits, effective_limits


class TimeSettings(BaseModel):
    """Time control. Limits are judged on the bot's own CPU time (its whole
    process tree); ``wall_factor`` sets the wall-clock ceiling on top."""

    model_config = ConfigDict(extra="forbid")

    startup_ms: int = Field(10_000, gt=0, description="process start to handshake reply (wall clock)")
    decision_ms: int = Field(1_000, gt=0, description="one decision, bot CPU time")
    bank_ms: int = Field(120_000, gt=0, description="whole game, bot CPU time")
    wall_factor: float = Field(3.0, ge=1.0, description="wall-clock ceiling = wall_factor x the CPU limit (+50 ms)")
    pause_idle: bool = Field(
        False, description="freeze a bot while it is not on move (CPU it uses off-move is charged to its next decision either way)"
    )


class FaultPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: Literal["forfeit", "substitute"] = Field(
        "forfeit", description="forfeit the game on a fault, or play a seeded legal action instead"
    )
    strikes: int = Field(3, ge=1, description="with 'substitute': faults a bot may make in a game before it forfeits")


class MatchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profile: RuleProfile = RuleProfile()
    format: Literal["game", "deals"] = "game"
    deals: int = Field(8, ge=1, description="deals per game in the 'deals' format")
    max_deals: int = Field(DEFAULT_MAX_DEALS, ge=1, description="deal cap of a 'game': beyond it the game is unfinished")
    time: TimeSettings = TimeSettings()
    sandbox: Level = Level.BWRAP
    limits: dict | None = Field(None, description="the competition's limits over the built-in defaults: a ceiling no manifest can lift")
    faults: FaultPolicy = FaultPolicy()
    reveal_players: bool = False

    @model_validator(mode="after")
    def _check(self) -> "MatchSettings":
        if self.limits is not None:
            Limits.model_validate({**Limits().model_dump(), **self.limits})
        return self

    def limits_for(self, manifest_limits: Limits | None) -> Limits:
        """The ceiling (config over defaults), lowered where the manifest asks for less.

        Raises LimitsError naming the field if the manifest asks for more or for none.
        """
        ceiling = Limits().merge(self.limits) if self.limits else Limits()
        return effective_limits(ceiling, manifest_limits)
