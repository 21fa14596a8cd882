"""Lineages (match.restart: per-lineage): processes kept up between games never meet a deal twice."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from arena.commands import main
from arena.engine import DealFile
from arena.match import BlockSpec, MatchSettings, play_blocks
from arena.players import load_entry
from arena.schedule import (
    BatchTask,
    PlanRefused,
    check_plan,
    load_config,
    make_units,
    plan_tasks,
    run_block,
)

from .conftest import FIRST, LAST, TESTBOT, write_config

REMEMBER = {"name": "remember", "version": "1", "command": ["{python}", "bot.py"], "env": {"MODE": "remember"}}
QUIET = ["--skip-check", "--no-rate"]
LINEAGE = {"sandbox": "none", "format": "deals", "deals": 2, "restart": "per-lineage", "lineage_blocks": 3}


def _manifest(tmp_path: Path, data: dict, name: str = "remember.yaml") -> Path:
    """A manifest beside the test bot's own (its folder is the test bot's)."""
    import shutil

    import yaml

    folder = tmp_path / data["name"]
    if not folder.exists():
        shutil.copytree(TESTBOT, folder)
    (folder / "bot.yaml").write_text(yaml.safe_dump(data))
    return folder


def _tasks(tmp_path: Path, **fields):
    tmp_path.mkdir(parents=True, exist_ok=True)
    t = load_config(write_config(tmp_path, **fields))
    return t, plan_tasks(t)


def test_batches_follow_the_config_never_the_workers(tmp_path: Path) -> None:
    _, tasks = _tasks(tmp_path, blocks=7, match=LINEAGE, workers=1)
    units = make_units(tasks)
    assert [[b.block for b in u.blocks] for u in units] == [[0, 1, 2], [3, 4, 5], [6]]
    _, tasks2 = _tasks(tmp_path / "w2", blocks=7, match=LINEAGE, workers=2)
    assert [u.key for u in make_units(tasks2)] == [u.key for u in units]
    # a batch with a block missing is played whole again; a batch all stored is not played
    stored = {x.key for x in tasks if x.block in (0, 1, 2, 4)}
    assert [[b.block for b in u.blocks] for u in make_units(tasks, stored)] == [[3, 4, 5], [6]]
    per_game = [dataclasses.replace(x, settings=MatchSettings(sandbox="none", restart="per-game")) for x in tasks]
    assert make_units(per_game) == per_game


def test_check_plan_refuses_a_process_meeting_a_deal_twice(tmp_path: Path) -> None:
    _, tasks = _tasks(tmp_path, blocks=2, match=LINEAGE)
    twice = BatchTask((tasks[0], dataclasses.replace(tasks[1], block_key=tasks[0].block_key)))
    with pytest.raises(PlanRefused, match="would meet the same deal"):
        check_plan([twice])
    bots = {e.ident: e for e in [load_entry(FIRST)]}
    with pytest.raises(PlanRefused):  # the worker checks too, before any process starts
        run_block(twice, bots)
    df = DealFile.from_key("x", 2)  # two blocks replaying one deal file meet the same decks
    same = BatchTask((dataclasses.replace(tasks[0], deal_file=df), dataclasses.replace(tasks[1], deal_file=df)))
    with pytest.raises(PlanRefused, match="deck"):
        check_plan([same])
    check_plan(make_units(tasks))  # the planner's own batches pass


def test_restart_fields_keep_old_config_hashes(tmp_path: Path) -> None:
    """Per-game leaves the restart fields out of the hash (a folder played before they existed keeps its
    hash); per-lineage, the default, is in it whether written or not."""
    for d in "abcde":
        (tmp_path / d).mkdir()
    match = {"sandbox": "none", "format": "deals", "deals": 2}
    base = load_config(write_config(tmp_path / "a", match={**match, "restart": "per-game"}))
    same = load_config(write_config(tmp_path / "b", match={**match, "restart": "per-game", "lineage_blocks": 3}))
    assert same.config_hash() == base.config_hash()
    facts = base.config.match.hash_facts()
    assert "restart" not in facts and "lineage_blocks" not in facts
    default = load_config(write_config(tmp_path / "c", match=match))
    assert default.settings.restart == "per-lineage" and default.settings.lineage_blocks == 8
    named = load_config(write_config(tmp_path / "d", match={**match, "restart": "per-lineage"}))
    assert default.config_hash() == named.config_hash() != base.config_hash()
    assert load_config(write_config(tmp_path / "e", match=LINEAGE)).config_hash() not in (base.config_hash(),
                                                                                           default.config_hash())


def _remember_run(tmp_path: Path, blocks: int, extra: list[str] | None = None, **fields) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    bot = _manifest(tmp_path, REMEMBER)
    cfg = write_config(tmp_path, blocks=blocks, entries=[str(bot), str(FIRST)], match=LINEAGE, **fields)
    assert main(["run", str(cfg), *QUIET, *(extra or [])]) == 0
    return tmp_path / "out"


def _faults_and_stderr(out: Path) -> tuple[list, str]:
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    faults = [f for d in lines for g in d["games"] for f in g["faults"]]
    text = "".join(p.read_text() for p in (out / "stderr").rglob("*.txt")) if (out / "stderr").exists() else ""
    return faults, text


def test_a_remembering_bot_never_sees_a_hand_twice(tmp_path: Path) -> None:
    out = _remember_run(tmp_path, 3)
    faults, text = _faults_and_stderr(out)
    assert faults == [] and "DEJA-VU" not in text
    assert "remember: game 3" in text  # one process played its lineage's three games


def test_the_remembering_bot_does_catch_a_repeat(tmp_path: Path) -> None:
    """The control: bypass the planner and replay one key twice to the same processes."""
    bot = load_entry(_manifest(tmp_path, REMEMBER))
    first = load_entry(FIRST)
    settings = MatchSettings(**LINEAGE)
    results = play_blocks((bot, bot), (first, first), [BlockSpec(0, "k"), BlockSpec(1, "k")], settings, settings.player)
    kinds = [f.fault.kind for f in results[1].games[0].faults]
    assert "illegal" in kinds


@pytest.mark.slow
@pytest.mark.parametrize("schedule", [None, "gauntlet", "mixed"])
def test_no_repeat_in_every_schedule_and_extension(tmp_path: Path, schedule: str | None) -> None:
    bot = _manifest(tmp_path, REMEMBER)
    other = _manifest(tmp_path, {**REMEMBER, "name": "remember2", "env": {"MODE": "remember", "PICK": "last"}})
    sched = {"kind": schedule, "candidate": str(bot)} if schedule == "gauntlet" else (
        {"kind": schedule} if schedule else None)
    cfg = write_config(tmp_path, blocks=4, entries=[str(bot), str(other), str(FIRST), str(LAST)], match=LINEAGE,
                       **({"schedule": sched} if sched else {}))
    assert main(["run", str(cfg), *QUIET]) == 0
    cfg = write_config(tmp_path, blocks=8, entries=[str(bot), str(other), str(FIRST), str(LAST)], match=LINEAGE,
                       **({"schedule": sched} if sched else {}))
    assert main(["run", str(cfg), *QUIET, "--extend"]) == 0
    faults, text = _faults_and_stderr(tmp_path / "out")
    assert faults == [] and "DEJA-VU" not in text and "remember: game 3" in text


@pytest.mark.slow
def test_no_repeat_in_sprt(tmp_path: Path) -> None:
    bot = _manifest(tmp_path, REMEMBER)
    out = tmp_path / "sprt"
    code = main(["sprt", "--candidate", str(bot), "--baseline", str(FIRST), "--sandbox", "none", "--format", "deals",
                 "--deals", "2", "--max-blocks", "6", "--min-blocks", "2", "--restart", "per-lineage",
                 "--lineage-blocks", "3", "--seed", "s", "--out", str(out), "--skip-check", "--quiet"])
    assert code in (0, 1, 2)
    faults, text = _faults_and_stderr(out)
    assert faults == [] and "DEJA-VU" not in text and "remember: game" in text


@pytest.mark.slow
def test_per_lineage_same_results_on_one_and_two_workers(tmp_path: Path, ray_session) -> None:
    a = _remember_run(tmp_path / "one", 4)
    b = _remember_run(tmp_path / "two", 4, backend="ray", workers=2)
    from arena.results import comparable

    def table(out: Path) -> dict:
        return {(d["pairing"], d["block"]): comparable(d)
                for d in map(json.loads, (out / "results.jsonl").read_text().splitlines())}

    assert table(a) == table(b)
    for out in (a, b):
        faults, text = _faults_and_stderr(out)
        assert faults == [] and "DEJA-VU" not in text


@pytest.mark.slow
def test_kill_mid_run_then_resume_per_lineage(tmp_path: Path) -> None:
    """A batch cut by kill -9 is played again whole with fresh processes: results equal the uninterrupted run's."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from arena.results import comparable

    ref = _remember_run(tmp_path / "ref", 9)
    bot = _manifest(tmp_path, REMEMBER)
    cfg = write_config(tmp_path, blocks=9, entries=[str(bot), str(FIRST)], match=LINEAGE)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "arena", "run", str(cfg), *QUIET]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and results.read_bytes().count(b"\n") >= 1):
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 1 <= results.read_bytes().count(b"\n") < 9, "the kill should land mid-run"
    assert subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120).returncode == 0

    def table(o: Path) -> dict:
        return {(d["pairing"], d["block"]): comparable(d)
                for d in map(json.loads, (o / "results.jsonl").read_text().splitlines())}

    assert table(out) == table(ref)
    faults, text = _faults_and_stderr(out)
    assert faults == [] and "DEJA-VU" not in text


