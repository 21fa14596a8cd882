"""``arena bench solver``: the exact solver's speed, and the pimc bot's CPU time a decision.

Positions: deals of the profile played at random (the engine's own deals, random bids and
cards) stopped with 6, 5 and 4 tricks left to play; each is solved for every legal card of
the seat to act (what a play decision of pimc asks of one world), by the compiled core and,
on a few, by its pure-Python twin. Decisions: in-process games of pimc (seats 0 and 2)
against the heuristic bot, every pimc decision timed in CPU seconds of this process, until
``--decisions`` of them; the bot's budget is counted in nodes, so the times say whether the
count fits the time budget on this machine (the load average is printed alongside: other
work on the cores slows a process even in CPU time, through caches and frequency).
The last line printed is one JSON object.
"""

from __future__ import annotations

import json
import os
import random
import time
from typing import Any, NotRequired, Required, TypedDict, cast

from arena.engine import Deal, DealKey, KeyedSource, PlayChoice, get_profile
from arena.engine.forms import ActionForm, LegalForm, ViewForm
from arena.engine.view import deal_view
from arena.match.keys import bot_seed, child_key
from arena.match.game import play_game
from arena.match.settings import MatchSettings
from arena.players.policy import PolicyPlayer

from .bots import load_bot_class

BUDGET_MS = 100.0


def positions(profile_name: str, tricks_left: int, count: int, seed: str) -> list[Any]:
    """Play states with ``tricks_left`` tricks to play (a trick's first card to come), from deals
    played at random, as the pimc bot's sampler builds them (the true hands as its sample)."""
    load_bot_class("pimc")  # (puts the SDK on the path, as the harness's library would)
    from cinch_bot.cards import tables_for
    from cinch_bot.sim import Sampler
    from cinch_bot.strategy import Facts

    profile = get_profile(profile_name)
    params = profile.model_dump(mode="json")
    tables = tables_for(params)
    rng = random.Random(seed)
    out: list[Any] = []
    k = 0
    while len(out) < count and k < 50 * count:
        deal = Deal(profile, k, k % 4, (0,) * profile.score_slots, KeyedSource(DealKey(seed)))
        k += 1
        while not deal.done and not (deal.phase == "play" and not deal.tricks[-1].plays
                                     and len(deal.tricks) - 1 == profile.hand_size - tricks_left):
            deal.apply(deal.choice.sample(rng))
        if deal.done or not isinstance(deal.choice, PlayChoice):
            continue
        view = deal_view(deal, deal.to_act).to_dict()
        out.append(Sampler(view, Facts(view, tables, params)).state([list(h) for h in deal.hands], view))
    return out


class SpeedRow(TypedDict):
    """The solver's speed at one number of tricks left."""

    positions: int
    positions_per_s: float | None
    mean_ms: float
    max_ms: float
    nodes_per_position: int
    nodes_per_s: int | None
    twin_positions: NotRequired[int]
    twin_slower: NotRequired[float | None]


#: ``solve_speed``: whether the core is compiled, and a row per tricks left (None: no such position).
SolveFigures = TypedDict("SolveFigures", {"compiled": bool, "6": SpeedRow | None, "5": SpeedRow | None,
                                          "4": SpeedRow | None})


class KindFigures(TypedDict):
    n: int
    max_ms: float


class DecisionFigures(TypedDict):
    """CPU milliseconds of pimc's decisions (``decision_times``)."""

    games: int
    decisions: int
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    over_budget: int
    by_kind: dict[str, KindFigures]


class SolverReport(TypedDict, total=False):
    """The JSON line of ``arena bench solver``."""

    bench: Required[str]
    profile: Required[str]
    load_before: Required[list[float]]
    solve: SolveFigures
    decisions: DecisionFigures
    load_after: list[float]


