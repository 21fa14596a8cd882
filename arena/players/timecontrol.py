"""Time control of one seat: the allowances a bot process is judged against.

It lives with the players because judging time is the player's job (its
CPU clock, its bank); a match only chooses the numbers.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: Wall milliseconds added to ``wall_factor`` x the decision limit (the free mode's ceiling, the fixed mode's slot).
WALL_MARGIN_MS = 50


class TimeSettings(BaseModel):
    """Limits are judged on the bot's own CPU time (its whole process tree);
    ``wall_factor`` sets the wall-clock ceiling on top.

    ``tempo``: ``free`` hands each reply to the game as soon as it comes, so
    how long a seat takes is seen by the others (a partner can read it:
    docs/sandbox.md, Tempo); ``fixed`` releases every answer ``slot_ms``
    after its request, whoever took how long, and freezes seats not on move.
    """

    model_config = ConfigDict(extra="forbid")

    startup_ms: int = Field(10_000, gt=0, description="process start to handshake reply (wall clock)")
    decision_ms: int = Field(1_000, gt=0, description="one decision, bot CPU time")
    bank_ms: int = Field(120_000, gt=0, description="whole game, bot CPU time")
    wall_factor: float = Field(3.0, ge=1.0, description="wall-clock ceiling = wall_factor x the CPU limit (+50 ms)")
    pause_idle: bool = Field(
        False, description="freeze a bot while it is not on move (CPU it uses off-move is charged to its next decision either way)"
    )
    tempo: Literal["free", "fixed"] = Field(
        "free", description="free: a reply goes to the game when it comes (its timing is seen by the other seats);"
                            " fixed: every answer is released slot_ms after its request (docs/sandbox.md, Tempo)")
    slot_ms: int | None = Field(
        None, gt=0, description="tempo fixed: wall ms from a request to the release of its answer (default: the"
                                " free mode's ceiling, wall_factor x decision_ms + 50); above decision_ms")

    @model_validator(mode="after")
    def _slot_above_limit(self) -> "TimeSettings":
        if self.slot_ms is not None and self.slot_ms <= self.decision_ms:
            raise ValueError(f"slot_ms ({self.slot_ms}) must be above decision_ms ({self.decision_ms}): a bot that"
                             " uses its whole CPU allowance on an idle machine must fit in its slot")
        return self

    @property
    def slot_s(self) -> float:
        """The fixed mode's slot in seconds (given, or the free mode's wall ceiling)."""
        ms = self.slot_ms if self.slot_ms is not None else self.decision_ms * self.wall_factor + WALL_MARGIN_MS
        return ms / 1000

    @property
    def fixed(self) -> bool:
        return self.tempo == "fixed"