@pytest.mark.slow
@pytest.mark.bwrap
def test_nothing_survives_a_fault_restart(tmp_path: Path) -> None:
    carry = _manifest(tmp_path, {"name": "carry", "version": "1", "command": ["{python}", "bot.py"],
                                 "env": {"MODE": "carry", "AT": "2"}})
    cfg = write_config(tmp_path, blocks=3, entries=[str(carry), str(FIRST)],
                       match={**LINEAGE, "sandbox": "bwrap"})
    assert main(["run", str(cfg), *QUIET]) == 0
    faults, text = _faults_and_stderr(tmp_path / "out")
    assert faults and {f["kind"] for f in faults} == {"crash"}  # every process crashed, none found a marker
    assert "CARRIED" not in text


def test_a_bot_that_reseeds_each_game_plays_the_same_games_either_way() -> None:
    """Kept processes get each game's own seed in its ``game`` notice: the random baseline (which
    reseeds there) plays the very games of fresh processes, seeds in the record included."""
    random_bot = load_entry(Path(__file__).resolve().parents[2] / "bots" / "random")
    first = load_entry(FIRST)
    specs = [BlockSpec(b, f"reseed-{b}") for b in range(3)]
    played = {}
    for restart in ("per-game", "per-lineage"):
        settings = MatchSettings(**{**LINEAGE, "restart": restart})
        results = play_blocks((random_bot, first), (first, random_bot), specs, settings, settings.player)
        played[restart] = [r.game_dict(h) for r in results for h in (0, 1)]
    assert played["per-game"] == played["per-lineage"]
    seeds = [tuple(g["seeds"]) for g in played["per-lineage"]]
    assert len(set(seeds)) == len(seeds)  # each game its own seeds, also along a lineage


