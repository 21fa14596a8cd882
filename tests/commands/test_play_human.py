"""`arena play --human SEAT`: a person plays a seat through the terminal, driven here through stdin.

The test reads what the command prints up to each prompt, answers from the
legal choice it shows (after one illegal answer, which must be explained and
asked again), and checks the finished game records every typed choice.
"""

from __future__ import annotations

import json
import os
import random
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from arena.engine import replay
from arena.players.human import parse_reply

ARENA = [sys.executable, "-c", "import sys; from arena.commands import main; sys.exit(main(sys.argv[1:]))"]


def read_until_prompt(proc: subprocess.Popen[bytes], deadline: float) -> str | None:
    """Everything printed up to the next "> " prompt, or None when the command has ended."""
    buf = b""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    while not buf.endswith(b"> "):
        if time.monotonic() > deadline:
            raise AssertionError(f"no prompt; so far:\n{buf.decode()}")
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:  # the game is over: what is left is its final text
            return None
        buf += chunk
    return buf.decode()


def answer(shown: str) -> str:
    """A legal answer from the choice line the seat was shown (the first option)."""
    line = [ln for ln in shown.splitlines() if ln and not ln.startswith("> ")][-1]
    if line.startswith("bid: "):
        return "pass" if line.endswith(" or pass") else line.split()[1]
    if line.startswith("name trumps: "):
        return line.split()[2]
    if line.startswith("play one of: "):
        return line.split()[3]
    if line.startswith(("take ", "discard ")):
        return "any"
    raise AssertionError(f"unexpected choice line: {line!r}")


