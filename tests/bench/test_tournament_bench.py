"""``arena bench tournament`` at a tiny size: it runs, its figures add up, and
the floor's decisions are the very messages the game sent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.bench.tournament import encoded_stream, engine_alone, replay_game
from arena.engine import action_from_dict
from arena.match import MatchSettings, play_game
from arena.players import Decision, Fault, Player

from ..cli import arena
from ..wire_actions import simple_action


class Logging(Player):
    """First legal option; keeps every message it gets, as a bot process would see it."""

    def __init__(self, seat: int, log: list[tuple[int, dict[str, Any]]]) -> None:
        self.seat, self.log, self.name = seat, log, f"log-{seat}"

    def notify(self, msg: dict[str, Any]) -> Fault | None:
        self.log.append((self.seat, json.loads(json.dumps(msg))))
        return None

    def decide(self, request: dict[str, Any]) -> Decision:
        self.log.append((self.seat, json.loads(json.dumps(request))))
        return Decision(action_from_dict(simple_action(request["kind"], request["legal"], pick=-1)))


def test_the_floor_replays_exactly_the_messages_the_game_sent() -> None:
    settings = MatchSettings.model_validate({"format": "deals", "deals": 3})
    seen: list[tuple[int, dict[str, Any]]] = []
    game = play_game([Logging(s, seen) for s in range(4)], settings, "floor-key", players_by_seat=["a", "b", "c", "d"])
    rebuilt: list[tuple[int, dict[str, Any]]] = []
    replay_game(game.record, settings, "floor-key", ["a", "b", "c", "d"], rebuilt)
    for _, m in rebuilt:  # the time figures a bot process gets are the replay's own
        m.pop("time_left_ms", None), m.pop("decision_ms", None)
    assert len(seen) > 50 and json.loads(json.dumps(rebuilt)) == json.loads(json.dumps(seen))


def test_a_record_that_does_not_replay_is_refused() -> None:
    settings = MatchSettings.model_validate({"format": "deals", "deals": 1})
    game = play_game([Logging(s, []) for s in range(4)], settings, "floor-key")
    with pytest.raises(Exception):
        replay_game(game.record, settings, "another-key", ["a", "b", "c", "d"])


def test_the_floor_joins_a_bots_notices_in_a_row_and_keeps_each_request_alone() -> None:
    stream = [(0, {"type": "deal_end", "index": 0}), (0, {"type": "deal", "index": 1}), (1, {"type": "deal", "index": 1}),
              (0, {"type": "decide", "id": 1}), (0, {"type": "decide", "id": 2}), (1, {"type": "game_end"})]
    sends = encoded_stream(stream)
    assert [(seat, ask) for seat, _, ask in sends] == [(0, False), (1, False), (0, True), (0, True), (1, False)]
    # the first write: both notices, in order, as JSON lines
    assert [json.loads(x)["type"] for x in sends[0][1].splitlines()] == ["deal_end", "deal"]
    assert b"".join(data for _, data, _ in sends).count(b"\n") == len(stream)


def test_the_engine_alone_replays_a_game_and_refuses_one_it_cannot() -> None:
    settings = MatchSettings.model_validate({"format": "deals", "deals": 2})
    game = play_game([Logging(s, []) for s in range(4)], settings, "engine-key")
    assert engine_alone(game.record, settings, "engine-key") > 0
    with pytest.raises(RuntimeError, match="does not replay"):
        engine_alone(game.record, settings, "another-key")


@pytest.mark.slow
def test_bench_tournament_runs_and_its_figures_add_up() -> None:
    ran = arena("bench", "tournament", "--blocks", "2", "--lineage-blocks", "2", "--deals", "1", "--config", "minimal:none")
    assert ran.code == 0, ran.err
    last = json.loads(ran.out.strip().splitlines()[-1])
    assert last["cores"] >= 1 and last["blocks"] == 2 and len(last["load_before"]) == 3
    config = last["configs"]["minimal-none"]
    for mode in ("per-game", "per-lineage"):
        c = config[mode]
        assert c["games"] == 4 and c["decisions_per_game"] > 0
        assert sum(c["split_ms"].values()) == pytest.approx(c["ms_per_game"], abs=0.05)
        floor = c["floor_ms"]
        assert floor["raw"] > 0 and floor["engine"] > 0
        assert floor["total"] == pytest.approx(floor["raw"] + floor["engine"], abs=0.011)
        assert c["ratio_of_totals"] == pytest.approx(c["ms_per_game"] / floor["total"], rel=0.01)
        # one batch: the median of one pair is the totals' ratio
        assert c["ratio"] == pytest.approx(c["ratio_of_totals"], rel=0.01)
        assert last[f"ratio_minimal_none_{mode.replace('-', '_')}"] == c["ratio"]
    assert config["lineage_speedup"] == pytest.approx(
        config["per-game"]["ms_per_game"] / config["per-lineage"]["ms_per_game"], rel=0.01)


def test_an_unknown_bot_or_level_is_refused_with_the_option_named() -> None:
    ran = arena("bench", "tournament", "--config", "minimal")
    assert ran.code == 2 and "--config" in ran.err