class _CountStop:
    """A stopping rule wanting ``n`` blocks of each pairing. Dishonest, its ``wants_after`` says
    "stop" while ``wants`` still wants more: as when a batch's cleanup changed a provisional line."""

    def __init__(self, n: int, honest: bool = True) -> None:
        self.n, self.honest, self.seen, self.asked = n, honest, {}, 0

    def add(self, task, line) -> None:
        self.seen[task.pairing] = self.seen.get(task.pairing, 0) + 1

    def wants(self, task) -> bool:
        return self.seen.get(task.pairing, 0) < self.n

    def wants_after(self, lines, task) -> bool:
        self.asked += 1
        return self.honest and self.seen.get(task.pairing, 0) + len(lines) < self.n

    @property
    def done(self) -> bool:
        return bool(self.seen) and all(v >= self.n for v in self.seen.values())


def _stopping_run(tmp_path: Path, rule: _CountStop):
    from functools import partial

    from arena.results import ResultsStore
    from arena.schedule import run_tasks
    from arena.schedule.backends import SerialBackend

    from .conftest import policy_factory

    t, tasks = _tasks(tmp_path, blocks=6, match={**LINEAGE, "lineage_blocks": 6})
    played: list[int] = []

    def task_fn(task, bots, **kw):
        out = run_block(task, bots, make_player=policy_factory({"first": "first", "last": "last"}), **kw)
        played.extend(line.block for line in out.lines)
        return out

    store = ResultsStore(t.out)
    outcome = run_tasks(tasks, SerialBackend({e.ident: e for e in t.entries}, task_fn), store, stop=rule)
    return outcome, sorted(b for _, b in store.lines), played


def test_a_batch_in_this_process_ends_at_the_verdict(tmp_path: Path) -> None:
    """Served serially, a batch asks the stopping rule after each block and plays nothing past it."""
    outcome, stored, played = _stopping_run(tmp_path, _CountStop(3))
    assert stored == [0, 1, 2] and played == [0, 1, 2]
    assert outcome.skipped == 3 and not outcome.failures


def test_a_batch_cut_on_a_line_that_changed_is_played_again_whole(tmp_path: Path) -> None:
    """The rule stopped the batch on a provisional line but still wants what was cut: the batch is
    played again from its first block, as a resume would, and whole (a cut that a bot's cleanup
    undoes every time must not loop); stored blocks are not written twice."""
    rule = _CountStop(3, honest=False)
    outcome, stored, played = _stopping_run(tmp_path, rule)
    assert played == [0, 0, 1, 2, 3, 4, 5]  # cut after block 0, then played whole (never cut twice)
    assert stored == [0, 1, 2, 3, 4, 5] and rule.asked == 1 and outcome.played == 6


@pytest.mark.slow
def test_sprt_per_lineage_stores_what_per_game_does(tmp_path: Path) -> None:
    """The same verdict from the same blocks: batches end at the verdict (nothing past it is played)
    and kept processes get each game's seed, so the scored lines are the per-game run's."""
    bots = Path(__file__).resolve().parents[2] / "bots"
    scored = {}
    for restart in ("per-game", "per-lineage"):
        out = tmp_path / restart
        code = main(["sprt", "--candidate", str(bots / "heuristic"), "--baseline", str(bots / "random"),
                     "--sandbox", "none", "--format", "deals", "--deals", "2", "--elo0", "0", "--elo1", "300",
                     "--min-blocks", "2", "--max-blocks", "20", "--restart", restart, "--lineage-blocks", "10",
                     "--seed", "q", "--out", str(out), "--skip-check", "--quiet"])
        assert code == 0
        lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
        scored[restart] = sorted((d["pairing"], d["block"], json.dumps(d["games"], sort_keys=True)) for d in lines)
    assert scored["per-game"] == scored["per-lineage"]
    assert len(scored["per-game"]) < 40  # decided before the limit: the comparison covers a verdict
