"""Protocol, time control and fault verdicts of ProcessPlayer against a scripted bot: no process,
no sandbox, no clock luck (the scripted bot's CPU time is what the script says)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.engine import Game, PASS
from arena.players import BotEntry, Manifest, MockTransport, ProcessPlayer, TimeSettings
from arena.protocol import wire
from arena.sandbox import SandboxSpec

HELLO = {"type": "hello", "protocol": 1, "name": "scripted", "version": "9"}
ENTRY = BotEntry(manifest=Manifest(name="scripted", command=["bot"]), dir="/nonexistent", digest="0" * 64)


def player(bot: MockTransport, **time: Any) -> ProcessPlayer:
    t = TimeSettings(**{"decision_ms": 100, "bank_ms": 1000, **time})
    return ProcessPlayer(ENTRY, 7, t, SandboxSpec(level="rlimit"), launcher=bot.launcher)


def request(n: int = 1) -> dict[str, Any]:
    g = Game(key="mock")
    return wire.decide(g, g.to_act, g.choice, n)


def answer(action: dict[str, Any]):
    return lambda req: {"type": "action", "id": req["id"], "action": action}


def test_handshake_decision_and_bye_follow_the_protocol() -> None:
    bot = MockTransport().expect("hello", HELLO).expect("decide", answer({"type": "pass"}), cpu_ms=30).expect("bye")
    p = player(bot)
    assert p.start() is None
    hello = bot.sent[0]
    assert hello["seed"] == 7 and hello["protocol"] == [1] and hello["harness"].startswith("cinch-arena")
    d = p.decide(request())
    assert d.fault is None and d.action == PASS and d.cpu_s == pytest.approx(0.03)
    assert bot.sent[1]["time_left_ms"] == 1000 and bot.sent[1]["decision_ms"] == 100
    rep = p.close()
    bot.assert_done()
    assert rep.version == "9" and rep.cpu_ms == [pytest.approx(30)]


def test_cpu_is_charged_to_the_bank() -> None:
    bot = MockTransport().expect("hello", HELLO)
    for _ in range(3):
        bot.expect("decide", answer({"type": "pass"}), cpu_ms=90)
    p = player(bot)
    p.start()
    for n in (1, 2, 3):
        assert p.decide(request(n)).fault is None
    assert [m["time_left_ms"] for m in bot.sent[1:]] == [1000, 910, 820]


@pytest.mark.parametrize("step,kind,fragment", [
    (dict(hang=True), "timeout", "100 ms decision limit"),
    (dict(reply=answer({"type": "pass"}), cpu_ms=150), "timeout", "100 ms decision limit"),
    (dict(raw=b"{not json"), "malformed", "'{not json'"),
    (dict(reply=lambda req: {"type": "action", "id": req["id"] + 1, "action": {"type": "pass"}}), "protocol",
     "does not answer request"),
    (dict(reply={"type": "hello", "protocol": 1, "name": "x"}), "protocol", "expected an action reply"),
    (dict(exit_status=3, stderr="Traceback: boom\n"), "crash", "exit status 3"),
    (dict(raw=b"x" * 200), "protocol", "exceeds limit"),
])
def test_each_fault_is_judged_from_the_script(step: dict[str, Any], kind: str, fragment: str) -> None:
    bot = MockTransport(max_line_bytes=100).expect("hello", HELLO).expect("decide", **step)
    p = player(bot)
    p.start()
    d = p.decide(request())
    assert d.action is None and d.fault is not None
    assert d.fault.kind == kind and fragment in d.fault.message, d.fault
    assert d.fault.request is not None and d.fault.request["type"] == "decide"
    assert not p.alive  # a faulting bot is ended at once
    if "stderr" in step:
        assert d.fault.stderr == "Traceback: boom\n"  # the cause travels with the fault


def test_the_bank_runs_out_before_the_decision_limit() -> None:
    bot = MockTransport().expect("hello", HELLO).expect("decide", answer({"type": "pass"}), cpu_ms=80)
    bot.expect("decide", hang=True)
    p = player(bot, bank_ms=120)
    p.start()
    assert p.decide(request(1)).fault is None
    d = p.decide(request(2))
    assert d.fault is not None and d.fault.kind == "timeout" and "time bank" in d.fault.message


def test_an_unsupported_version_is_refused_with_a_bye() -> None:
    bot = MockTransport().expect("hello", {**HELLO, "protocol": 2}).expect("bye")
    fault = player(bot).start()
    assert fault is not None and fault.kind == "protocol" and "speaks versions [1]" in fault.message
    assert bot.sent[-1] == {"type": "bye", "reason": fault.message}
    bot.assert_done()


def test_a_silent_starter_times_out_on_its_allowance() -> None:
    bot = MockTransport().expect("hello", hang=True, spin=False)
    fault = player(bot, startup_ms=120).start()
    assert fault is not None and fault.kind == "timeout" and "start-up allowance of 120 ms" in fault.message


def test_the_mock_refuses_a_message_the_script_does_not_expect() -> None:
    bot = MockTransport().expect("hello", HELLO)
    p = player(bot)
    p.start()
    with pytest.raises(AssertionError, match="unexpected 'decide'"):
        p.decide(request())


def test_library_paths_reach_the_bot_launch() -> None:
    entry = ENTRY.model_copy(update={"manifest": Manifest(name="s", command=["{python}", "bot.py"], libraries=["sdk"])})
    bot = MockTransport().expect("hello", HELLO)
    ProcessPlayer(entry, 1, TimeSettings(), SandboxSpec(), launcher=bot.launcher).start()
    argv, env, ro, bot_dir = bot.launched  # type: ignore[misc]
    assert Path(argv[0]).name.startswith("python") and bot_dir == "/nonexistent"
    sdk = Path(__import__("cinch_bot").__file__).parent
    assert str(sdk) in ro and str(sdk.parent) in env["PYTHONPATH"].split(":")


def test_pause_idle_keeps_a_bot_frozen_through_notices() -> None:
    """Notices to a paused bot wait for its next request: it runs only while on move."""
    bot = MockTransport().expect("hello", HELLO)
    for kind in ("game", "deal", "decide", "deal", "bye"):
        bot.expect(kind, answer({"type": "pass"}) if kind == "decide" else None)
    p = ProcessPlayer(ENTRY, 7, TimeSettings(decision_ms=100, bank_ms=1000, pause_idle=True),
                      SandboxSpec(level="rlimit"), launcher=bot.launcher)
    assert p.start() is None and bot.paused
    assert p.notify({"type": "game", "n": 1}) is None
    assert p.notify_all([{"type": "deal", "n": 2}]) is None
    assert bot.paused and [m["type"] for m in bot.sent] == ["hello"]  # held, not written
    assert p.decide(request()).fault is None
    assert bot.paused  # frozen again once it answered
    assert [m["type"] for m in bot.sent] == ["hello", "game", "deal", "decide"]  # in order, before the request
    assert all(bot.running)  # woken for the request, never for a notice
    p.notify({"type": "deal", "n": 3})
    assert len(bot.sent) == 4 and bot.paused
    p.close()  # the held notice goes out before bye
    assert [m["type"] for m in bot.sent][4:] == ["deal", "bye"]
    bot.assert_done()


def test_without_pause_idle_notices_go_at_once() -> None:
    bot = MockTransport().expect("hello", HELLO).expect("game").expect("bye")
    p = player(bot)
    p.start()
    p.notify({"type": "game"})
    assert [m["type"] for m in bot.sent] == ["hello", "game"] and bot.running == [True, True]
    p.close()


def test_the_harness_s_preparation_before_the_spawn_is_not_the_bot_s_start_up_time() -> None:
    """A launcher that takes long before it spawns (a private copy of the folder, a runtime
    image built on first use at gvisor) does not eat into the bot's start-up allowance."""
    import time

    bot = MockTransport().expect("hello", HELLO).expect("bye")

    spawned: list[float] = []

    def slow_launcher(*args: Any) -> Any:
        time.sleep(0.3)  # longer than the whole allowance below
        transport = bot.launcher(*args)
        spawned.append(time.monotonic())
        return transport

    t = TimeSettings(startup_ms=100, decision_ms=100, bank_ms=1000)
    p = ProcessPlayer(ENTRY, 7, t, SandboxSpec(level="rlimit"), launcher=slow_launcher)
    assert p.start() is None
    since_spawn_ms = (time.monotonic() - spawned[0]) * 1000
    rep = p.close()
    assert rep.startup_ms is not None and rep.startup_ms <= since_spawn_ms


