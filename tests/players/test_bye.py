"""After ``bye`` a bot has a short grace to read the last notices and exit by
itself (docs/protocol.md); one that stays is killed when the grace is over."""

from __future__ import annotations

import signal

import pytest

from arena.match import MatchSettings, close_all, play_game
from arena.players import BotEntry, Manifest
from arena.players.process import BYE_GRACE_S, ProcessPlayer

from ..sandbox.conftest import bwrap_works
from ..testbots import hostile

def settings(level: str) -> MatchSettings:
    return MatchSettings.model_validate({"format": "deals", "deals": 2, "sandbox": level,
                                         "time": {"startup_ms": 5000, "decision_ms": 2000}})


LEVELS = ["rlimit", pytest.param("bwrap", marks=pytest.mark.skipif(bwrap_works() is not None, reason="bwrap unusable"))]


def logging_bot(mode: str = "good") -> BotEntry:
    """The test bot writing the type of every message it reads to its stderr."""
    base = hostile(mode)
    m = Manifest(**{**base.manifest.model_dump(), "env": {**base.manifest.env, "LOG": "1"}})
    return BotEntry(manifest=m, dir=base.dir, digest=base.digest)


def play(entries: list[BotEntry], grace: float, level: str) -> tuple[list[str], list[int | None]]:
    """One game; each seat's stderr log and how its process ended."""
    st = settings(level)
    players = [st.player(e, 30 + s) for s, e in enumerate(entries)]
    for p in players:
        assert isinstance(p, ProcessPlayer)
        p.bye_grace_s = grace
    try:
        result = play_game(players, st, "bye-grace")
        transports = [p.proc for p in players]
    finally:
        reports = close_all(players)
    assert result.faults == [] and result.end == "deals"
    return [r.stderr for r in reports], [t.exit_status() if t else None for t in transports]


@pytest.mark.parametrize("level", LEVELS)
def test_every_seat_reads_the_game_end_and_bye_then_exits_by_itself(level: str) -> None:
    # A grace far longer than needed: bots that exit at ``bye`` do not make anyone wait for it.
    logs, statuses = play([logging_bot() for _ in range(4)], grace=60, level=level)
    for seat, log in enumerate(logs):
        lines = log.splitlines()
        assert lines[-3:] == ["read deal_end", "read game_end", "read bye"], (seat, lines[-5:])
        assert lines.count("read deal_end") == 2
    assert statuses == [0, 0, 0, 0]  # each left on its own, none was killed


@pytest.mark.parametrize("level", LEVELS)
def test_a_bot_that_stays_after_bye_is_killed_when_its_grace_is_over(level: str) -> None:
    logs, statuses = play([logging_bot("linger")] + [logging_bot() for _ in range(3)], grace=0.2, level=level)
    # killed (bwrap reports its child's SIGKILL as 128 + 9): it meant to sleep a minute
    assert statuses[0] in (-signal.SIGKILL, 128 + signal.SIGKILL)
    assert statuses[1:] == [0, 0, 0]


def test_the_documented_grace_is_short() -> None:
    assert 0 < BYE_GRACE_S <= 1
