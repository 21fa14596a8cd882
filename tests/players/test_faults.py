"""Each kind of bot fault is detected, recorded with its cause, and handled
by the fault policy, without stalling the harness or harming the other seats."""

import pytest

from arena.match import MatchSettings, play_block, play_game
from arena.players.process import ProcessPlayer
from arena.sandbox import HarnessError

from ..testbots import factory, hostile

FAST = {"time": {"decision_ms": 150, "startup_ms": 5000, "bank_ms": 5000, "wall_factor": 2.0}}


def settings(level: str = "rlimit", **extra) -> MatchSettings:
    return MatchSettings.model_validate({"sandbox": level, **FAST, **extra})


def game_with(bad, good, st: MatchSettings, key: str = "fault-key"):
    """Bad bot at seat 0, the good bot elsewhere."""
    players = [st.player(bad, 11)] + [st.player(good, 20 + s) for s in range(1, 4)]
    try:
        return play_game(players, st, key), players
    finally:
        reports = [p.close() for p in players]
        players[:] = reports


@pytest.mark.parametrize(
    "mode,kind,fragment",
    [
        ("crash", "crash", "exited"),
        ("hang", "timeout", "decision limit"),
        ("spin", "timeout", "CPU"),
        ("slow_cpu", "timeout", "decision limit"),
        ("malformed", "malformed", "not valid JSON"),
        ("wrong_id", "protocol", "does not answer request"),
        ("illegal", "illegal", "legal is"),
        ("suited_bid", "illegal", "legal is"),  # a bid naming a suit where bids name none (issue 26, finding 4)
        ("flood", "protocol", "exceeds limit"),
        ("bad_version", "protocol", "speaks versions [1]"),
        ("no_hello", "timeout", "start-up allowance"),
    ],
)
def test_fault_is_detected_recorded_and_forfeits(first_bot, mode, kind, fragment):
    st = settings(**({"time": {**FAST["time"], "startup_ms": 800}} if mode == "no_hello" else {}))
    # No wall-clock bound here (a loaded machine may be slow): a fault of kind "timeout" for
    # the bots that hang or sleep a minute is what shows the harness cut them off.
    result, reports = game_with(hostile(mode), first_bot, st)
    assert result.end == "forfeit" and result.forfeit_by == 0
    assert result.winner == 1  # the side of seats 1+3
    (f,) = result.faults
    assert f.seat == 0 and f.fault.kind == kind, f.fault
    assert fragment in f.fault.text
    if mode not in ("bad_version", "no_hello"):
        # the exact request that caused it is kept: the seat's view and the legal choice
        assert f.fault.request["type"] == "decide" and f.fault.request["view"]["seat"] == 0
        assert "legal" in f.fault.request


def test_substitute_policy_plays_seeded_legal_moves_up_to_the_strike_limit(first_bot):
    st = settings(faults={"mode": "substitute", "strikes": 2})
    result, _ = game_with(hostile("illegal", at=1), first_bot, st)
    # two substituted decisions, then the third fault forfeits
    assert [f.substituted is not None for f in result.faults] == [True, True, False]
    assert result.end == "forfeit" and result.forfeit_by == 0
    again, _ = game_with(hostile("illegal", at=1), first_bot, st)
    assert [f.substituted for f in again.faults] == [f.substituted for f in result.faults]


def test_substitute_policy_finishes_the_game_when_strikes_suffice(first_bot):
    st = settings(faults={"mode": "substitute", "strikes": 1000})
    result, _ = game_with(hostile("crash", at=2), first_bot, st)
    assert result.end in ("target", "bidder_out", "cap")
    assert result.faults[0].fault.kind == "crash"
    assert all(f.fault.kind == "crash" for f in result.faults)  # a dead bot keeps faulting
    assert len(result.faults) > 1


