"""Everything that shapes how one game is played, as validated data.

The tournament config embeds these models, so a bad value is reported with
its field name before anything runs.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .._json import JsonObject
from ..engine import DEFAULT_MAX_DEALS, PROFILES, RuleProfile, get_profile
from ..players import BotEntry, ProcessPlayer, TimeSettings
from ..sandbox import Level, Limits, SandboxSpec, effective_limits


class FaultPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: Literal["forfeit", "substitute"] = Field(
        "forfeit", description="forfeit the game on a fault, or play a seeded legal action instead"
    )
    strikes: int = Field(3, ge=1, description="with 'substitute': faults a bot may make in a game before it forfeits")


class MatchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profile: RuleProfile = Field(
        RuleProfile(), description="a registered rule profile by name (default pagat62), or all its parameters")
    format: Literal["game", "deals"] = "game"
    deals: int = Field(8, ge=1, description="deals per game in the 'deals' format")
    max_deals: int = Field(DEFAULT_MAX_DEALS, ge=1, description="deal cap of a 'game': beyond it the game is unfinished")
    time: TimeSettings = TimeSettings()
    sandbox: Level = Level.BWRAP
    limits: dict[str, Any] | None = Field(None, description="the competition's limits over the built-in defaults: a ceiling no manifest can lift")
    faults: FaultPolicy = FaultPolicy()
    reveal_players: bool = False
    allow_unlimited: bool = Field(
        False, description="run untrusted bots even where no memory or process limit can be enforced (never the default)")
    restart: Literal["per-game", "per-lineage"] = Field(
        "per-lineage", description="one bot process per lineage kept up between its games (the default), or a fresh"
                                   " one for every game (docs/tournaments.md, Lineages)")
    lineage_blocks: int = Field(
        8, ge=1, description="with 'per-lineage': consecutive blocks of a pairing one batch of processes plays")

    @field_validator("profile", mode="before")
    @classmethod
    def _profile_by_name(cls, v: Any) -> Any:
        """A name is looked up in the registry; an unknown one is refused with the closest name."""
        return get_profile(v) if isinstance(v, str) else v

    @field_validator("profile")
    @classmethod
    def _no_impostor(cls, v: RuleProfile) -> RuleProfile:
        """A profile given in full may not take a registered profile's name with other
        parameters: results and leaderboards would name rules that were not played."""
        known = PROFILES.get(v.name)
        if known is not None and known != v:
            raise ValueError(f"the name {v.name!r} is a registered profile with other parameters: give these "
                             "parameters a name of their own (or the profile by name alone)")
        return v

    @model_validator(mode="after")
    def _check(self) -> "MatchSettings":
        if self.limits is not None:
            Limits.model_validate({**Limits().model_dump(), **self.limits})
        return self

    @property
    def ceiling(self) -> Limits:
        """The competition's limits: the config's over the built-in defaults."""
        return Limits().merge(self.limits) if self.limits else Limits()

    def limits_for(self, manifest_limits: Limits | None) -> Limits:
        """The ceiling, lowered where the manifest asks for less.

        Raises LimitsError naming the field if the manifest asks for more or for none.
        """
        return effective_limits(self.ceiling, manifest_limits)

    def sandbox_spec(self, entry: BotEntry) -> SandboxSpec:
        """How bots are contained under these settings; the player lowers the
        ceiling where ``entry``'s manifest asks for less (and refuses more)."""
        return SandboxSpec(level=self.sandbox, limits=self.ceiling, allow_unlimited=self.allow_unlimited)

    def player(self, entry: BotEntry, seed: int) -> ProcessPlayer:
        """A fresh bot process player for one game under these settings."""
        return ProcessPlayer(entry, seed, self.time, self.sandbox_spec(entry), profile=self.profile)

    def hash_facts(self) -> JsonObject:
        """The settings as the config hash sees them: the restart fields only
        when they differ from per-game (the tempo fields when it is fixed), so folders played per-game (before the
        fields existed, or while per-game was the default) keep their hash."""
        facts = {**self.model_dump(mode="json"), "profile": self.profile.hash_dict()}
        if self.time.tempo == "free":  # likewise the tempo fields (issue 41) only when the tempo is fixed
            facts["time"] = {k: v for k, v in facts["time"].items() if k not in ("tempo", "slot_ms")}
        if self.restart == "per-game":
            facts.pop("restart")
            facts.pop("lineage_blocks")
        return facts

    @property
    def fixed_deals(self) -> int | None:
        return self.deals if self.format == "deals" else None
