"""An open competition's time defaults under a fixed tempo (issue 41): what the baseline bots need.

With ``tempo: fixed`` every decision costs a whole slot of wall time, so the defaults are a CPU
limit the baselines fit in and a slot just above it (``arena.serve.config``): the slow test plays a
default block of the baselines that think and measures its length on the tempo's own clock (slots),
never on the wall clock of this machine."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from arena.serve.config import SERVE_DECISION_MS, SERVE_SLOT_MARGIN_MS, CompetitionConfig, CompetitionConfigError, load

ROOT = Path(__file__).resolve().parents[2]
#: A default block (two full games) may take at most this much game time: a ladder batch of
#: `ladder_blocks` (4) blocks on one worker then plays in well under half an hour. The old default
#: (1,000 ms CPU, a 3,050 ms slot) took about 20 minutes a block.
BLOCK_GAME_TIME_S = 300


def time_of(match: dict | None = None) -> tuple[str, int, int | None]:
    t = CompetitionConfig.model_validate({} if match is None else {"match": match}).match.time
    return t.tempo, t.decision_ms, t.slot_ms


def test_the_defaults_are_a_limit_the_bots_need_and_a_slot_just_above_it() -> None:
    assert time_of() == ("fixed", SERVE_DECISION_MS, SERVE_DECISION_MS + SERVE_SLOT_MARGIN_MS) == ("fixed", 250, 400)
    assert CompetitionConfig().match.time.slot_s == 0.4  # the default factory and the validator agree
    # the host's limit carries its slot with it; the host's slot is kept
    assert time_of({"time": {"decision_ms": 1000}}) == ("fixed", 1000, 1150)
    assert time_of({"time": {"slot_ms": 900}}) == ("fixed", 250, 900)
    assert time_of({"time": {"decision_ms": 100, "slot_ms": 120}}) == ("fixed", 100, 120)
    # tempo free (asked for, or at level none): a decision takes what the bot uses, `arena run`'s limit
    assert time_of({"time": {"tempo": "free"}}) == ("free", 1000, None)
    assert time_of({"sandbox": "none"}) == ("free", 1000, None)
    assert time_of({"sandbox": "none", "time": {"tempo": "fixed"}}) == ("fixed", 250, 400)


def test_a_slot_the_limit_does_not_fit_is_refused_with_its_field(tmp_path: Path) -> None:
    (tmp_path / "competition.yaml").write_text("match:\n  time: {slot_ms: 250}\n")
    with pytest.raises(CompetitionConfigError, match=r"match\.time.*slot_ms \(250\) must be above decision_ms \(250\)"):
        load(tmp_path)
    (tmp_path / "competition.yaml").write_text("match:\n  time: fast\n")
    with pytest.raises(CompetitionConfigError, match=r"match\.time"):
        load(tmp_path)


def game_time_s(game: dict, slot_ms: int) -> tuple[float, float]:
    """(nominal, actual) game time of one game's run facts on the fixed tempo's clock: every
    decision one slot, and each answer as many whole slots as it landed after (a late one the next)."""
    lat = [x for p in game["players"] for x in p["latency_ms"]]
    return len(lat) * slot_ms / 1000, sum(max(1, math.ceil(x / slot_ms - 1e-9)) for x in lat) * slot_ms / 1000


@pytest.mark.slow
def test_a_default_competition_plays_a_block_of_the_baselines_in_bounded_game_time(tmp_path: Path) -> None:
    """montecarlo against pimc (the baselines that think; random and heuristic use a few ms) under
    the competition's default match settings, as the ladder plays them (gvisor, tempo fixed, full
    games): no fault, and the block's game time, counted in slots, within BLOCK_GAME_TIME_S."""
    from arena.commands import main

    from ..sandbox.conftest import need_gvisor

    need_gvisor()
    match = CompetitionConfig().match.model_dump(mode="json", exclude_unset=True)  # what build_ladder passes
    assert match["sandbox"] == "gvisor" and match["time"]["tempo"] == "fixed"
    config = tmp_path / "rr.yaml"
    config.write_text(yaml.safe_dump({
        "name": "serve-defaults", "entries": [str(ROOT / "bots" / b) for b in ("montecarlo", "pimc")],
        "schedule": {"kind": "round_robin"}, "blocks": 1, "seed": "serve-time-defaults", "match": match,
        "backend": "serial", "workers": 1, "out": str(tmp_path / "out")}))
    assert main(["run", str(config), "--skip-check", "--no-rate", "--quiet"]) == 0
    (line,) = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    faults = [f for g in line["games"] for f in g["faults"]]
    assert not faults, faults
    slot = CompetitionConfig().match.time.slot_ms
    assert slot is not None
    times = [game_time_s(g, slot) for g in line["run"]["games"]]
    nominal, actual = sum(t[0] for t in times), sum(t[1] for t in times)
    cpu = sorted(x for g in line["run"]["games"] for p in g["players"] for x in p["cpu_ms"])
    print(f"block: {nominal:.0f} s of game time at one slot a decision, {actual:.0f} s with the late answers'"
          f" slots; CPU a decision p50 {cpu[len(cpu) // 2]:.1f} ms, max {cpu[-1]:.1f} ms")
    assert len(line["games"]) == 2 and all(g["record"]["deals"] for g in line["games"])
    # what the defaults decide (the machine's lateness is not theirs: counted, printed, not bounded here)
    assert nominal <= BLOCK_GAME_TIME_S, times
    assert cpu[-1] < SERVE_DECISION_MS  # (else a fault above): the baselines fit the default limit
