"""Each bot, run as a real process, does the handshake and answers a decide."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from arena.engine import action_from_dict

from .conftest import BOTS, PY_BOTS, QUICK_ENV, ROOT


def _talk(argv: list[str], cwd, states, seed: int = 11) -> tuple[list[dict], int]:
    """Mini driver: hello, game, deal, a few decides, bye; returns the replies and exit code."""
    st_list = [s for s in states if s.kind == "play" and s.legal["under"]][:1] + [s for s in states if s.kind == "rob"][:1]
    st_list += [s for s in states[:40] if s.kind in ("bid", "trump", "play")][:6]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(BOTS / "sdk"), str(ROOT)]), **QUICK_ENV)
    msgs = [
        {"type": "hello", "protocol": [1], "seed": seed, "harness": "test"},
        {"type": "game", "seat": 0, "profile": {}, "match_format": "game", "deals": None,
         "time": {"startup_ms": 10000, "decision_ms": 1000, "bank_ms": 60000}, "players": None},
        {"type": "deal", "index": 0, "dealer": 3, "hand": st_list[0].view["dealt"], "scores": [0, 0]},
    ]
    for i, s in enumerate(st_list):
        msgs.append({"type": "decide", "id": 100 + i, "kind": s.kind, "view": s.view, "legal": s.legal,
                     "time_left_ms": 60000, "decision_ms": 1000})
    msgs.append({"type": "bye", "reason": None})
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    replies = []
    try:
        for m in msgs:
            proc.stdin.write(json.dumps(m).encode() + b"\n")
            proc.stdin.flush()
            if m["type"] in ("hello", "decide"):
                line = proc.stdout.readline()
                assert line, proc.stderr.read().decode()
                replies.append(json.loads(line))
        proc.stdin.close()
        code = proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.stdout.read() == b""  # nothing unasked for
    hello = replies[0]
    assert hello["type"] == "hello" and hello["protocol"] == 1 and hello["name"]
    for i, (r, s) in enumerate(zip(replies[1:], st_list)):
        assert r["type"] == "action" and r["id"] == 100 + i
        assert s.choice.is_legal(action_from_dict(r["action"])), (s.legal, r)
    assert len(replies) == len(st_list) + 1
    return replies, code


@pytest.mark.parametrize("name", PY_BOTS)
def test_python_bot_process(name, states):
    replies, code = _talk([sys.executable, "bot.py"], BOTS / name, states)
    assert code == 0
    assert replies[0]["name"] == name


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_js_bot_process(states):
    replies, code = _talk(["node", "bot.js"], BOTS / "js-random", states)
    assert code == 0 and replies[0]["name"] == "js-random"
    again, _ = _talk(["node", "bot.js"], BOTS / "js-random", states)
    assert again == replies  # randomness comes from the hello seed only


def test_python_bot_exits_on_eof(states):
    env = dict(os.environ, PYTHONPATH=str(BOTS / "sdk"))
    proc = subprocess.run([sys.executable, "bot.py"], cwd=BOTS / "random", env=env, input=b"", capture_output=True, timeout=20)
    assert proc.returncode == 0 and proc.stdout == b""