@pytest.mark.parametrize("second,kind", [
    (b'{"type":"action","id":%d,"action":{"type":"pass"}}', None),  # the same text again: taken
    (b'{"type":"action","id":%d,"action":{"type":"pass"},"id":1,"action":{"type":"pass"}}', "protocol"),  # the last id counts
    (b'{"type":"action","id":0%d,"action":{"type":"pass"}}', "malformed"),  # a leading zero is no JSON number
    (b'{"type":"action","id":%d,"action":{"type":"pass"},"x":1}', "malformed"),  # an extra key
])
def test_a_reply_read_before_gets_the_verdict_it_would_get_read_afresh(second: bytes, kind: str | None) -> None:
    """A plain reply's action text is read once (ProcessPlayer keeps what it read): a later reply that
    differs anywhere but in its id, also in what it says after the action, is read again."""
    first = b'{"type":"action","id":1,"action":{"type":"pass"},"id":1,"action":{"type":"pass"}}'  # keys said twice
    bot = MockTransport().expect("hello", HELLO).expect("decide", raw=first)
    bot.expect("decide", raw=b'{"type":"action","id":2,"action":{"type":"pass"}}')
    bot.expect("decide", raw=second % 3)
    p = player(bot)
    p.start()
    for n in (1, 2):
        d = p.decide(request(n))
        assert d.fault is None and d.action == PASS
    d = p.decide(request(3))
    if kind is None:
        assert d.fault is None and d.action == PASS
    else:
        assert d.action is None and d.fault is not None and d.fault.kind == kind, d.fault


def test_a_deal_end_notice_goes_as_its_line_and_a_fault_keeps_it_as_a_dict() -> None:
    """``wire.Notice`` (a deal_end as its line) is written as it is; the bot that exits before it is
    blamed with the notice as a dict, its view read back from the line."""
    import random

    g = Game(key="mock")
    rng = random.Random(3)
    while not g.deal.done:
        g.apply(g.choice.sample(rng))
    first, second = wire.deal_end_notices(g, 0, (0, 1))
    bot = MockTransport().expect("hello", HELLO).expect("deal_end").expect("game", exit_status=1)
    p = player(bot)
    p.start()
    assert p.notify_all([first]) is None
    assert bot.sent[-1] == first.to_dict() and bot.sent[-1]["view"]["seat"] == 0
    assert p.notify_all([{"type": "game"}]) is None  # the bot exits on reading it
    fault = p.notify_all([second, {"type": "deal"}])
    assert fault is not None and fault.kind == "crash"
    assert fault.request == second.to_dict() and fault.request["view"] == g.view(1, 0).to_dict()
