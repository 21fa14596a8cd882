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
