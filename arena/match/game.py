"""One game between four players: the engine loop, faults and the result.

The loop is the only place where players meet the engine: it builds each
decision request from the acting seat's view (and nothing else), checks
every answer against the legal choice, and applies the fault policy.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..engine import SUITS, Game, IllegalAction, cards_str, derive_key, game_record
from ..engine.chance import DeckSource
from ..protocol import choice_to_dict
from ..players.base import Fault, Player, PlayerReport
from .settings import MatchSettings


@dataclass
class SeatFault:
    seat: int
    bot: str
    deal: int
    decision: int
    fault: Fault
    substituted: str | None  # the action played instead, or None if it forfeited

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "deal": self.deal,
            "decision": self.decision,
            **self.fault.to_dict(),
            "substituted": self.substituted,
        }


@dataclass
class GameResult:
    record: dict[str, Any]  # the engine's game record
    winner: int | None  # side 0 (seats 0+2), side 1, or None (unfinished / drawn)
    end: str  # target, bidder_out, deals, cap or forfeit
    scores: tuple[int, int]
    forfeit_by: int | None = None  # seat whose fault ended the game
    faults: list[SeatFault] = field(default_factory=list)
    reports: list[PlayerReport] = field(default_factory=list)
    wall_s: float = 0.0


def _substitute_rng(key: str, deal: int, decision: int) -> random.Random:
    return random.Random(int(derive_key("substitute", key, deal, decision), 16))


def play_game(
    players: Sequence[Player],
    settings: MatchSettings,
    key: str,
    *,
    source: DeckSource | None = None,
    players_by_seat: Sequence[str] | None = None,
    stop_at: int | None = None,
) -> GameResult:
    """Play one game; the caller owns the players and closes them.

    ``stop_at`` ends the game (as ``stopped``) right after that decision:
    reproducing a fault needs the game only up to it.
    """
    t0 = time.monotonic()
    fixed = settings.deals if settings.format == "deals" else None
    game = Game(settings.profile, key=key, source=source, max_deals=max(settings.max_deals, fixed or 0), fixed_deals=fixed)
    faults: list[SeatFault] = []
    strikes = [0, 0, 0, 0]
    forfeit_by: int | None = None
    decision_no = 0

    for seat, p in enumerate(players):
        fault = p.start()
        if fault is not None:
            faults.append(SeatFault(seat, p.name, 0, 0, fault, None))
            forfeit_by = seat
            break
    if forfeit_by is None:
        for seat, p in enumerate(players):
            p.notify(
                {
                    "type": "game",
                    "seat": seat,
                    "profile": settings.profile.model_dump(),
                    "match_format": settings.format,
                    "deals": fixed,
                    "time": settings.time.model_dump(include={"startup_ms", "decision_ms", "bank_ms"}),
                    "players": list(players_by_seat) if settings.reveal_players and players_by_seat else None,
                }
            )
    announced = -1
    while forfeit_by is None and not game.over:
        deal = game.deal
        if deal.index != announced:
            announced = deal.index
            for seat, p in enumerate(players):
                p.notify({"type": "deal", "index": deal.index, "dealer": deal.dealer, "hand": cards_str(deal.dealt[seat]), "scores": list(deal.scores_before)})
        seat = game.to_act
        choice = game.choice
        decision_no += 1
        request = {
            "type": "decide",
            "id": decision_no,
            "kind": choice.kind,
            "view": game.view(seat).to_dict(),
            "legal": choice_to_dict(choice),
        }
        answer = players[seat].decide(request)
        fault = answer.fault
        if fault is None:
            try:
                game.apply(answer.action)  # type: ignore[arg-type]
            except IllegalAction as e:
                fault = Fault("illegal", str(e), request, answer.reply_text)
        if fault is not None:
            strikes[seat] += 1
            if settings.faults.mode == "substitute" and strikes[seat] <= settings.faults.strikes:
                action = choice.sample(_substitute_rng(key, deal.index, decision_no))
                faults.append(SeatFault(seat, players[seat].name, deal.index, decision_no, fault, str(action)))
                game.apply(action)
            else:
                faults.append(SeatFault(seat, players[seat].name, deal.index, decision_no, fault, None))
                forfeit_by = seat
                break
        if stop_at is not None and decision_no >= stop_at:
            break
        if deal.done:
            for s, p in enumerate(players):
                v = game.deals[deal.index]
                p.notify(
                    {
                        "type": "deal_end",
                        "index": deal.index,
                        "maker": v.maker,
                        "bid": v.high,
                        "trump": SUITS[v.trump],  # type: ignore[index]
                        "points": list(v.points),  # type: ignore[arg-type]
                        "made": v.made,
                        "scores": list(v.scores_after),  # type: ignore[arg-type]
                        "view": _final_view(game, deal.index, s),
                    }
                )
    if forfeit_by is not None:
        winner: int | None = 1 - forfeit_by % 2
        end = "forfeit"
    elif not game.over:
        winner, end = None, "stopped"
    else:
        winner, end = game.winner, game.end_reason or "cap"
    for p in players:
        if p.alive:
            p.notify({"type": "game_end", "scores": list(game.scores), "winner": winner, "reason": end})
    return GameResult(
        record=game_record(game),
        winner=winner,
        end=end,
        scores=game.scores,
        forfeit_by=forfeit_by,
        faults=faults,
        wall_s=time.monotonic() - t0,
    )


def _final_view(game: Game, index: int, seat: int) -> dict[str, Any]:
    from ..engine.view import deal_view, summarize

    previous = tuple(summarize(d) for d in game.deals[:index])
    return deal_view(game.deals[index], seat, previous).to_dict()
