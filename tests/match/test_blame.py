"""What a bot leaves behind in its sandbox is its own fault: the block is scored, never voided."""

from __future__ import annotations

from typing import Any

from arena.engine import action_from_dict
from arena.match import MatchSettings, play_block
from arena.players import BotEntry, Decision, Fault, Manifest, Player, PlayerReport

from ..wire_actions import simple_action


class Messy(Player):
    """Plays the first legal option; its sandbox 'resisted cleanup' if ``messy``."""

    def __init__(self, name: str, messy: bool) -> None:
        self.name, self.messy = name, messy

    def notify(self, msg: dict[str, Any]) -> Fault | None:
        return None

    def decide(self, request: dict[str, Any]) -> Decision:
        return Decision(action_from_dict(simple_action(request["kind"], request["legal"])))

    def close(self) -> PlayerReport:
        return PlayerReport(self.name, trouble=["scratch: 5000 nested folders left"] if self.messy else [])


def entry(name: str) -> BotEntry:
    return BotEntry(manifest=Manifest(name=name, command=["x"]), dir="/", digest=name * 8)


def test_a_bot_whose_sandbox_resists_cleanup_forfeits_and_the_block_is_scored() -> None:
    clean, messy = entry("clean"), entry("messy")
    settings = MatchSettings.model_validate({"format": "deals", "deals": 2})
    result = play_block((clean, clean), (messy, messy), 0, "blame", settings,
                        lambda e, seed: Messy(e.name, e.name == "messy"))
    for half, game in enumerate(result.games):
        messy_side = 1 if half == 0 else 0  # partnership B sits on engine side 1 in game 0, side 0 in game 1
        assert game.end == "forfeit" and game.winner == 1 - messy_side
        kinds = {(f.bot, f.fault.kind) for f in game.faults}
        assert kinds == {("messy", "sandbox")}
        assert "nested folders" in game.faults[0].fault.message
    assert result.score_a() == 2.0  # scored for the clean side, not voided as a harness failure
