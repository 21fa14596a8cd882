"""Isolation levels and resource limits of one bot process.

Limits are plain data. The competition's limits (its config over the
built-in defaults) are a ceiling; a bot's manifest may only ask for less
(`effective_limits`), never for more and never for "no limit".
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from .._json import JsonObject

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


class Level(str, Enum):
    """How strongly a bot is contained.

    `gvisor`: a kernel of its own per bot (gVisor's runsc), reading only
    resident copies of its runtime and folder: nothing of one seat's doing
    reaches another through the host kernel. For open competitions.
    `bwrap`: namespaces + filesystem allow-list + limits on the host's kernel (default).
    `rlimit`: limits only, the bot sees the host as the harness does.
    `none`: a plain subprocess, for trusted bots.
    """

    GVISOR = "gvisor"
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
    scratch_bytes: int = Field(
        64 * MiB, gt=0,
        description="Size of the bot's one writable area (a tmpfs for /scratch, /tmp and /dev/shm "
        "at level bwrap); its pages count against memory_bytes.")
    scratch_inodes: int = Field(
        8192, gt=0,
        description="Files and folders the writable area may hold (tmpfs nr_inodes, with a root harness "
        "at level bwrap; elsewhere its inodes count against memory_bytes only).")

    def merge(self, override: "Limits | JsonObject | None") -> "Limits":
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


class LimitsError(ValueError):
    """A requested limit is above the ceiling or asks for no limit; names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"limits.{field}: {message}")
        self.field = field


def effective_limits(ceiling: Limits, requested: "Limits | JsonObject | None") -> Limits:
    """The limits a bot runs with: the ceiling, lowered where `requested` asks for less.

    Only fields `requested` sets explicitly count. A value above the ceiling,
    or null (no limit), raises LimitsError naming the field: a bot's own
    manifest can never lift what the competition imposes.
    """
    if requested is None:
        return ceiling
    if isinstance(requested, Limits):
        asked = {name: getattr(requested, name) for name in requested.model_fields_set}
    else:
        asked = dict(requested)
        Limits.model_validate(asked)  # unknown fields and bad values, with pydantic's message
    out = ceiling.model_dump()
    for name, value in sorted(asked.items()):
        cap = out[name]
        if value is None:
            raise LimitsError(name, "null (no limit) is not allowed; ask for a number at most the ceiling "
                              f"({'none' if cap is None else cap})")
        if cap is not None and value > cap:
            raise LimitsError(name, f"{value} is above the competition's ceiling {cap}")
        out[name] = value
    return Limits.model_validate(out)
