"""The four seats start side by side: all launched before any handshake is
collected, each judged against its own allowance, the first failing seat
(in seat order) blamed alone, and every seat closed on every path."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from arena.match import MatchSettings, close_all, play_block, play_game
from arena.players import BotEntry, Manifest, MockTransport, ProcessPlayer, TimeSettings
from arena.sandbox import HarnessError, SandboxSpec

from ..testbots import hostile
from ..wire_actions import simple_action

HELLO = {"type": "hello", "protocol": 1, "name": "scripted", "version": "1"}
ENTRY = BotEntry(manifest=Manifest(name="scripted", command=["bot"]), dir="/nonexistent", digest="0" * 64)
SETTINGS = MatchSettings.model_validate({"format": "deals", "deals": 1, "sandbox": "rlimit",
                                         "time": {"startup_ms": 200, "decision_ms": 1000}})


class Logged(MockTransport):
    """A scripted bot that writes what the harness does with it into a shared log."""

    def __init__(self, seat: int, log: list[tuple[str, int]], ready_error: bool = False) -> None:
        super().__init__()
        self.seat, self.log, self.ready_error = seat, log, ready_error

    def launcher(self, *args: Any) -> Any:
        self.log.append(("launch", self.seat))
        return super().launcher(*args)

    def wait_ready(self) -> None:
        if self.ready_error:
            raise HarnessError("the sandbox failed before the bot ran")

    def read_line(self, timeout: float) -> bytes:
        self.log.append(("read", self.seat))
        return super().read_line(timeout)

    def close(self) -> Any:
        self.log.append(("close", self.seat))
        return super().close()


def scripted(bots: list[MockTransport]) -> list[ProcessPlayer]:
    return [ProcessPlayer(ENTRY, s, SETTINGS.time, SandboxSpec(level="rlimit"), launcher=b.launcher)
            for s, b in enumerate(bots)]


def test_play_game_launches_all_four_then_collects_the_handshakes_in_seat_order() -> None:
    log: list[tuple[str, int]] = []
    bots = [Logged(s, log) for s in range(4)]
    answered = _autoanswer(bots)
    players = scripted(bots)
    result = play_game(players, SETTINGS, "parallel-order")
    assert result.faults == [] and result.end == "deals" and answered[0] > 0
    first_read = next(i for i, e in enumerate(log) if e[0] == "read")
    assert [e for e in log[:first_read]] == [("launch", s) for s in range(4)]
    assert [e[1] for e in log if e[0] == "read"][:4] == [0, 1, 2, 3]
    for b in bots:  # each hello went out at launch, before any reply was read
        assert b.sent[0]["type"] == "hello" and b.sent[1]["type"] == "game"


def _autoanswer(bots: list[MockTransport]) -> list[int]:
    """Make each scripted bot answer any decide with its first legal option, and take any notice."""
    count = [0]

    def act(req: dict[str, Any]) -> dict[str, Any]:
        count[0] += 1
        return {"type": "action", "id": req["id"], "action": simple_action(req["kind"], req["legal"])}

    for b in bots:
        original = b.write_line

        def write(data: bytes, timeout: float = 5.0, b: MockTransport = b, original: Any = original) -> None:
            for line in data.splitlines():  # notices in a row come in one write
                kind = json.loads(line)["type"]
                if not b._script:  # noqa: SLF001 - the script grows as the game asks
                    b.expect(kind, HELLO if kind == "hello" else act if kind == "decide" else None)
                original(line, timeout)

        b.write_line = write  # type: ignore[method-assign]
    return count


@pytest.mark.parametrize("bad_seat", [0, 2, 3])
def test_a_failing_starter_is_blamed_alone_and_the_later_seats_never_hear_of_the_game(bad_seat: int) -> None:
    log: list[tuple[str, int]] = []
    bots = [Logged(s, log) for s in range(4)]
    for s, b in enumerate(bots):
        if s == bad_seat:
            b.expect("hello", {**HELLO, "protocol": 99}).expect("bye")
        elif s < bad_seat:
            b.expect("hello", HELLO).expect("game_end").expect("bye")
        else:
            b.expect("hello", HELLO).expect("bye")  # launched, then closed: no game, no game_end
    players = scripted(bots)
    try:
        result = play_game(players, SETTINGS, "blame")
    finally:
        close_all(players)
    assert result.forfeit_by == bad_seat and [(f.seat, f.fault.kind) for f in result.faults] == [(bad_seat, "protocol")]
    for b in bots:
        b.assert_done()
        assert ("close", b.seat) in log


def test_a_sandbox_failure_while_starting_is_the_harness_s_and_every_seat_is_closed() -> None:
    log: list[tuple[str, int]] = []
    bots = [Logged(s, log, ready_error=(s == 2)) for s in range(4)]
    for b in bots:
        b.expect("hello", HELLO).expect("bye")
    made = iter(scripted(bots))
    with pytest.raises(HarnessError):
        play_block((ENTRY, ENTRY), (ENTRY, ENTRY), 0, "harness", SETTINGS, lambda e, seed: next(made))
    assert sorted(s for kind, s in log if kind == "close") == [0, 1, 2, 3]


class Starved(MockTransport):
    """A bot that never answers its hello and, as far as the clocks say, never got a core."""

    def __init__(self) -> None:
        super().__init__()
        self.t0 = time.monotonic()

    def run_delay(self) -> float:
        return time.monotonic() - self.t0


def test_start_up_time_spent_waiting_for_a_core_is_not_the_bot_s() -> None:
    t = TimeSettings(startup_ms=50)
    fed, starved = MockTransport().expect("hello", hang=True, spin=False), Starved().expect("hello", hang=True, spin=False)
    t0 = time.monotonic()
    fault = ProcessPlayer(ENTRY, 1, t, SandboxSpec(level="rlimit"), launcher=fed.launcher).start()
    fed_s = time.monotonic() - t0
    assert fault is not None and fault.kind == "timeout" and "start-up allowance of 50 ms" in fault.message
    assert fed_s >= 0.05
    t0 = time.monotonic()
    fault = ProcessPlayer(ENTRY, 1, t, SandboxSpec(level="rlimit"), launcher=starved.launcher).start()
    # judged only at the hard ceiling (10x the allowance): it never had a chance to run
    assert fault is not None and fault.kind == "timeout" and time.monotonic() - t0 >= 0.5


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][:1] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("level", ["rlimit", pytest.param("bwrap", marks=pytest.mark.slow)])
@pytest.mark.parametrize("mode,kind", [("bad_version", "protocol"), ("no_hello", "timeout")])
def test_a_bad_starter_among_real_bots_forfeits_alone_and_leaves_no_process(first_bot, mode: str, kind: str,
                                                                            level: str) -> None:
    st = MatchSettings.model_validate({"sandbox": level, "format": "deals", "deals": 1,
                                       "time": {"startup_ms": 1500 if mode == "no_hello" else 10_000}})
    made: list[ProcessPlayer] = []
    pids: list[int] = []

    def make(entry: BotEntry, seed: int) -> ProcessPlayer:
        p = st.player(entry, seed)
        made.append(p)
        launch = p._launcher  # noqa: SLF001 - record each launched process's pid

        def record(*args: Any) -> Any:
            tr = launch(*args)
            pids.append(tr.proc.pid)
            return tr

        p._launcher = record  # noqa: SLF001
        return p

    bad = hostile(mode)
    result = play_block((first_bot, first_bot), (bad, first_bot), 0, "bad-start", st, make)
    g0, g1 = result.games
    assert g0.forfeit_by == 1 and [(f.seat, f.fault.kind) for f in g0.faults] == [(1, kind)]
    assert g1.forfeit_by == 0 and [(f.seat, f.fault.kind) for f in g1.faults] == [(0, kind)]
    assert len(pids) == 8  # all four seats of both games were launched
    assert not [pid for pid in pids if _alive(pid)]
    assert all(p.proc is None for p in made)
    # seat 0 shook hands; seat 1 answered (wrongly) or never did; seats 2 and 3 were closed before theirs was read
    assert [r.startup_ms is not None for r in g0.reports] == [True, mode == "bad_version", False, False]
