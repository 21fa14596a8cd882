"""One game between four players: the engine loop, faults and the result.

The loop is the only place where players meet the engine: it builds each
decision request from the acting seat's view (and nothing else), checks
every answer against the legal choice, and applies the fault policy.
"""

from __future__ import annotations

import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, cast

from .._json import Json, JsonObject
from ..engine import Game, IllegalAction, game_record
from ..engine.chance import DeckSource
from ..players.base import Fault, Player, PlayerReport
from ..protocol import wire
from .keys import DealKey, substitute_seed
from .settings import MatchSettings


@dataclass
class SeatFault:
    seat: int
    bot: str
    deal: int
    decision: int
    fault: Fault
    substituted: str | None  # the action played instead, or None if it forfeited

    def to_dict(self) -> JsonObject:
        return {
            "seat": self.seat,
            "bot": self.bot,
            "deal": self.deal,
            "decision": self.decision,
            **self.fault.to_dict(),
            "substituted": self.substituted,
        }


@dataclass
class GameTiming:
    """Where one game's wall time went (run-dependent: benchmarks and reports, never results).

    ``start``: launching the seats and collecting their handshakes and the
    ``game`` notices; ``decisions``: the players' round trips (``decide``
    and the notices during play); ``engine``: the loop's own work (views,
    legal choices, requests, applying actions, the record); ``close``:
    closing the four seats (set by the block, which owns the players).
    """

    start: float = 0.0
    decisions: float = 0.0
    engine: float = 0.0
    close: float = 0.0


@dataclass
class GameResult:
    record: JsonObject  # the engine's game record (``engine.forms.GameRecordForm``), carried as written
    winner: int | None  # side 0 (seats 0+2), side 1, or None (unfinished / drawn)
    end: str  # target, bidder_out, deals, cap or forfeit
    scores: tuple[int, ...]
    forfeit_by: int | None = None  # seat whose fault ended the game
    faults: list[SeatFault] = field(default_factory=list)
    reports: list[PlayerReport] = field(default_factory=list)
    wall_s: float = 0.0
    timing: GameTiming = field(default_factory=GameTiming)


def play_game(
    players: Sequence[Player],
    settings: MatchSettings,
    key: DealKey,
    *,
    source: DeckSource | None = None,
    players_by_seat: Sequence[str] | None = None,
    stop_at: int | None = None,
    seeds: Sequence[int] | None = None,
) -> GameResult:
    """Play one game; the caller owns the players and closes them.

    ``seeds``: each seat's seed for this game, sent in its ``game`` notice
    (default: the seed each player was started with). A process kept for a
    lineage's next game gets that game's own seed there, so a bot that
    reseeds from it plays each game as a fresh process would.

    ``stop_at`` ends the game (as ``stopped``) right after that decision:
    reproducing a fault needs the game only up to it.

    The seats start side by side: all four are launched, then their
    handshakes are collected in seat order, each against its own allowance.
    The first seat (in seat order) that fails forfeits, as if they had
    started one after another; the caller closes every seat, started or not.
    """
    t0 = time.monotonic()
    clock = time.perf_counter
    c0 = clock()
    fixed = settings.fixed_deals
    game = Game(settings.profile, key=key, source=source, max_deals=max(settings.max_deals, fixed or 0), fixed_deals=fixed)
    faults: list[SeatFault] = []
    strikes = [0] * len(players)
    forfeit_by: int | None = None
    decision_no = 0
    talk = 0.0  # seconds in the players' round trips

    launched = [p.launch() for p in players]
    started = 0  # seats whose handshake is in, in seat order
    for seat, p in enumerate(players):
        fault = launched[seat] or p.start()
        if fault is not None:
            faults.append(SeatFault(seat, p.name, 0, 0, fault, None))
            forfeit_by = seat
            break
        started += 1
    if forfeit_by is None:
        start = game_start_notice(settings, players_by_seat)
        game_seeds = list(seeds) if seeds is not None else [p.seed for p in players]
        for seat, p in enumerate(players):
            fault = p.notify(start(seat, game_seeds[seat]))
            if fault is not None:
                faults.append(SeatFault(seat, p.name, 0, 0, fault, None))
                forfeit_by = seat
                break
    c_start = clock() - c0
    announced = -1
    # A deal's end is sent with the next deal's start (or the game's end): the
    # same lines in the same order for every seat, one write and wake-up per bot.
    pending: list[list[JsonObject | wire.Notice]] = [[] for _ in players]
    while forfeit_by is None and not game.over:
        deal = game.deal
        if deal.index != announced and (deal.phase != "dark" or any(pending)):
            # The deal notice names the hand, so it waits until the cards are dealt:
            # under a profile with bids in the dark, those decisions come first.
            dealt = deal.phase != "dark"
            if dealt:
                announced = deal.index
            c = clock()
            for seat, p in enumerate(players):
                p.notify_all([*pending[seat], *([wire.deal_start(game, seat)] if dealt else [])])
                pending[seat] = []
            talk += clock() - c
        seat = game.to_act
        choice = game.choice
        decision_no += 1
        request = wire.request(game, seat, choice, decision_no)
        c = clock()
        answer = players[seat].decide_request(request)
        talk += clock() - c
        fault = answer.fault
        broken = False  # the engine failed part-way through the bot's action: its state is not to be trusted
        if fault is None:
            try:
                game.apply(answer.action)  # type: ignore[arg-type]
            except IllegalAction as e:
                fault = Fault("illegal", str(e), request.to_dict(), answer.reply_text)
            except Exception as e:  # noqa: BLE001 - whatever the bot's action set off is the bot's illegal move
                fault = Fault("illegal", f"the action {answer.action!r} could not be applied"
                              f" ({type(e).__name__}: {e}): legal is {choice.explain()}", request.to_dict(),
                              answer.reply_text)
                broken = True
        if fault is not None:
            strikes[seat] += 1
            if not broken and settings.faults.mode == "substitute" and strikes[seat] <= settings.faults.strikes:
                action = choice.sample(random.Random(substitute_seed(key, deal.index, decision_no)))
                faults.append(SeatFault(seat, players[seat].name, deal.index, decision_no, fault, str(action)))
                game.apply(action)
            else:
                faults.append(SeatFault(seat, players[seat].name, deal.index, decision_no, fault, None))
                forfeit_by = seat
                break
        if stop_at is not None and decision_no >= stop_at:
            break
        if deal.done:
            for s, notice in enumerate(wire.deal_end_notices(game, deal.index, range(len(players)))):
                pending[s].append(notice)
    if forfeit_by is not None:
        winner: int | None = forfeit_winner(game.profile.players, game.profile.sides, forfeit_by)
        end = "forfeit"
    elif not game.over:
        winner, end = None, "stopped"
    else:
        winner, end = game.winner, game.end_reason or "cap"
    c = clock()
    for seat, p in enumerate(players[:started]):  # a seat launched after the one that failed never heard of the game
        if p.alive:
            p.notify_all([*pending[seat], wire.game_end(game.scores, winner, end)])
    talk += clock() - c
    record = game_record(game)
    total = clock() - c0
    return GameResult(
        record=record,
        winner=winner,
        end=end,
        scores=game.scores,
        forfeit_by=forfeit_by,
        faults=faults,
        wall_s=time.monotonic() - t0,
        timing=GameTiming(start=c_start, decisions=talk, engine=total - c_start - talk),
    )



