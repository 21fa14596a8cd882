"""Tournaments at tables of n seats: the config, the schedules, blocks by rotation, resume and lineages."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path

import pytest
import yaml

from arena.commands import main
from arena.engine import DealFile, replay
from arena.results import comparable
from arena.schedule import ConfigError, PlanRefused, check_plan, load_config, make_units, plan_tasks, run_block
from arena.schedule.tables import balanced, meetings, valid_counts

from .conftest import TESTBOT, policy_factory, write_config

QUIET = ["--skip-check", "--no-rate"]
CT3 = {"sandbox": "none", "format": "deals", "deals": 2, "profile": "cutthroat-3"}


def _bots(tmp_path: Path, k: int) -> list[str]:
    """``k`` copies of the test bot under names of their own, first and last pickers alternating."""
    out = []
    for i in range(k):
        folder = tmp_path / "bots" / f"b{i}"
        if not folder.exists():
            shutil.copytree(TESTBOT, folder)
            (folder / "bot.yaml").write_text(yaml.safe_dump(
                {"name": f"b{i}", "version": "1", "command": ["{python}", "bot.py"],
                 "env": {"PICK": "first" if i % 2 == 0 else "last"}}))
        out.append(str(folder))
    return out


def _error(tmp_path: Path, **fields) -> str:
    with pytest.raises(ConfigError) as e:
        load_config(write_config(tmp_path, **fields))
    return str(e.value)


def test_config_problems_of_a_table_name_their_field(tmp_path: Path) -> None:
    four = _bots(tmp_path, 4)
    msg = _error(tmp_path, match={**CT3, "profile": "five-hand"}, entries=four)
    assert "entries" in msg and "five-hand seats 5" in msg and "got 4" in msg
    msg = _error(tmp_path, match=CT3, entries=four, schedule={"kind": "mixed"})
    assert "schedule.kind" in msg and "round_robin or gauntlet" in msg
    msg = _error(tmp_path, match=CT3, entries=four, schedule={"tables": 3})
    assert "schedule.tables" in msg and "use one of 4, 8" in msg  # 3 tables of 3 cannot share 4 entrants evenly
    msg = _error(tmp_path, entries=four, schedule={"tables": 2})  # pagat62: pairings, no tables
    assert "schedule.tables" in msg and "pagat62" in msg
    msg = _error(tmp_path, match=CT3, entries=four, schedule={"kind": "gauntlet", "candidate": four[0],
                                                             "baselines": [four[1]]})
    assert "schedule.baselines" in msg and "at least 2 baselines" in msg
    msg = _error(tmp_path, match=CT3, entries=four, schedule={"tables": 0})
    assert "schedule.tables" in msg


def test_every_combination_keyed_by_identity_and_rotated(tmp_path: Path) -> None:
    bots = _bots(tmp_path, 4)
    t = load_config(write_config(tmp_path, match=CT3, entries=bots, blocks=2))
    tasks = plan_tasks(t)
    assert len(tasks) == 2 * 4 and {x.block for x in tasks} == {0, 1}
    keys = {x.pairing for x in tasks}
    assert keys == {"table:" + "+".join(sorted(e.ident for e in c)) for c in combinations(t.entries, 3)}
    assert all(x.games == 3 and not x.side_a for x in tasks)
    (tmp_path / "r").mkdir()
    t2 = load_config(write_config(tmp_path / "r", match=CT3, entries=bots[::-1], blocks=2))
    assert [(x.key, x.table) for x in plan_tasks(t2)] == [(x.key, x.table) for x in tasks]  # order of entries: nothing


def test_balanced_design_equal_play_and_even_meetings() -> None:
    ids = [f"e{i:02d}" for i in range(9)]
    plan = balanced(ids, 4, 9, 6)  # 9 tables of 4 a block: each of 9 plays 4 a block
    for blk in plan:
        assert len(blk) == 9 and all(len(set(t)) == 4 for t in blk)
        assert {sum(e in t for t in blk) for e in ids} == {4}
    m = meetings(plan)
    vals = [m.get((a, b), 0) for a, b in combinations(ids, 2)]
    avg = sum(vals) / len(vals)  # 6 blocks * 9 tables * 6 pairs / 36 pairs = 9
    assert avg == 9 and max(vals) - min(vals) <= 2
    assert balanced(ids, 4, 9, 4) == plan[:4]  # online: more blocks keep the earlier ones
    assert valid_counts(9, 4) == [9, 18, 27, 36] and valid_counts(10, 5) == [2, 4, 6, 8]
    with pytest.raises(ValueError, match="at least 5"):
        balanced(ids[:4], 5, 1, 1)


def test_gauntlet_seats_the_candidate_at_every_table(tmp_path: Path) -> None:
    bots = _bots(tmp_path, 5)
    t = load_config(write_config(tmp_path, match=CT3, entries=bots, blocks=3,
                                 schedule={"kind": "gauntlet", "candidate": bots[2], "tables": 2}))
    cand = t.candidate
    assert cand is not None and cand.name == "b2"
    tasks = plan_tasks(t)
    assert len(tasks) == 3 * 2 and all(cand.ident in x.table for x in tasks)
    for b in range(3):  # each of the four baselines once a block
        seen = [i for x in tasks if x.block == b for i in x.table if i != cand.ident]
        assert sorted(seen) == sorted(e.ident for e in t.entries if e != cand)


def test_a_block_by_rotation_holds_every_seats_cards_once(tmp_path: Path) -> None:
    t = load_config(write_config(tmp_path, match={**CT3, "profile": "five-hand"}, entries=_bots(tmp_path, 5)))
    (task,) = plan_tasks(t)
    modes = {f"b{i}": ("first", "last", "random")[i % 3] for i in range(5)}
    line = run_block(task, {e.ident: e for e in t.entries}, make_player=policy_factory(modes)).line
    assert line.table is not None and [r.bot for r in line.table] == [t_.split("@")[0] for t_ in task.table]
    names = [r.bot for r in line.table]
    hands: dict[str, set[tuple[int, int]]] = {n: set() for n in names}
    for r, g in enumerate(line.games):
        assert [s.bot for s in g.seats] == [names[(s - r) % 5] for s in range(5)]
        game = replay(g.record)
        assert g.record["deals"][0]["deck"] == line.games[0].record["deals"][0]["deck"]
        for s, who in enumerate(g.seats):
            hands[who.bot].add((s, hash(tuple(game.deals[0].dealt[s]))))
        assert g.winner is None or 0 <= g.winner < 5
    assert all(sorted(s for s, _ in v) == [0, 1, 2, 3, 4] for v in hands.values())  # each seat's cards once
    assert len({h for v in hands.values() for _, h in v}) == 5  # and the same five hands go round
    stored = json.loads(line.to_json())
    assert "side_a" not in stored and "score_a" not in stored and all("side_a" not in g for g in stored["games"])


@pytest.mark.slow
def test_kill_nine_mid_run_then_resume_equals_uninterrupted(tmp_path: Path) -> None:
    bots = _bots(tmp_path, 4)
    ref = write_config(tmp_path, match=CT3, entries=bots, blocks=2)  # 4 tables x 2 blocks
    assert main(["run", str(ref), *QUIET, "--out", str(tmp_path / "ref")]) == 0
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "arena", "run", str(ref), *QUIET, "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and results.read_bytes().count(b"\n") >= 1):
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 1 <= results.read_bytes().count(b"\n") < 8, "the kill should land mid-run"
    assert subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120).returncode == 0

    def lines(o: Path) -> dict:
        return {(d["pairing"], d["block"]): comparable(d) for d in map(json.loads, (o / "results.jsonl").read_text().splitlines())}

    assert len(lines(out)) == 8 and lines(out) == lines(tmp_path / "ref")
    assert json.loads((out / "summary.json").read_text())["games"] == 8 * 3


def test_lineages_at_a_table_never_meet_a_deal_twice(tmp_path: Path) -> None:
    lineage = {**CT3, "restart": "per-lineage", "lineage_blocks": 2}
    t = load_config(write_config(tmp_path, match=lineage, entries=_bots(tmp_path, 3), blocks=3))
    tasks = plan_tasks(t)
    units = make_units(tasks)
    assert [[b.block for b in getattr(u, "blocks", (u,))] for u in units] == [[0, 1], [2]]
    check_plan(units)
    import dataclasses

    from arena.schedule import BatchTask

    twice = BatchTask((tasks[0], dataclasses.replace(tasks[1], block_key=tasks[0].block_key)))
    with pytest.raises(PlanRefused, match="entrant"):
        check_plan([twice])
    df = DealFile.from_key("x", 2)
    same = BatchTask((dataclasses.replace(tasks[0], deal_file=df), dataclasses.replace(tasks[1], deal_file=df)))
    with pytest.raises(PlanRefused, match="deck"):
        check_plan([same])
    remember = []
    for i in range(3):  # three remembering bots: one that met a hand twice would say DEJA-VU and play illegally
        folder = tmp_path / "rem" / f"r{i}"
        shutil.copytree(TESTBOT, folder)
        (folder / "bot.yaml").write_text(yaml.safe_dump({"name": f"r{i}", "version": "1", "command": ["{python}", "bot.py"],
                                                         "env": {"MODE": "remember"}}))
        remember.append(str(folder))
    (tmp_path / "run").mkdir()
    assert main(["run", str(write_config(tmp_path / "run", match=lineage, entries=remember, blocks=2)), *QUIET]) == 0
    out = tmp_path / "run" / "out"
    got = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(d["block"] for d in got) == [0, 1] and got[0]["run"]["batch"]["blocks"] == 2
    text = "".join(p.read_text() for p in (out / "stderr").rglob("*.txt"))
    assert [f for d in got for g in d["games"] for f in g["faults"]] == [] and "DEJA-VU" not in text
    assert "remember: game 2" in text  # a process played its (rotation, entrant) of both blocks


@pytest.mark.slow
def test_the_five_hand_config_runs_and_publishes_five_rated_bots_and_its_site(tmp_path: Path) -> None:
    """configs/five-hand.yaml as shipped (two of its blocks): arena run plays it, rates the five baselines
    and writes the site."""
    cfg = Path(__file__).resolve().parents[2] / "configs" / "five-hand.yaml"
    out, lb, site = tmp_path / "out", tmp_path / "lb", tmp_path / "site"
    code = main(["run", str(cfg), "--blocks", "2", "--out", str(out), "--leaderboard", str(lb), "--site", str(site),
                 "--workers", "2", "--quiet"])
    assert code == 0
    doc = json.loads((lb / "leaderboard.json").read_text())
    assert sorted(b["name"] for b in doc["bots"]) == ["heuristic", "js-random", "minimal", "montecarlo", "random"]
    assert all(b["games"] == 10 and b["rating"] is not None for b in doc["bots"])
    assert doc["table"]["seats"] == 5 and doc["table"]["maker_advantage"] is not None
    ratings = (site / "index.html").read_text().split('id="ratings"')[1].split("</table>")[0]
    assert ratings.count('<th scope="row" class="l"><a href="bots/') == 5
    games = [g["id"] for ln in map(json.loads, (out / "results.jsonl").read_text().splitlines()) for g in ln["games"]]
    assert len(games) == 10 and all((site / "games" / f"{g}.html").is_file() for g in games)


def test_a_schedule_of_every_combination_dumps_as_before_the_field(tmp_path: Path) -> None:
    """``tables: all`` is the default and is left out of tournament.json, so a folder written before the
    field existed holds the same schedule (and resumes); a number of tables is kept."""
    from arena.schedule.config import ScheduleSpec

    assert "tables" not in ScheduleSpec().model_dump(mode="json")
    assert ScheduleSpec(tables=4).model_dump(mode="json")["tables"] == 4
    assert main(["run", str(write_config(tmp_path)), *QUIET]) == 0
    meta = json.loads((tmp_path / "out" / "tournament.json").read_text())
    assert "tables" not in meta["schedule"]


def test_a_folder_that_spells_out_a_default_of_its_schedule_resumes(tmp_path: Path) -> None:
    """The stored schedule is read through the model: a default written out (``tables: all``, as one
    release did) is the same schedule, while a schedule that really differs is still named."""
    cfg = write_config(tmp_path)
    assert main(["run", str(cfg), *QUIET]) == 0
    meta_path = tmp_path / "out" / "tournament.json"
    meta = json.loads(meta_path.read_text())
    meta["schedule"]["tables"] = "all"
    meta_path.write_text(json.dumps(meta))
    assert main(["run", str(cfg), *QUIET]) == 0
    meta = json.loads(meta_path.read_text())
    meta["schedule"]["matchups"] = ["pair"]
    meta_path.write_text(json.dumps(meta))
    assert main(["run", str(cfg), *QUIET]) == 2


@pytest.mark.slow
def test_extending_a_table_tournament_plays_only_the_new_tables(tmp_path: Path) -> None:
    """Every combination of three of three entrants is one table; a fourth entry (--extend) adds the three
    tables it sits at, keyed by identity: the first table's line is untouched."""
    bots = _bots(tmp_path, 4)
    assert main(["run", str(write_config(tmp_path, match=CT3, entries=bots[:3])), *QUIET]) == 0
    before = (tmp_path / "out" / "results.jsonl").read_bytes()
    cfg = write_config(tmp_path, match=CT3, entries=bots)
    assert main(["run", str(cfg), *QUIET]) == 2  # an extension must be asked for
    assert main(["run", str(cfg), *QUIET, "--extend"]) == 0
    after = (tmp_path / "out" / "results.jsonl").read_bytes()
    assert after.startswith(before) and after.count(b"\n") == 4
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["played_now"] == 3 and summary["games"] == 4 * 3


