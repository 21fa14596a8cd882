"""Resume, retries, extension, deal files: nothing lost, nothing counted twice."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.engine import DealFile
from arena.results import ResultsStore, comparable
from arena.sandbox import HarnessError
from arena.schedule import load_config, plan_tasks, run_block, run_tasks
from arena.schedule.backends import SerialBackend
from arena.commands import main


def run_main(argv):
    return main(["run", *argv])

from .conftest import FAST_MATCH, write_config

#: Block by block: a kill lands between blocks and a harness error retries one block (lineage batches,
#: the default, are resumed and retried whole: tests/schedule/test_lineages.py).
PER_GAME = dict(FAST_MATCH, restart="per-game")

QUIET = ["--skip-check", "--no-rate"]


def _lines(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]


def _comparable(out: Path) -> dict:
    return {(d["pairing"], d["block"]): comparable(d) for d in _lines(out)}


@pytest.mark.slow  # seconds of CPU: in CI's slow step, out of make test's budget
def test_kill_mid_run_then_resume_equals_uninterrupted(tmp_path: Path) -> None:
    ref = write_config(tmp_path, blocks=5, match=PER_GAME)
    assert run_main([str(ref), *QUIET, "--out", str(tmp_path / "ref")]) == 0

    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "arena", "run", str(ref), *QUIET, "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (results.exists() and results.read_bytes().count(b"\n") >= 1):
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    landed = results.read_bytes().count(b"\n")
    assert 1 <= landed < 5, "the kill should land mid-run"

    assert subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60).returncode == 0
    assert len(_lines(out)) == 5
    assert _comparable(out) == _comparable(tmp_path / "ref")
    assert json.loads((out / "summary.json").read_text())["seed"] == "test-seed"
    assert any((out / "stderr").rglob("*-seat*-first.txt"))  # bot stderr kept next to the results


def test_torn_last_line_is_cut_and_replayed(tmp_path: Path, played) -> None:
    cfg = write_config(tmp_path, blocks=2)
    played(tmp_path, 2)  # run_main([str(cfg), *QUIET]) == 0
    out = tmp_path / "out"
    full = _comparable(out)
    data = (out / "results.jsonl").read_bytes()
    first_end = data.index(b"\n") + 1
    (out / "results.jsonl").write_bytes(data[: first_end + 100])  # second line torn mid-way
    store = ResultsStore(out)
    assert len(store.load()) == 1 and store.repaired_bytes == 100
    assert (out / "results.jsonl").read_bytes() == data[:first_end]
    assert run_main([str(cfg), *QUIET]) == 0
    assert _comparable(out) == full and len(_lines(out)) == 2


def test_duplicate_lines_are_ignored_on_load(tmp_path: Path, played) -> None:
    played(tmp_path, 1)  # run_main([str(write_config(tmp_path)), *QUIET]) == 0
    path = tmp_path / "out" / "results.jsonl"
    path.write_bytes(path.read_bytes() * 2)
    store = ResultsStore(tmp_path / "out")
    assert len(store.load()) == 1 and store.duplicates == 1


def test_harness_error_is_retried_without_duplicates(tmp_path: Path) -> None:
    t = load_config(write_config(tmp_path, blocks=2, match=PER_GAME))
    tasks = plan_tasks(t)
    victim = tasks[1].key
    calls: list[tuple] = []

    def flaky(task, bots, *, attempt, backend):
        calls.append((task.key, attempt))
        if task.key == victim and attempt == 1:
            raise HarnessError("injected: sandbox setup failed")
        return run_block(task, bots, attempt=attempt, backend=backend)

    store = ResultsStore(t.out)
    store.load()
    outcome = run_tasks(tasks, SerialBackend({e.ident: e for e in t.entries}, flaky), store, attempts=3)
    assert outcome.retries == 1 and not outcome.failures
    lines = _lines(t.out)
    assert len(lines) == 2 and len({(d["pairing"], d["block"]) for d in lines}) == 2
    assert {(d["pairing"], d["block"]): d["run"]["attempt"] for d in lines}[victim] == 2


def test_persistent_harness_error_is_reported_not_scored(tmp_path: Path) -> None:
    t = load_config(write_config(tmp_path))

    def broken(task, bots, *, attempt, backend):
        raise HarnessError("injected")

    store = ResultsStore(t.out)
    outcome = run_tasks(plan_tasks(t), SerialBackend({e.ident: e for e in t.entries}, broken), store, attempts=3)
    assert outcome.retries == 2 and len(outcome.failures) == 1
    assert not (t.out / "results.jsonl").exists()


def test_extending_plays_only_new_games(tmp_path: Path, played) -> None:
    from .conftest import FIRST, LAST

    played(tmp_path, 1)  # run_main([str(write_config(tmp_path, blocks=1)), *QUIET]) == 0
    before = (tmp_path / "out" / "results.jsonl").read_bytes()
    third = tmp_path / "third"
    third.mkdir()
    (third / "bot.py").write_text((FIRST.parent / "bot.py").read_text())
    (third / "bot.yaml").write_text('name: third\ncommand: ["{python}", "bot.py"]\nenv: {PICK: last}\n')
    cfg = write_config(tmp_path, blocks=2, entries=[str(LAST), str(third), str(FIRST)])
    assert run_main([str(cfg), *QUIET]) == 2  # an extension must be asked for
    assert (tmp_path / "out" / "results.jsonl").read_bytes() == before
    assert run_main([str(cfg), *QUIET, "--extend"]) == 0
    after = (tmp_path / "out" / "results.jsonl").read_bytes()
    assert after.startswith(before)  # append-only: the old block is untouched
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["blocks_total"] == 3 * 2 and summary["played_now"] == 5


def test_changed_config_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], played) -> None:
    played(tmp_path, 1)  # run_main([str(write_config(tmp_path)), *QUIET]) == 0
    capsys.readouterr()
    assert run_main([str(write_config(tmp_path, seed="different")), *QUIET]) == 2
    assert "holds another tournament (differs in: seed)" in capsys.readouterr().err


@pytest.mark.parametrize("change,named", [
    ({"name": "other"}, "differs in: name"),
    ({"blocks": 0}, None),  # invalid config: refused before the folder is looked at
    ({"match": {"sandbox": "none", "format": "deals", "deals": 2, "max_deals": 3}}, "match.max_deals"),
])
def test_another_tournament_in_the_same_folder_names_what_differs(tmp_path: Path, capsys, change, named,
                                                                  played) -> None:
    played(tmp_path, 2)  # run_main([str(write_config(tmp_path, blocks=2)), *QUIET]) == 0
    before = (tmp_path / "out" / "results.jsonl").read_bytes()
    meta = (tmp_path / "out" / "tournament.json").read_text()
    capsys.readouterr()
    assert run_main([str(write_config(tmp_path, **{"blocks": 2, **change})), *QUIET]) == 2
    err = capsys.readouterr().err
    if named:
        assert named in err and err.count("\n") == 1, err
    assert (tmp_path / "out" / "results.jsonl").read_bytes() == before
    assert (tmp_path / "out" / "tournament.json").read_text() == meta


def test_fewer_blocks_or_fewer_entries_is_another_tournament(tmp_path: Path, capsys, played) -> None:
    from .conftest import FIRST

    played(tmp_path, 2)  # run_main([str(write_config(tmp_path, blocks=2)), *QUIET]) == 0
    capsys.readouterr()
    assert run_main([str(write_config(tmp_path, blocks=1)), *QUIET, "--extend"]) == 2
    assert "blocks (fewer: 1 < 2)" in capsys.readouterr().err
    third = tmp_path / "third"
    third.mkdir()
    (third / "bot.py").write_text((FIRST.parent / "bot.py").read_text())
    (third / "bot.yaml").write_text('name: third\ncommand: ["{python}", "bot.py"]\n')
    assert run_main([str(write_config(tmp_path, blocks=2, entries=[str(FIRST), str(third)])), *QUIET, "--extend"]) == 2
    assert "entries (removed: last)" in capsys.readouterr().err


def test_a_second_run_on_a_busy_folder_says_who_holds_it(tmp_path: Path, capsys) -> None:
    from arena.schedule.lock import FolderLock

    cfg = write_config(tmp_path)
    with FolderLock(tmp_path / "out"):
        assert run_main([str(cfg), *QUIET]) == 2
    err = capsys.readouterr().err
    assert f"pid {os.getpid()}" in err and "in use by another run" in err
    assert not (tmp_path / "out" / "results.jsonl").exists()
    assert run_main([str(cfg), *QUIET]) == 0  # the lock is gone with its holder


def test_a_changed_bot_is_named_before_anything_is_played(tmp_path: Path, capsys) -> None:
    from .conftest import FIRST

    bot = tmp_path / "mybot"
    bot.mkdir()
    (bot / "bot.py").write_text((FIRST.parent / "bot.py").read_text())
    (bot / "bot.yaml").write_text('name: mine\nversion: "1"\ncommand: ["{python}", "bot.py"]\nenv: {PICK: first}\n')
    cfg = write_config(tmp_path, entries=[str(bot), str(FIRST)])
    assert run_main([str(cfg), *QUIET]) == 0
    before = (tmp_path / "out" / "results.jsonl").read_bytes()
    (bot / "bot.py").write_text((bot / "bot.py").read_text() + "\n# a comment\n")
    capsys.readouterr()
    assert run_main([str(cfg), *QUIET]) == 2
    err = capsys.readouterr().err
    assert "mine: digest" in err and "changed: bot.py" in err and "--new-version" in err
    assert (tmp_path / "out" / "results.jsonl").read_bytes() == before
    assert run_main([str(cfg), *QUIET, "--new-version"]) == 0
    lines = _lines(tmp_path / "out")
    digests = {g["seats"][0]["digest"] for ln in lines for g in ln["games"] if g["seats"][0]["bot"] == "mine"}
    digests |= {g["seats"][1]["digest"] for ln in lines for g in ln["games"] if g["seats"][1]["bot"] == "mine"}
    assert len(digests) == 2  # the old version's games are kept, the new version played its own


def test_deal_file_round_trip_and_replay(tmp_path: Path) -> None:
    exported = DealFile.from_key("published-deals", 1)
    exported.save(tmp_path / "deals.json")
    assert DealFile.load(tmp_path / "deals.json") == exported
    cfg = write_config(tmp_path, blocks=2, deal_files=["deals.json"])
    assert run_main([str(cfg), *QUIET]) == 0
    by_block = {d["block"]: d for d in _lines(tmp_path / "out")}
    for g in by_block[0]["games"]:
        deals = g["record"]["deals"]
        assert deals[0]["deck"] == exported.deals[0].deck and deals[0]["origin"] == "file"
        assert deals[0]["dealer"] == exported.first_dealer
        assert deals[1]["origin"] == "key-after-file"
    assert all(d["origin"] == "key" for g in by_block[1]["games"] for d in g["record"]["deals"])


def _typo_bot(folder: Path, name: str, command: str) -> Path:
    from .conftest import FIRST

    folder.mkdir()
    (folder / "bot.py").write_text((FIRST.parent / "bot.py").read_text())
    (folder / "bot.yaml").write_text(f'name: {name}\ncommand: {command}\n')
    return folder


def test_a_typo_in_a_command_is_each_bots_fault_and_binds_no_folder(tmp_path: Path, capsys) -> None:
    """Every entry is checked and each bad one named; the exit is a failed check's (1), not the
    harness's; and the refused run leaves the out folder free for the fixed entries."""
    from .conftest import FIRST, LAST

    typo1 = _typo_bot(tmp_path / "typo1", "typo1", '["pyhton3", "bot.py"]')
    typo2 = _typo_bot(tmp_path / "typo2", "typo2", '["./bot.pyy"]')
    cfg = write_config(tmp_path, entries=[str(FIRST), str(typo1), str(typo2)])
    assert run_main([str(cfg), "--no-rate"]) == 1
    err = capsys.readouterr().err
    assert "typo1@" in err and "'pyhton3' not found on PATH" in err
    assert "typo2@" in err and "'./bot.pyy' not found in" in err
    assert "2 of 3 entries failed" in err and err.count("failed the conformance check") == 2
    assert not (tmp_path / "out" / "tournament.json").exists()
    cfg = write_config(tmp_path, entries=[str(FIRST), str(LAST)])
    assert run_main([str(cfg), "--no-rate"]) == 0, capsys.readouterr().err
    assert len(_lines(tmp_path / "out")) == 1


