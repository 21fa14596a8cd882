"""Sandbox layer: how a bot command becomes a contained process.

Knows nothing of Cinch or of the message protocol; see docs/sandbox.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from .bench import measure_round_trip, measure_start
    from .bwrap import check_bwrap, find_bwrap
    from .errors import (
        BotExited,
        BotFault,
        CommandNotFound,
        HarnessError,
        LineTooLong,
        ReadTimeout,
        SandboxError,
        SandboxUnavailable,
        WriteTimeout,
    )
    from .files import FolderRefused
    from .limits import Level, Limits, LimitsError, effective_limits
    from .process import BotProcess, UncontainedWarning, launch
    from .selfcheck import HostUnfit, check_host
    from .uids import UidRange
    from .spec import SandboxSpec

__getattr__ = lazy_names(__name__, {
    ".bench": ("measure_round_trip", "measure_start"),
    ".bwrap": ("check_bwrap", "find_bwrap"),
    ".errors": ("BotExited", "BotFault", "CommandNotFound", "HarnessError", "LineTooLong", "ReadTimeout", "SandboxError", "SandboxUnavailable", "WriteTimeout"),
    ".files": ("FolderRefused",),
    ".limits": ("Level", "Limits", "LimitsError", "effective_limits"),
    ".process": ("BotProcess", "UncontainedWarning", "launch"),
    ".selfcheck": ("HostUnfit", "check_host"),
    ".uids": ("UidRange",),
    ".spec": ("SandboxSpec",),
})

__all__ = [
    "BotExited", "BotFault", "BotProcess", "CommandNotFound", "FolderRefused", "HarnessError", "HostUnfit", "Level", "Limits",
    "LimitsError", "LineTooLong", "ReadTimeout", "SandboxError", "SandboxSpec", "SandboxUnavailable", "WriteTimeout",
    "UidRange", "UncontainedWarning", "check_bwrap", "check_host", "effective_limits", "find_bwrap", "launch", "measure_round_trip", "measure_start",
]
