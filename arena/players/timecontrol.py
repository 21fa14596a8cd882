"""Time control of one seat: the allowances a bot process is judged against.

It lives with the players because judging time is the player's job (its
CPU clock, its bank); a match only chooses the numbers.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TimeSettings(BaseModel):
    """Limits are judged on the bot's own CPU time (its whole process tree);
    ``wall_factor`` sets the wall-clock ceiling on top."""

    model_config = ConfigDict(extra="forbid")

    startup_ms: int = Field(10_000, gt=0, description="process start to handshake reply (wall clock)")
    decision_ms: int = Field(1_000, gt=0, description="one decision, bot CPU time")
    bank_ms: int = Field(120_000, gt=0, description="whole game, bot CPU time")
    wall_factor: float = Field(3.0, ge=1.0, description="wall-clock ceiling = wall_factor x the CPU limit (+50 ms)")
    pause_idle: bool = Field(
        False, description="freeze a bot while it is not on move (CPU it uses off-move is charged to its next decision either way)"
    )
