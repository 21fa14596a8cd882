"""Exceptions of the sandbox layer.

Two families, kept apart on purpose: a `BotFault` is something the bot did
(the caller turns it into a verdict against the bot), a `HarnessError` is
something that went wrong on our side (the game must not be scored).
"""

from __future__ import annotations


class SandboxError(Exception):
    """Base class of everything this package raises."""


class HarnessError(SandboxError):
    """The sandbox itself could not be set up or managed; not the bot's fault."""


class SandboxUnavailable(HarnessError):
    """The requested isolation level cannot run on this machine."""


class BotFault(SandboxError):
    """The bot misbehaved (on its pipes, or in what its manifest asks for); the caller maps this to a fault verdict."""


class CommandNotFound(BotFault):
    """The bot's command names a program that does not exist (a typo in its manifest, most often)."""


class ReadTimeout(BotFault):
    """No complete line arrived within the allowed time."""


class WriteTimeout(BotFault):
    """The bot did not drain its stdin within the allowed time."""


class BotExited(BotFault):
    """The bot closed its stdout or exited before answering."""

    def __init__(self, message: str, exit_status: int | None = None) -> None:
        super().__init__(message)
        self.exit_status = exit_status


class LineTooLong(BotFault):
    """The bot sent (or started) a line longer than the configured maximum."""

    def __init__(self, message: str, limit: int) -> None:
        super().__init__(message)
        self.limit = limit
