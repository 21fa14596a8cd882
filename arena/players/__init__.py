"""Players for a seat: in-process policies, or bot processes in a sandbox."""

from .base import FAULT_KINDS, Decision, Fault, Player, PlayerReport
from .manifest import BotEntry, Manifest, ManifestError, folder_digest, load_entry
from .policy import PolicyPlayer

__all__ = [
    "FAULT_KINDS", "BotEntry", "Decision", "Fault", "Manifest", "ManifestError", "Player",
    "PlayerReport", "PolicyPlayer", "folder_digest", "load_entry",
]
