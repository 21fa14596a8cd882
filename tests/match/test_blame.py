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


def test_any_exception_while_applying_a_bots_action_is_its_illegal_move(monkeypatch) -> None:
    """Should the engine ever fail part-way through a bot's action (a bug the bot found),
    the bot is blamed with the evidence and forfeits (its deal cannot be trusted to go on,
    so nothing is substituted), and the block is scored, never voided."""
    from arena.engine import Deal

    real = Deal._do

    def flaky(self: Deal, seat: int, action: Any, forced: bool) -> None:
        if seat == 1 and not forced:
            raise KeyError("engine bug")
        real(self, seat, action, forced)

    monkeypatch.setattr(Deal, "_do", flaky)
    clean = entry("clean")
    settings = MatchSettings.model_validate({"format": "deals", "deals": 2, "faults": {"mode": "substitute", "strikes": 5}})
    result = play_block((clean, clean), (clean, clean), 0, "blame", settings, lambda e, seed: Messy(e.name, False))
    for game in result.games:
        (f,) = game.faults
        assert game.end == "forfeit" and game.forfeit_by == f.seat == 1 and f.substituted is None
        assert f.fault.kind == "illegal" and "KeyError" in f.fault.message and "engine bug" in f.fault.message
        assert f.fault.request is not None and f.fault.request["kind"] == "bid"
    assert result.score_a() == 1.0  # one game to each side: scored, not a harness failure
