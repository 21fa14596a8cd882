"""``arena bench tournament`` at a tiny size: it runs, its figures add up, and
the floor's decisions are the very messages the game sent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.bench.tournament import replay_game
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


@pytest.mark.slow
def test_bench_tournament_runs_and_its_figures_add_up() -> None:
    ran = arena("bench", "tournament", "--blocks", "1", "--deals", "1", "--config", "minimal:none")
    assert ran.code == 0, ran.err
    last = json.loads(ran.out.strip().splitlines()[-1])
    c = last["configs"]["minimal-none"]
    assert c["games"] == 2 and c["decisions_per_game"] > 0 and last["cores"] >= 1
    assert sum(c["split_ms"].values()) == pytest.approx(c["ms_per_game"], abs=0.05)
    floor = c["floor_ms"]
    # four figures, each rounded to 0.01 ms: their sums may differ by up to 0.02 (plus float error)
    assert floor["total"] == pytest.approx(floor["start"] + floor["decisions"] + floor["engine"], abs=0.021)
    k = 4 / min(4, last["cores"])  # both figures rounded to 0.01 ms, one of them then multiplied by k
    assert floor["start"] == pytest.approx(c["start_alone_ms"] * k, abs=0.005 * (1 + k) + 1e-9)
    assert c["ratio_of_totals"] == pytest.approx(c["ms_per_game"] / floor["total"], rel=0.01)
    assert c["ratio"] > 0 and last["ratio_minimal_none"] == c["ratio"]


def test_an_unknown_bot_or_level_is_refused_with_the_option_named() -> None:
    ran = arena("bench", "tournament", "--config", "minimal")
    assert ran.code == 2 and "--config" in ran.err