def solve_speed(profile: str, count: int, twin: int) -> SolveFigures:
    """Per tricks left: positions a second, their mean and slowest time, nodes a second."""
    from cinch_bot.solver import compiled, solve_cards

    rows: dict[int, SpeedRow | None] = {}
    for left in (6, 5, 4):
        sts = positions(profile, left, count, f"bench-solver-{profile}-{left}")
        if not sts:
            rows[left] = None
            continue
        times, nodes = [], 0
        for st in sts:
            t0 = time.process_time()
            _, n = solve_cards(st)
            times.append(time.process_time() - t0)
            nodes += n
        total = sum(times)
        row: SpeedRow = {
            "positions": len(sts), "positions_per_s": round(len(sts) / total, 1) if total else None,
            "mean_ms": round(1000 * total / len(sts), 3), "max_ms": round(1000 * max(times), 3),
            "nodes_per_position": round(nodes / len(sts)), "nodes_per_s": round(nodes / total) if total else None,
        }
        if twin and left == 4 and compiled():
            few = sts[:twin]
            t0 = time.process_time()
            for st in few:
                solve_cards(st, python=True)
            py = time.process_time() - t0
            t0 = time.process_time()
            for st in few:
                solve_cards(st)
            core = time.process_time() - t0
            row["twin_positions"] = len(few)
            row["twin_slower"] = round(py / core, 1) if core else None
        rows[left] = row
    return {"compiled": compiled(), "6": rows[6], "5": rows[5], "4": rows[4]}


def decision_times(profile: str, decisions: int, key: str) -> DecisionFigures:
    """CPU milliseconds of each pimc decision in games against the heuristic bot."""
    pimc, heuristic = load_bot_class("pimc"), load_bot_class("heuristic")
    times: list[tuple[str, float]] = []

    class Timed(pimc):  # type: ignore[misc, valid-type]
        def decide(self, kind: str, view: ViewForm, legal: LegalForm) -> ActionForm:
            t0 = time.process_time()
            action = super().decide(kind, view, legal)
            times.append((kind, 1000 * (time.process_time() - t0)))
            return cast(ActionForm, dict(action))

    settings = MatchSettings(profile=profile)
    g = 0
    while len(times) < decisions:
        gkey = child_key(key, g)
        makers = [Timed, heuristic, Timed, heuristic]
        play_game([PolicyPlayer(makers[s](), bot_seed(gkey, 0, s)) for s in range(4)], settings, gkey)
        g += 1
    times = times[:decisions]
    ms = sorted(t for _, t in times)

    def q(p: float) -> float:
        return round(ms[min(len(ms) - 1, int(p * len(ms)))], 2)

    kinds = sorted({k for k, _ in times})
    return {
        "games": g, "decisions": len(ms), "p50_ms": q(0.5), "p90_ms": q(0.9), "p99_ms": q(0.99),
        "max_ms": round(ms[-1], 2), "over_budget": sum(1 for t in ms if t > BUDGET_MS),
        "by_kind": {k: {"n": sum(1 for x, _ in times if x == k),
                        "max_ms": round(max(t for x, t in times if x == k), 2)} for k in kinds},
    }


def run(args: Any) -> int:
    load = os.getloadavg()
    out: SolverReport = {"bench": "solver", "profile": args.profile, "load_before": [round(x, 2) for x in load]}
    speed = solve_speed(args.profile, args.positions, args.twin)
    out["solve"] = speed
    print(f"solver ({'compiled core' if speed['compiled'] else 'pure Python: the core is not built'}), "
          f"{args.profile}, every legal card of the seat to act:", flush=True)
    for left, r in (("6", speed["6"]), ("5", speed["5"]), ("4", speed["4"])):
        if r is None:
            print(f"  {left} tricks left: no such position in {args.profile}")
            continue
        twin = f"; the Python twin {r['twin_slower']}x slower on {r['twin_positions']}" if "twin_slower" in r else ""
        print(f"  {left} tricks left: {r['positions_per_s']} positions/s (mean {r['mean_ms']} ms, slowest "
              f"{r['max_ms']} ms, {r['nodes_per_position']:,} nodes each, {r['nodes_per_s']:,} nodes/s){twin}", flush=True)
    if args.decisions:
        d = decision_times(args.profile, args.decisions, args.key)
        out["decisions"] = d
        print(f"pimc decisions ({d['games']} games against heuristic): CPU ms p50 {d['p50_ms']}, p90 {d['p90_ms']}, "
              f"p99 {d['p99_ms']}, max {d['max_ms']}; {d['over_budget']} of {d['decisions']} over {BUDGET_MS:.0f} ms",
              flush=True)
    out["load_after"] = [round(x, 2) for x in os.getloadavg()]
    print(f"load average before {out['load_before']}, after {out['load_after']} ({os.cpu_count()} cores)")
    print(json.dumps(out, sort_keys=True))
    return 0