def test_stderr_flood_is_capped_and_counted(first_bot):
    # A roomy decision limit: the flood's wall time is the harness draining 2.4 MB from the pipe,
    # which a loaded machine makes slow (it lost on time at 150 ms, 4 ms CPU and 423 ms wall).
    st = settings(limits={"stderr_bytes": 10_000}, time={**FAST["time"], "decision_ms": 5000})
    result, reports = game_with(hostile("stderr_flood", at=1), first_bot, st)
    assert result.end != "forfeit"
    assert len(reports[0].stderr.encode()) <= 10_000
    assert reports[0].stderr_dropped > 1_000_000


def test_a_faulty_block_does_not_harm_the_other_game(first_bot):
    st = settings()
    res = play_block((hostile("crash", 1), hostile("crash", 1)), (first_bot, first_bot), 0, "b0", st, factory(st))
    assert [g.end for g in res.games] == ["forfeit", "forfeit"]
    # partnership B wins both halves, whichever seats it had
    assert res.score_a() == 0.0


def test_a_bot_bidding_with_a_suit_forfeits_its_games_and_the_block_is_scored(first_bot):
    """``{"type":"bid","amount":7,"suit":"C"}`` under pagat62 used to raise AttributeError
    in the engine and void the block as a harness failure; it is the bot's illegal move."""
    st = settings()
    bad = hostile("suited_bid", 1)
    res = play_block((bad, bad), (first_bot, first_bot), 0, "b0", st, factory(st))
    assert [g.end for g in res.games] == ["forfeit", "forfeit"]
    for g in res.games:
        (f,) = g.faults
        assert f.bot == "hostile" and f.fault.kind == "illegal"
        assert '"suit": "C"' in f.fault.reply and f.fault.request["kind"] == "bid"  # the evidence: what was sent, and asked
    assert res.score_a() == 0.0


def test_check_bot_reports_a_suited_bid_as_a_fault_not_a_crash(tmp_path, capsys):
    """check-bot on that bot: exit 1 with the illegal move named (it used to crash with exit 3),
    in the probes and in the full games."""
    import json
    import shutil

    from arena.commands import main

    from ..testbots import TESTBOT

    shutil.copy(TESTBOT / "bot.py", tmp_path / "bot.py")
    (tmp_path / "bot.yaml").write_text('name: suited\ncommand: ["{python}", "bot.py"]\nenv: {MODE: suited_bid, AT: "1"}\n')
    assert main(["check-bot", str(tmp_path), "--sandbox", "none", "--games", "1", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert not out["ok"] and {v["kind"] for v in out["violations"]} == {"illegal"}
    wheres = [v["where"] for v in out["violations"]]
    assert "probe bid" in wheres and any(w.startswith("game ") for w in wheres)


def test_harness_failure_is_not_a_bot_fault(first_bot):
    st = MatchSettings(sandbox="bwrap")
    player = ProcessPlayer(first_bot, 1, st.time, st.sandbox_spec(first_bot).model_copy(update={"bwrap_path": "/nonexistent/bwrap"}))
    with pytest.raises(HarnessError) as e:
        player.start()
    assert "bwrap" in str(e.value)
    player.close()


def test_clock_readings_of_a_fault_stay_out_of_its_scored_record():
    """Same seed, same scored results: what a clock measured goes under run."""
    from arena.players.base import Fault

    request = {"type": "decide", "id": 3, "kind": "play", "time_left_ms": 4321, "decision_ms": 150}
    f = Fault("timeout", "exceeded the 150 ms decision limit", request, measured="164 ms CPU, 381 ms wall")
    scored = f.to_dict()
    assert "time_left_ms" not in scored["request"] and scored["request"]["decision_ms"] == 150
    assert "164" not in str(scored) and request["time_left_ms"] == 4321  # the live request is left as sent
    assert f.run_dict() == {"measured": "164 ms CPU, 381 ms wall", "time_left_ms": 4321}
    assert f.text == "exceeded the 150 ms decision limit (164 ms CPU, 381 ms wall)"
    assert Fault("crash", "exited", None).run_dict() == {} and Fault("crash", "exited", None).text == "exited"
