"""Players for a seat: in-process policies, or bot processes in a sandbox."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from .base import FAULT_KINDS, Decision, Fault, Player, PlayerReport
    from .manifest import BotEntry, Manifest, ManifestError, ProfileRefused, folder_digest, load_entry, require_profile
    from .mock import MockTransport
    from .policy import PolicyPlayer
    from .process import ProcessPlayer
    from .timecontrol import TimeSettings
    from .transport import ProcessTransport, Transport, TransportReport

__getattr__ = lazy_names(__name__, {
    ".base": ("FAULT_KINDS", "Decision", "Fault", "Player", "PlayerReport"),
    ".manifest": ("BotEntry", "Manifest", "ManifestError", "ProfileRefused", "folder_digest", "load_entry", "require_profile"),
    ".mock": ("MockTransport",),
    ".policy": ("PolicyPlayer",),
    ".process": ("ProcessPlayer",),
    ".timecontrol": ("TimeSettings",),
    ".transport": ("ProcessTransport", "Transport", "TransportReport"),
})

__all__ = [
    "FAULT_KINDS", "BotEntry", "Decision", "Fault", "Manifest", "ManifestError", "MockTransport", "Player",
    "PlayerReport", "PolicyPlayer", "ProfileRefused", "require_profile", "ProcessPlayer", "ProcessTransport", "TimeSettings", "Transport",
    "TransportReport", "folder_digest", "load_entry",
]