def test_a_person_plays_a_seat_through_stdin(tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    proc = subprocess.Popen([*ARENA, "play", "--sandbox", "none", "--human", "S", "--key", "human-test", "--format",
                             "deals", "--deals", "2", "--save", str(saved)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None
    deadline = time.monotonic() + 120
    typed: list[str] = []
    first = True
    try:
        while (shown := read_until_prompt(proc, deadline)) is not None:
            assert "your hand: " in shown and "you are S (partner N)" in shown  # the seat's own view
            if first:  # an illegal answer is explained and asked again, never faulted
                proc.stdin.write(b"ZZ\n")
                proc.stdin.flush()
                again = read_until_prompt(proc, deadline)
                assert again is not None and "not legal: " in again
                first = False
            reply = answer(shown)
            typed.append(reply)
            proc.stdin.write(reply.encode() + b"\n")
            proc.stdin.flush()
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0, proc.stderr.read().decode() if proc.stderr else ""
    finally:
        proc.kill()
        proc.wait()
    assert len(typed) >= 4  # at least a deal's bid and plays were asked
    doc = json.loads(saved.read_text())
    assert doc["players"][2] == "you"
    game = replay(doc["record"])
    asked = [e for d in doc["record"]["deals"] for e in d["events"] if e["seat"] == 2 and not e["forced"]]
    assert len(asked) == len(typed)  # every choice the person typed is in the record, and nothing else
    for e, t in zip(asked, typed):
        if e["type"] == "play":
            assert e["card"] == t
        elif e["type"] == "bid":
            assert str(e["amount"]) == t
        elif e["type"] == "pass":
            assert t == "pass"
    assert game.over and doc["record"]["end"] == "deals"  # both deals played: nobody forfeited


def test_end_of_input_resigns_and_says_so() -> None:
    ran = subprocess.run([*ARENA, "play", "--sandbox", "none", "--human", "N", "--format", "deals", "--deals", "1"],
                         input=b"", capture_output=True, timeout=120)
    out = ran.stdout.decode()
    assert ran.returncode == 0, ran.stderr.decode()
    assert "fault: seat 0 (you) crash: the person at this seat stopped (end of input)" in out


def test_typed_replies_are_checked_against_the_legal_choice() -> None:
    bid = {"pass": True, "bids": [7, 8, 9]}
    assert parse_reply("bid", bid, "8") == {"type": "bid", "amount": 8}
    assert parse_reply("bid", bid, " Pass ") == {"type": "pass"}
    play = {"cards": ["KH", "QH"], "under": 2, "under_from": ["3H", "4H", "6H"]}
    assert parse_reply("play", play, "kh 3h 4h") == {"type": "play", "card": "KH", "under": ["3H", "4H"]}
    rob = {"take": 2, "from": ["KD", "AD", "4S"], "automatic": []}
    assert parse_reply("rob", rob, "KD, AD") == {"type": "rob", "take": ["KD", "AD"]}
    discard = {"least": 0, "most": 2, "from": ["2C", "3C"], "any": {"type": "discard", "cards": []}}
    assert parse_reply("discard", discard, "-") == {"type": "discard", "cards": []}
    assert parse_reply("discard", discard, "any") == {"type": "discard", "cards": []}
    for kind, legal, text in [("bid", bid, "10"), ("bid", {**bid, "pass": False}, "pass"), ("play", play, "KH 3H"),
                              ("play", play, "KH 3H 3H"), ("play", play, "JH 3H 4H"), ("rob", rob, "KD"),
                              ("rob", rob, "KD 5S"), ("discard", discard, "2C 3C 3C"), ("trump", {"suits": ["H"]}, "S"),
                              ("bid", bid, "")]:
        try:
            parse_reply(kind, legal, text)
        except ValueError as e:
            assert str(e)
        else:
            raise AssertionError(f"{kind} {text!r} was accepted")


def typed(action: dict) -> str:
    """What a person types for an action."""
    t = action["type"]
    if t == "pass":
        return "pass"
    if t == "bid":
        return f"{action['amount']}{action.get('suit') or ''}"
    if t == "trump":
        return action["suit"]
    if t == "play":
        return " ".join([action["card"], *action.get("under", [])])
    if t == "call":
        return "alone" if action.get("alone") else action["card"]
    if t in ("take_widow", "leave_widow"):  # a listed answer, by name
        return t
    cards = action.get("take", action.get("cards"))
    return " ".join(cards) if cards else "-"


def test_every_decision_of_every_profile_can_be_typed() -> None:
    """Under every registered profile, each choice the engine offers is shown, and typing a legal action
    gives that action back (the engine takes it); so a person can finish any game."""
    from arena.engine import Game, action_from_dict, action_to_dict, get_profile, profile_names
    from arena.players.human import show_legal, show_view
    from arena.protocol import choice_to_dict

    kinds: set[str] = set()
    for name in profile_names():
        game = Game(key=f"typed-{name}", profile=get_profile(name), max_deals=2)
        rng = random.Random(name)
        while not game.over:
            kind, legal = game.choice.kind, choice_to_dict(game.choice)
            assert show_view(game.view(game.to_act).to_dict()) and show_legal(kind, legal)
            want = game.choice.sample(rng)
            got = action_from_dict(parse_reply(kind, legal, typed(action_to_dict(want))))
            assert action_to_dict(got) == action_to_dict(want), (name, kind)
            game.apply(got)
            kinds.add(kind)
    assert {"bid", "trump", "play", "rob", "discard", "take_widow"} <= kinds


def test_a_listed_choice_is_shown_numbered_and_typed_by_number_or_name() -> None:
    """take_widow (monterey-widow, rules 12.14) lists its two answers: both can be typed, by number
    or by name, and anything else is explained, never taken."""
    from arena.players.human import show_legal

    legal = {"options": [{"type": "take_widow"}, {"type": "leave_widow"}], "any": {"type": "take_widow"}}
    assert show_legal("take_widow", legal) == "take_widow: type one of 1 take_widow, 2 leave_widow"
    assert parse_reply("take_widow", legal, "2") == {"type": "leave_widow"}
    assert parse_reply("take_widow", legal, "Leave_Widow") == {"type": "leave_widow"}
    assert parse_reply("take_widow", legal, "1") == {"type": "take_widow"}
    for bad in ("3", "leave", "pass"):
        try:
            parse_reply("take_widow", legal, bad)
        except ValueError as e:
            assert "1 take_widow, 2 leave_widow" in str(e)
        else:
            raise AssertionError(f"{bad!r} was accepted")
