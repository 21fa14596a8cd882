"""A deal's end reaches each bot process together with the next deal's start
(or the game's end): one write, one wake-up, the same lines in the same order."""

from __future__ import annotations

import json
from typing import Any

from arena.match import MatchSettings, close_all, play_game
from arena.players import BotEntry, Manifest, MockTransport, ProcessPlayer
from arena.sandbox import SandboxSpec

from .test_parallel_start import _autoanswer

ENTRY = BotEntry(manifest=Manifest(name="scripted", command=["bot"]), dir="/nonexistent", digest="0" * 64)


def test_deal_end_and_the_next_deal_start_come_in_one_write() -> None:
    settings = MatchSettings.model_validate({"format": "deals", "deals": 3, "sandbox": "rlimit"})
    bots = [MockTransport() for _ in range(4)]
    _autoanswer(bots)  # answers each line; the recorder below sees each write whole
    writes: list[list[list[str]]] = [[] for _ in range(4)]
    for seat, b in enumerate(bots):
        inner = b.write_line

        def record(data: bytes, timeout: float = 5.0, seat: int = seat, inner: Any = inner) -> None:
            writes[seat].append([json.loads(line)["type"] for line in data.splitlines()])
            inner(data, timeout)

        b.write_line = record  # type: ignore[method-assign]
    players = [ProcessPlayer(ENTRY, s, settings.time, SandboxSpec(level="rlimit"), launcher=b.launcher)
               for s, b in enumerate(bots)]
    try:
        result = play_game(players, settings, "notices")
    finally:
        close_all(players)
    assert result.faults == [] and result.end == "deals"
    for seat in range(4):
        flat = [t for w in writes[seat] for t in w]
        assert flat.count("deal") == 3 and flat.count("deal_end") == 3 and flat[:3] == ["hello", "game", "deal"]
        joined = [w for w in writes[seat] if len(w) > 1]
        assert joined == [["deal_end", "deal"], ["deal_end", "deal"], ["deal_end", "game_end"]], writes[seat]
        # every deal_end is followed by the next deal's start (or the game's end), as it always was
        ends = [i for i, t in enumerate(flat) if t == "deal_end"]
        assert [flat[i + 1] for i in ends] == ["deal", "deal", "game_end"]


def test_bids_in_the_dark_come_before_the_deal_notice_and_after_the_last_deal_end() -> None:
    """louisiana-dark: the ``deal`` notice names the hand, so the round in the dark is asked
    first, with an empty hand, and the previous deal's end still comes before it."""
    from cinch_bot import random_legal

    from arena.players import PolicyPlayer

    class Recorder:
        def __init__(self) -> None:
            self.log: list[tuple[Any, ...]] = []
            self.rng = __import__("random").Random(3)

        def start_deal(self, msg: dict[str, Any]) -> None:
            self.log.append(("deal", msg["index"], len(msg["hand"])))

        def end_deal(self, msg: dict[str, Any]) -> None:
            self.log.append(("deal_end", msg["index"]))

        def decide(self, kind: str, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any]:
            self.log.append(("decide", view["deal_index"], view["phase"], len(view["hand"]) + len(view["dealt"])))
            if view["phase"] == "dark":  # the dealer bids in the dark every other deal
                return {"type": "bid", "amount": 14} if view["seat"] == view["dealer"] and view["deal_index"] % 2 else {"type": "pass"}
            return random_legal(legal, kind, self.rng)

    settings = MatchSettings.model_validate({"format": "deals", "deals": 4, "sandbox": "none", "profile": "louisiana-dark"})
    bots = [Recorder() for _ in range(4)]
    players = [PolicyPlayer(b, s) for s, b in enumerate(bots)]
    result = play_game(players, settings, "dark-notices")
    assert result.faults == [] and result.end == "deals"
    assert [d.get("dark", False) for d in result.record["deals"]] == [False, True, False, True]
    for b in bots:
        log = b.log
        dark = [e for e in log if e[0] == "decide" and e[2] == "dark"]
        assert dark and all(e[3] == 0 for e in dark)  # nothing dealt yet: no hand, no dealt cards
        for e in dark:
            i = log.index(e)
            assert ("deal", e[1], 9) not in log[:i] and ("deal", e[1], 9) in log[i:]
            assert e[1] == 0 or ("deal_end", e[1] - 1) in log[:i]
        for k in range(4):  # no other decision of a deal before its deal notice
            first = log.index(("deal", k, 9))
            assert all(e[2] == "dark" for e in log[:first] if e[0] == "decide" and e[1] == k)
