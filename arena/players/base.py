"""A seat's player, whatever runs it, and the verdicts it can earn.

The match loop talks to every player through this one interface, so an
in-process policy and a sandboxed bot process are interchangeable.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Sequence
from .._json import JsonObject
from ..engine import Action
from ..protocol.wire import Notice, Request, notice_dict

#: "sandbox": the bot left its sandbox in a state that resisted cleanup (deliberate: it forfeits).
FAULT_KINDS = ("timeout", "crash", "malformed", "illegal", "protocol", "sandbox")


@dataclass
class Fault:
    """A bot's mistake, with what caused it, so a host can see why."""

    kind: str  # one of FAULT_KINDS
    message: str
    request: JsonObject | None = None  # the decide message (view and legal choice) that was asked
    reply: str | None = None  # the raw line the bot sent, truncated
    stderr: str | None = None  # the tail of the bot's stderr when it faulted: usually the cause
    measured: str | None = None  # clock readings behind the verdict (CPU and wall time used): run-dependent

    @property
    def text(self) -> str:
        """The message with what was measured, as shown to a person."""
        return f"{self.message} ({self.measured})" if self.measured else self.message

    def to_dict(self) -> JsonObject:
        """The scored record of the fault: only what the same seed gives again.

        stderr, the measured times and the request's ``time_left_ms`` (a clock
        reading) vary from run to run; ``run_dict`` keeps them under ``run``.
        """
        request = self.request
        if request is not None and "time_left_ms" in request:
            request = {k: v for k, v in request.items() if k != "time_left_ms"}
        return {"kind": self.kind, "message": self.message, "request": request, "reply": self.reply}

    def run_dict(self) -> JsonObject:
        """The run-dependent facts of the fault (kept under ``run`` beside the stderr tail)."""
        left = (self.request or {}).get("time_left_ms")
        return {k: v for k, v in (("measured", self.measured), ("time_left_ms", left)) if v is not None}


@dataclass(slots=True)
class Decision:
    """What a player answered: an action (not yet checked for legality) or a fault."""

    action: Action | None
    fault: Fault | None = None
    latency_s: float = 0.0  # wall clock
    cpu_s: float | None = None  # bot CPU time, where measured
    raw: str | bytes | None = None  # the reply as sent (bytes are decoded only if needed)

    @property
    def reply_text(self) -> str | None:
        """The reply, truncated, as text for fault reports."""
        if isinstance(self.raw, bytes):
            return self.raw[:2000].decode(errors="replace")
        return self.raw


@dataclass
class PlayerReport:
    """Run-dependent facts about a player's game: never part of scored results."""

    name: str
    version: str = ""
    latencies_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    #: per decision, ms the machine did not give the seat: its threads' wait for a core, the judge's thaw and write of
    #: the request and its own time on the reply's way (docs/sandbox.md): latency - cpu - wait is idle on move
    wait_ms: list[float] = field(default_factory=list)
    stderr: str = ""
    stderr_dropped: int = 0
    startup_ms: float | None = None
    trouble: list[str] = field(default_factory=list)  # what resisted cleanup of its sandbox: evidence against it


class Player(ABC):
    """One seat in one game, or in a lineage's games one after another (``next_game``)."""

    name: str = "player"
    version: str = ""
    seed: int = 0  # the seed it was started with (its first game's)

    def launch(self) -> Fault | None:
        """Begin bringing the player up without waiting for it (a game launches
        all four seats, then ``start``s each); a fault here forfeits the game."""
        return None

    def start(self) -> Fault | None:
        """Bring the player up (handshake; after ``launch`` if it was called); a fault here forfeits the game."""
        return None

    @abstractmethod
    def notify(self, msg: JsonObject) -> Fault | None:
        """A notice that needs no reply (game, deal, deal_end, game_end): a message of the protocol as
        ``protocol.wire`` builds it, a JSON object its models (``protocol.messages``) describe."""

    def notify_all(self, msgs: Sequence[JsonObject | Notice]) -> Fault | None:
        """Several notices in a row (a bot process gets them in one write: one wake-up, not several);
        a ``Notice`` is its line, read as a dict here (``ProcessPlayer`` writes the line as it is)."""
        for msg in msgs:
            fault = self.notify(notice_dict(msg))
            if fault is not None:
                return fault
        return None

    @abstractmethod
    def decide(self, request: JsonObject) -> Decision:
        """Answer a ``decide`` message (its ``view`` an ``engine.forms.ViewForm``, its ``legal`` a
        ``LegalForm``)."""

    def decide_request(self, request: Request) -> Decision:
        """Answer the game loop's request (``wire.request``): a player that writes it to a bot sends
        its text as it is (``ProcessPlayer``); the others read its dict."""
        return self.decide(request.to_dict())

    def next_game(self) -> PlayerReport | None:
        """End this game and stay up for the lineage's next one (``match.restart: per-lineage``).

        Returns the finished game's report, or None if this player cannot
        play on (then the caller closes it and a fresh one takes the next
        game). Only a player that keeps nothing but its own memory may say
        yes; the default is no.
        """
        return None

    def halt(self) -> None:
        """Begin stopping without waiting (``close_all`` halts every seat, then closes each side by side)."""

    def close(self) -> PlayerReport:
        return PlayerReport(self.name, self.version)

    @property
    def alive(self) -> bool:
        return True
