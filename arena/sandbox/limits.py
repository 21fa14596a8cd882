"""Isolation levels and resource limits of one bot process.

Limits are plain data so a bot manifest can declare them and a tournament
config can override them (`Limits.merge`).
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


class Level(str, Enum):
    """How strongly a bot is contained.

    `bwrap`: namespaces + filesystem allow-list + limits (default).
    `rlimit`: limits only, the bot sees the host as the harness does.
    `none`: a plain subprocess, for trusted bots.
    """

    BWRAP = "bwrap"
    RLIMIT = "rlimit"
    NONE = "none"


class Limits(BaseModel):
    """Resource limits; `None` means "no limit" for the optional ones."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    memory_bytes: int | None = Field(
        1 * GiB, gt=0,
        description="Memory of the whole process tree (cgroup memory; "
        "per-process RLIMIT_DATA where cgroups are not writable).")
    max_processes: int | None = Field(
        64, gt=0,
        description="Tasks (processes and threads) in the tree, cgroup pids. "
        "The sandbox's own helpers (bwrap and its init) count too.")
    cpu_seconds: int | None = Field(
        None, gt=0,
        description="RLIMIT_CPU per process: a backstop only; the harness "
        "judges time on cpu_time() of the whole tree.")
    file_size_bytes: int | None = Field(
        64 * MiB, gt=0, description="Largest file the bot may write (RLIMIT_FSIZE).")
    open_files: int | None = Field(
        256, gt=0, description="RLIMIT_NOFILE per process.")
    max_line_bytes: int = Field(
        1 * MiB, gt=0,
        description="Longest protocol line accepted from the bot, newline excluded.")
    stderr_bytes: int = Field(
        1 * MiB, ge=0,
        description="Stderr kept per launch; the rest is dropped and counted.")

    def merge(self, override: "Limits | dict[str, Any] | None") -> "Limits":
        """Return these limits with the fields *explicitly set* in `override` replacing ours.

        Used as `manifest_limits.merge(tournament_limits)`: the tournament wins
        on every field it names, the manifest keeps the rest.
        """
        if override is None:
            return self
        if isinstance(override, Limits):
            changes = {name: getattr(override, name) for name in override.model_fields_set}
        else:
            changes = dict(Limits.model_validate(override).model_dump(include=set(override)))
        return Limits.model_validate({**self.model_dump(), **changes})
