"""The tempo audit (issue 41): idle time on move and what it says of the hand, per bot and seat.

Fast tests build real game records (the engine, seeded random play) with the run facts a bot's
timing would leave; the slow ones audit real round robins: the baselines are never flagged."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Callable

import pytest
import yaml

from arena.engine import Game, game_record
from arena.engine.cards import CARD_NAMES
from arena.engine.record import replay
from arena.publish.tempo import audit as typed_audit
from arena.results import BotRef, GameLine, PairsLine, RunInfo, ResultLine

POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}


def audit(lines: list[ResultLine]) -> dict:
    """The audit as tempo.json holds it (``TempoAudit``'s JSON form)."""
    return typed_audit(lines).model_dump(mode="json")
#: (rng, hand points, seat) -> (latency, cpu, wait) in ms
Timing = Callable[[random.Random, int, int], tuple[float, float, float]]


def honest(rng: random.Random, points: int, seat: int = 0) -> tuple[float, float, float]:
    cpu = rng.uniform(1, 30)
    return cpu + rng.uniform(0, 1), cpu, 0.0


def typed(raw: list[dict]) -> list[PairsLine]:
    """The audit's lines as the store gives them, built without the schema's checks: the audit reads only
    the seats, the records and the run facts, which these hand-made lines carry."""
    def game(g: dict) -> GameLine:
        return GameLine.model_construct(seats=[BotRef.model_construct(**s) for s in g["seats"]], record=g["record"])

    return [PairsLine.model_construct(games=[game(g) for g in ln["games"]],
                                      run=RunInfo.model_construct(**ln["run"]) if "run" in ln else RunInfo())
            for ln in raw]


def raw_lines(timing_of: dict[str, Timing], games: int = 30, seed: int = 1) -> list[dict]:
    """Results lines of `games` 2-deal games; seats 0 and 2 are bot "a", 1 and 3 bot "b"."""
    rng = random.Random(seed)
    out = []
    for n in range(games):
        g = Game(key=f"audit-{seed}-{n}", fixed_deals=2)
        while not g.over:
            g.apply(g.choice.sample(rng))
        record = game_record(g)
        dealt = [[sum(POINTS.get(CARD_NAMES[c][0], 0) for c in hand) for hand in d.dealt]
                 for d in replay(record).deals]
        players = [{"bot": "ab"[s % 2], "latency_ms": [], "cpu_ms": [], "wait_ms": []} for s in range(4)]
        for d in record["deals"]:
            for e in d["events"]:
                if e["type"] == "reshuffle" or e["forced"]:
                    continue
                p = players[e["seat"]]
                la, cp, wa = timing_of[p["bot"]](rng, dealt[d["index"]][e["seat"]], e["seat"])
                p["latency_ms"].append(la)
                p["cpu_ms"].append(cp)
                p["wait_ms"].append(wa)
        out.append({"games": [{"seats": [{"bot": "ab"[s % 2]} for s in range(4)], "record": record}],
                    "run": {"games": [{"players": players}]}})
    return out


def lines(timing_of: dict[str, Timing], games: int = 30, seed: int = 1) -> list[PairsLine]:
    return typed(raw_lines(timing_of, games, seed))


def by_seat(a: dict) -> dict[tuple[str, int], dict]:
    return {(f["bot"], f["seat"]): f for f in a["seats"]}


def test_honest_bots_that_compute_are_not_flagged() -> None:
    a = audit(lines({"a": honest, "b": honest}))
    assert a["flagged"] == []
    assert sorted(by_seat(a)) == [("a", 0), ("a", 2), ("b", 1), ("b", 3)]
    for f in a["seats"]:
        assert f["games"] == 30 and f["decisions"] > 50 and f["idle_ms_mean"] < 1 and f["mi_z"] < 6


def test_a_bot_that_sleeps_its_hand_is_flagged_on_both_counts() -> None:
    """Idle time that grows with the hand's high-card points: idle, and it tells of the hand."""
    def sleeper(rng: random.Random, points: int, seat: int) -> tuple[float, float, float]:
        return 2 + 15 * points + rng.uniform(0, 3), 2.0, 0.0

    a = audit(lines({"a": sleeper, "b": honest}))
    assert a["flagged"] == ["a"]
    for seat in (0, 2):
        f = by_seat(a)[("a", seat)]
        assert "idle on move" in f["why"] and "tells of its hand" in f["why"]
        assert f["mi_bits"] - f["mi_null_bits"] > 0.05 and f["mi_z"] >= 6
    assert not by_seat(a)[("b", 1)]["flagged"] and not by_seat(a)[("b", 3)]["flagged"]


def test_a_sender_is_flagged_at_its_own_seat_where_pooling_with_its_partner_would_hide_it() -> None:
    """The pairs format: one copy of the bot sends (sleeps, at seat 0), its partner (the same bot at
    seat 2) only reads. The sender's seat is flagged on both counts; its partner's is not; pooled,
    the partner's honest decisions would halve the idle time, under the idle flag's threshold."""
    def half(rng: random.Random, points: int, seat: int) -> tuple[float, float, float]:
        if seat == 2:
            return honest(rng, points)
        return 8 + points + rng.uniform(0, 0.5), 2.0, 0.0  # 6 ms idle and a ms a high-card point: 13.6 ms

    a = audit(lines({"a": half, "b": honest}, games=40))
    assert a["flagged"] == ["a"]
    sender, partner = by_seat(a)[("a", 0)], by_seat(a)[("a", 2)]
    assert sender["flagged"] and "idle on move" in sender["why"] and "tells of its hand" in sender["why"]
    assert not partner["flagged"] and partner["idle_ms_mean"] < 1
    both = (sender["idle_ms_mean"] * sender["decisions"] + partner["idle_ms_mean"] * partner["decisions"]) / (
        sender["decisions"] + partner["decisions"])
    assert both < 10 <= sender["idle_ms_mean"]  # pooled, the idle flag would not have been raised


def test_waiting_for_a_core_is_not_idle() -> None:
    """A busy machine: long latencies, all of it CPU or waiting for a core."""
    def starved(rng: random.Random, points: int, seat: int) -> tuple[float, float, float]:
        cpu = rng.uniform(1, 30)
        return cpu * 5, cpu, cpu * 4

    a = audit(lines({"a": starved, "b": honest}))
    assert a["flagged"] == [] and by_seat(a)[("a", 0)]["idle_ms_mean"] < 1e-6


def test_random_sleeps_are_idle_but_tell_nothing() -> None:
    def napper(rng: random.Random, points: int, seat: int) -> tuple[float, float, float]:
        return 1 + rng.uniform(0, 200), 1.0, 0.0

    for seat in (0, 2):
        f = by_seat(audit(lines({"a": napper, "b": honest})))[("a", seat)]
        assert f["flagged"] and "idle on move" in f["why"] and "tells" not in f["why"]
        assert f["mi_z"] < 6


def test_degenerate_input() -> None:
    """No lines, lines without run facts (an old run), too few decisions: figures, no flag."""
    assert audit([]) == {"thresholds": audit([])["thresholds"], "seats": [], "flagged": []}
    old = raw_lines({"a": honest, "b": honest}, games=2)
    for ln in old:
        del ln["run"]
    assert audit(typed(old))["seats"] == []
    few = lines({"a": lambda rng, p, s: (500.0, 0.0, 0.0), "b": honest}, games=1)
    f = by_seat(audit(few))[("a", 0)]
    assert f["decisions"] < 40 and not f["flagged"] and f["idle_ms_mean"] == 500.0
    no_wait = raw_lines({"a": honest, "b": honest}, games=3)
    for ln in no_wait:
        for p in ln["run"]["games"][0]["players"]:
            del p["wait_ms"]  # runs before the field: wait taken as 0
    assert by_seat(audit(typed(no_wait)))[("a", 0)]["decisions"] > 0


def test_the_audit_is_deterministic() -> None:
    data = raw_lines({"a": honest, "b": honest}, games=10)
    assert audit(typed(data)) == audit(typed(json.loads(json.dumps(data))))


@pytest.mark.slow
def test_no_baseline_bot_is_flagged_over_a_round_robin(tmp_path: Path) -> None:
    """random, heuristic, montecarlo and pimc in a round robin of 60 one-deal games at bwrap:
    `arena rate` writes the audit, and it flags none of them."""
    from arena.commands import main

    from ..sandbox import collusion

    collusion.need("bwrap")
    bots = Path(__file__).resolve().parents[2] / "bots"
    config = tmp_path / "rr.yaml"
    config.write_text(yaml.safe_dump({
        "name": "tempo-baselines", "entries": [str(bots / b) for b in ("random", "heuristic", "montecarlo", "pimc")],
        "schedule": {"kind": "round_robin"}, "blocks": 5, "seed": "tempo-audit-baselines",
        "match": {"sandbox": "bwrap", "format": "deals", "deals": 1}, "backend": "serial", "workers": 1,
        "out": str(tmp_path / "out")}))
    assert main(["run", str(config), "--skip-check", "--no-rate", "--quiet"]) == 0
    assert main(["rate", str(tmp_path / "out"), "--out", str(tmp_path / "lb"), "--bootstrap", "0", "--quiet"]) == 0
    a = json.loads((tmp_path / "lb" / "tempo.json").read_text())
    print(json.dumps(a["seats"], indent=1))
    assert sum(f["games"] for f in a["seats"]) == 4 * 60  # 60 games, four seats in each
    assert {(f["bot"], f["seat"]) for f in a["seats"]} == {
        (b, s) for b in ("random", "heuristic", "montecarlo", "pimc") for s in range(4)}
    assert a["flagged"] == [], a