def game_start_notice(settings: MatchSettings,
                      players_by_seat: Sequence[str] | None = None) -> Callable[[int, int], JsonObject]:
    """The ``game`` notice for a seat and its seed for this game (the same for all seats but those two)."""
    profile = settings.profile.model_dump(mode="json")  # every parameter: bots need not know the name
    time = settings.time.model_dump(include={"startup_ms", "decision_ms", "bank_ms"})
    names = list(players_by_seat) if settings.reveal_players and players_by_seat else None
    return wire.game_starts(profile, settings.format, settings.fixed_deals, time, names)


def forfeit_winner(_players: int, sides: str, seat: int) -> int | None:
    """Who wins when ``seat`` forfeits: the other pair; at a table of single scores nobody
    (there is no one opponent to give the game to)."""
    return 1 - seat % 2 if sides == "pairs" else None


def settings_profile(record: JsonObject) -> tuple[int, str]:
    """(players, sides) of a game's record (absent fields: a four-seat table of pairs)."""
    p = record.get("profile") or {}
    fields = cast(JsonObject, p)  # a record's profile: an object
    return int(cast(int, fields.get("players", 4))), str(fields.get("sides", "pairs"))


def blame_cleanup(result: GameResult, names: Sequence[str]) -> None:
    """A bot that left its sandbox in a state that resisted cleanup forfeits the game.

    Cleanup trouble can only come from what the bot did to its own sandbox
    (the harness's own failures raise instead), and a bot that does it may
    be trying to void a game it lost: it is its fault, whatever the score.
    """
    for seat, rep in enumerate(result.reports):
        if not rep.trouble:
            continue
        fault = Fault("sandbox", "left its sandbox in a state that resisted cleanup: " + "; ".join(rep.trouble)[:1000])
        deal = len(cast(list[Json], result.record.get("deals") or [])) - 1
        result.faults.append(SeatFault(seat, names[seat], max(deal, 0), 0, fault, None))
        if result.forfeit_by is None:
            profile = settings_profile(result.record)
            result.forfeit_by, result.winner, result.end = seat, forfeit_winner(profile[0], profile[1], seat), "forfeit"


_closer: ThreadPoolExecutor | None = None


def _forget_closer() -> None:
    global _closer
    _closer = None  # a forked child has none of its parent's threads


os.register_at_fork(after_in_child=_forget_closer)


def _close_one(p: Player) -> PlayerReport | BaseException:
    try:
        return p.close()
    except BaseException as e:  # noqa: BLE001 - reported by close_all once every seat is closed
        return e


def close_all(players: Sequence[Player]) -> list[PlayerReport]:
    """Close every player, whatever happens to any one of them.

    A failure while closing one seat must not leave the other three
    sandboxes running: all are closed first, then the first error (in seat
    order) is raised. Every seat is halted (told ``bye`` without waiting)
    before any is reaped, and the four are then closed on threads of their
    own: each bot's grace after ``bye`` and most of a close (the kernel
    tearing down a namespace, a cgroup and a scratch folder) are waits that
    overlap.
    """
    global _closer
    error: BaseException | None = None
    for p in players:
        try:
            p.halt()
        except BaseException as e:  # noqa: BLE001 - close() below retries and reports it
            error = error or e
    if len(players) > 1:
        if _closer is None:
            _closer = ThreadPoolExecutor(4, thread_name_prefix="arena-close")
        done = list(_closer.map(_close_one, players))
    else:
        done = [_close_one(p) for p in players]
    reports: list[PlayerReport] = []
    for p, r in zip(players, done):
        if isinstance(r, BaseException):
            reports.append(PlayerReport(p.name, p.version))
            error = error or r
        else:
            reports.append(r)
    if error is not None:
        raise error
    return reports