def test_a_folder_whose_run_recorded_nothing_is_not_bound(tmp_path: Path, capsys) -> None:
    """A tournament.json with no results line beside it (a run stopped before its first block) binds nothing."""
    from arena.schedule.runner import META_NAME

    out = tmp_path / "out"
    out.mkdir()
    (out / META_NAME).write_text(json.dumps({"name": "other", "entries": [{"name": "gone", "digest": "0" * 64}],
                                             "config_hash": "f" * 16}))
    (out / "results.jsonl").write_text('{"pairing": "torn')  # a torn tail alone is nothing recorded
    assert run_main([str(write_config(tmp_path)), *QUIET]) == 0, capsys.readouterr().err
    assert len(_lines(out)) == 1 and json.loads((out / META_NAME).read_text())["name"] == "t"


@pytest.fixture(scope="module")
def per_game(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """The out folders of per-game runs of 2 and of 4 blocks, each played once for the module (the tests read
    them or copy them: a run of the same config is the same lines in any folder)."""
    runs = {}
    for blocks in (2, 4):
        folder = tmp_path_factory.mktemp(f"per-game-{blocks}")
        assert run_main([str(write_config(folder, blocks=blocks, match=PER_GAME)), *QUIET]) == 0
        runs[blocks] = folder / "out"
    return runs


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory):
    """played(tmp, blocks): TMP/out as ``run_main([write_config(tmp, blocks=blocks), *QUIET])`` leaves it (the
    default tiny tournament), played once per module and copied: the tests differ in what they run next."""
    made: dict[int, Path] = {}

    def into(tmp: Path, blocks: int) -> Path:
        if blocks not in made:
            made[blocks] = tmp_path_factory.mktemp(f"played-{blocks}")
            assert run_main([str(write_config(made[blocks], blocks=blocks)), *QUIET]) == 0
        shutil.copytree(made[blocks] / "out", tmp / "out")
        return tmp / "out"

    return into