def test_another_table_design_is_an_extension_that_keeps_the_stored_tables(tmp_path: Path) -> None:
    """The ladder's schedule moves from every combination to a balanced design when a new entrant makes too
    many tables a block: with --extend that is an extension (the stored tables keep their results),
    without it refused like any extension."""
    from arena.schedule import ExtensionNotAsked, RunOptions, admit

    bots = _bots(tmp_path, 4)
    assert main(["run", str(write_config(tmp_path, match=CT3, entries=bots)), *QUIET]) == 0
    cfg = write_config(tmp_path, match=CT3, entries=bots, schedule={"kind": "round_robin", "tables": 4})
    t = load_config(cfg)
    with pytest.raises(ExtensionNotAsked) as refused:
        admit(t, RunOptions())
    assert refused.value.added == ["schedule.tables all -> 4"]
    assert admit(t, RunOptions(extend=True)).added == ["schedule.tables all -> 4"]
    other = write_config(tmp_path, match=CT3, entries=bots, schedule={"kind": "gauntlet", "candidate": bots[0]})
    assert "schedule" in str(pytest.raises(Exception, admit, load_config(other), RunOptions(extend=True)).value)


def test_the_ladder_at_tables_takes_a_balanced_design_past_252_tables_a_block() -> None:
    from types import SimpleNamespace

    from arena.match import MatchSettings
    from arena.serve.ladder import _schedule

    svc = SimpleNamespace(config=SimpleNamespace(match=MatchSettings(profile="cutthroat-3")))
    assert _schedule(svc, 12) == {"kind": "round_robin"}  # 220 tables a block: every combination
    assert _schedule(svc, 13) == {"kind": "round_robin", "tables": 13}  # 286: 13 tables of 3 seat each once
    pairs = SimpleNamespace(config=SimpleNamespace(match=MatchSettings()))
    assert _schedule(pairs, 50) == {"kind": "round_robin"}


def test_a_balanced_design_asked_for_more_blocks_continues_the_one_kept() -> None:
    """The ladder asks for one more block every few batches: the design continues what it built (the
    same blocks as a design built whole), never starts again."""
    from arena.schedule import tables

    ids = [f"e{i:02d}" for i in range(11)]
    tables._designs.clear()
    whole = balanced(ids, 5, 11, 6)
    tables._designs.clear()
    first = balanced(ids, 5, 11, 3)
    kept = tables._designs[(tuple(ids), 5, 11)]
    assert balanced(ids, 5, 11, 6) == whole and whole[:3] == first
    assert tables._designs[(tuple(ids), 5, 11)] is kept and len(kept.blocks) == 6
    assert balanced(ids, 5, 11, 2) == whole[:2]  # fewer: a prefix of what is kept
