"""Players for a seat: in-process policies, or bot processes in a sandbox."""

from .base import FAULT_KINDS, Decision, Fault, Player, PlayerReport
from .manifest import BotEntry, Manifest, ManifestError, ProfileRefused, folder_digest, load_entry, require_profile
from .mock import MockTransport
from .policy import PolicyPlayer
from .process import ProcessPlayer
from .timecontrol import TimeSettings
from .transport import ProcessTransport, Transport, TransportReport

__all__ = [
    "FAULT_KINDS", "BotEntry", "Decision", "Fault", "Manifest", "ManifestError", "MockTransport", "Player",
    "PlayerReport", "PolicyPlayer", "ProfileRefused", "require_profile", "ProcessPlayer", "ProcessTransport", "TimeSettings", "Transport",
    "TransportReport", "folder_digest", "load_entry",
]