@pytest.mark.parametrize("written", ["without the field", "per-game"])
def test_a_folder_played_per_game_resumes_per_game(tmp_path: Path, capsys, written: str, per_game) -> None:
    """Per-lineage is the default; a folder played per-game before (its tournament.json written before the
    restart field existed, or saying per-game) resumes per-game under a config that does not name restart,
    says so, and ends as a per-game run of the whole would; a config that names per-lineage is refused."""
    shutil.copytree(per_game[2], tmp_path / "out")  # write_config(tmp_path, blocks=2, match=PER_GAME), played
    meta_path = tmp_path / "out" / "tournament.json"
    if written == "without the field":
        meta = json.loads(meta_path.read_text())
        for k in ("restart", "lineage_blocks"):
            del meta["match"][k]
        meta_path.write_text(json.dumps(meta))
    before = {(d["pairing"], d["block"]): d["config_hash"] for d in _lines(tmp_path / "out")}
    capsys.readouterr()
    now = write_config(tmp_path, blocks=4)  # FAST_MATCH: restart not named, so the default
    assert load_config(now).settings.restart == "per-lineage"
    assert run_main([str(now), *QUIET, "--extend"]) == 0
    said = capsys.readouterr().err
    assert "was played per-game: it resumes per-game" in said, said
    lines = _lines(tmp_path / "out")
    assert len(lines) == 4 and len(before) == 2 and {d["config_hash"] for d in lines} == set(before.values())
    assert json.loads(meta_path.read_text())["match"]["restart"] == "per-game"
    assert _comparable(tmp_path / "out") == _comparable(per_game[4])  # write_config(ref, blocks=4, match=PER_GAME)
    # Naming per-lineage is asking for another tournament in this folder.
    assert run_main([str(write_config(tmp_path, blocks=4, match=dict(FAST_MATCH, restart="per-lineage"))),
                     *QUIET]) == 2
    assert "differs in: match.restart)" in capsys.readouterr().err


def test_a_new_folder_plays_per_lineage_with_the_results_of_per_game(tmp_path: Path, capsys) -> None:
    """The default keeps bots up (one lineage batch) and the tiny bots, which remember nothing, play
    exactly the games they play per-game."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert run_main([str(write_config(tmp_path / "a", blocks=3)), *QUIET]) == 0
    assert "resumes per-game" not in capsys.readouterr().err
    assert json.loads((tmp_path / "a" / "out" / "tournament.json").read_text())["match"]["restart"] == "per-lineage"
    assert run_main([str(write_config(tmp_path / "b", blocks=3, match=PER_GAME)), *QUIET]) == 0
    games = [{k: {f: v for f, v in d.items() if f != "config_hash"} for k, d in _comparable(tmp_path / x / "out").items()}
             for x in "ab"]
    assert games[0] == games[1] and len(games[0]) == 3
    assert {d["config_hash"] for d in _lines(tmp_path / "a" / "out")} != {
        d["config_hash"] for d in _lines(tmp_path / "b" / "out")}
