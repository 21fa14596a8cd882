"""Speed work never changes a game's record: a small serial tournament's
scored results, pinned by a hash computed with the code before the
throughput work (seats started one after another).

The tournament uses real bot processes (level ``none``) and covers the
paths the start and decision code touch: ordinary games, a bot that plays
illegally under the substitute policy, a crash in the middle of a game and
a bot failing its handshake (in game 0 at seat 0, in game 1 at seat 1).
The hash is over each results line without its run-dependent part and
without what other work may legitimately change without touching any game:
bot digests (files of bots), the config hash, and the request of a
start-up fault (the ``hello`` message, whose content belongs to the
protocol, not to the game). A faulting request's ``time_left_ms`` (a clock
reading) is not in the scored part at all: the test checks that it is not.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from arena.match import MatchSettings
from arena.results import comparable
from arena.schedule.task import run_block
from arena.schedule.unit import BlockTask

from ..testbots import TESTBOT, hostile
from arena.players import BotEntry, Manifest, load_entry

#: sha256 of the canonical scored results below, computed by the code before the throughput work.
PINNED = "d779e8eb7db1ab0ee832078dcd0dec583a875ac5ecf0d99f3c9a9f40995bac56"


def _scrub(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _scrub(v) for k, v in obj.items() if k not in ("digest", "config_hash")}
    if isinstance(obj, list):
        return [_scrub(x) for x in obj]
    return obj


def named(e: BotEntry, name: str) -> BotEntry:
    return BotEntry(manifest=Manifest(**{**e.manifest.model_dump(), "name": name}), dir=e.dir, digest=e.digest)


def scored_lines(level: str = "none") -> list[dict[str, Any]]:
    first, last = load_entry(TESTBOT / "first.yaml"), load_entry(TESTBOT / "last.yaml")
    illegal, crash, bad_hello = named(hostile("illegal", 4), "illegal"), named(hostile("crash", 9), "crash"), \
        named(hostile("bad_version"), "bad-hello")
    bad_hello_2 = named(hostile("bad_version"), "bad-hello-2")
    bots = {e.ident: e for e in (first, last, illegal, crash, bad_hello, bad_hello_2)}
    base = {"sandbox": level, "format": "deals", "deals": 3,
            "time": {"decision_ms": 5000, "startup_ms": 10_000, "bank_ms": 100_000}}
    plain = MatchSettings.model_validate(base)
    substitute = MatchSettings.model_validate({**base, "faults": {"mode": "substitute", "strikes": 2}})
    tasks = [BlockTask("first-last", b, f"pin-{b}", (first.ident, first.ident), (last.ident, last.ident), plain, "pin")
             for b in range(3)]
    tasks += [
        BlockTask("illegal-first", 0, "pin-illegal", (illegal.ident, first.ident), (last.ident, last.ident), substitute, "pin"),
        BlockTask("crash-last", 0, "pin-crash", (last.ident, last.ident), (crash.ident, first.ident), plain, "pin"),
        BlockTask("hello-first", 0, "pin-hello", (bad_hello.ident, first.ident), (last.ident, first.ident), plain, "pin"),
        # two failing starters, one on each side: the lower seat is blamed (seat 1 in game 0, seat 0 in game 1)
        BlockTask("hello-hello", 0, "pin-hello2", (first.ident, bad_hello.ident), (bad_hello_2.ident, last.ident), plain, "pin"),
    ]
    lines = []
    for task in tasks:
        line = comparable(json.loads(run_block(task, bots).line.to_json()))  # the line as stored
        for game in line["games"]:
            for f in game["faults"]:
                if f["decision"] == 0 and f["request"] is not None:
                    f["request"] = {"type": f["request"]["type"]}
                elif f["request"] is not None:
                    # the bank left when the bot was asked is a clock reading: it is kept under run, never scored
                    assert "time_left_ms" not in f["request"] and f["request"]["decision_ms"] == 5000
        lines.append(_scrub(line))
    return lines


def digest(lines: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(lines, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@pytest.mark.parametrize("level", ["none", pytest.param("bwrap", marks=pytest.mark.slow)])
def test_a_small_serial_tournament_scores_exactly_as_before_the_speed_work(level: str) -> None:
    lines = scored_lines(level)
    kinds = {line["pairing"]: [(g["forfeit_by"], [(f["seat"], f["kind"], f["decision"] > 0, f["substituted"] is not None)
                                                   for f in g["faults"]]) for g in line["games"]]
             for line in lines}
    # the fault paths the tournament is meant to cover really happened
    assert kinds["first-last"] == [(None, [])] * 2
    assert kinds["illegal-first"] == [(0, [(0, "illegal", True, True)] * 2 + [(0, "illegal", True, False)]),
                                      (1, [(1, "illegal", True, True)] * 2 + [(1, "illegal", True, False)])]
    assert kinds["crash-last"] == [(1, [(1, "crash", True, False)]), (0, [(0, "crash", True, False)])]
    assert kinds["hello-first"] == [(0, [(0, "protocol", False, False)]), (1, [(1, "protocol", False, False)])]
    assert kinds["hello-hello"] == [(1, [(1, "protocol", False, False)]), (0, [(0, "protocol", False, False)])]
    assert digest(lines) == PINNED
