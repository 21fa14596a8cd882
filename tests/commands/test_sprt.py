"""``arena sprt`` exit codes (the test logic itself is tested in tests/ratings/test_sprt_run.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..cli import arena

BOTS = Path(__file__).resolve().parents[2] / "bots"
RANDOM, HEURISTIC = str(BOTS / "random"), str(BOTS / "heuristic")


# ---------------------------------------------------------------- command line


def _sprt(argv: list[str]) -> tuple[int, str, str]:
    return tuple(arena("sprt", *argv))  # type: ignore[return-value]


@pytest.mark.parametrize("argv,msg", [
    ([], "required"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--elo0", "5", "--elo1", "5"], "elo0 (5) must be below elo1 (5)"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--points", "--format", "game"], "--points"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--matchups", "pair,triple"], "schedule.matchups.1: Input should be 'pair' or 'mixed' (got 'triple')"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--max-blocks", "0"], "blocks: Input should be greater than or equal to 1"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--sandbox", "docker"], "invalid choice"),
    (["--candidate", "/nonexistent/bot", "--baseline", RANDOM, "--sandbox", "none"], "no bot manifest"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--decision-ms", "0"], "match.time.decision_ms: Input should be greater than 0"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--tempo", "fixed", "--decision-ms", "200", "--slot-ms", "150"],
     "slot_ms (150) must be above decision_ms (200)"),
    (["--candidate", RANDOM, "--baseline", RANDOM, "--decision-ms", "fast"], "invalid int value"),
])
def test_cli_errors_exit_3(argv: list[str], msg: str) -> None:
    code, _, err = _sprt(argv)
    assert code == 3
    assert msg in err


def test_cli_help_exits_0(capsys) -> None:
    ran = arena("sprt", "--help")
    assert ran.code == 0 and "--elo0" in ran.out


def test_end_to_end_random_vs_itself_is_inconclusive(tmp_path) -> None:
    """Real bot processes (sandbox none): too few blocks to decide -> exit 2."""
    out_json = tmp_path / "sprt.json"
    code, out, err = _sprt(["--candidate", RANDOM, "--baseline", RANDOM, "--sandbox", "none",
                            "--max-blocks", "2", "--seed", "e2e", "--json", str(out_json), "--out", str(tmp_path / "r")])
    assert code == 2, err
    assert out.count("C+C vs B+B:") >= 2 and "C+B vs B+B:" in out and "LLR" in out
    assert "INCONCLUSIVE (exit 2)" in out
    doc = json.loads(out_json.read_text())
    assert doc["verdict"] == "inconclusive" and doc["exit"] == 2 and doc["seed"] == "e2e"
    assert {m: sum(v["pentanomial"]) for m, v in doc["matchups"].items()} == {"pair": 2, "mixed": 2}


def test_the_time_options_set_the_games_time_control(tmp_path) -> None:
    """--tempo, --decision-ms and --slot-ms are the run's match.time (as `arena run`'s): the header and the JSON
    say them, and the games are played with them. (At rlimit, where the bot's CPU is measured: at level none the
    limit is judged on the wall clock, which a loaded machine stretches past 50 ms.)"""
    out_json = tmp_path / "sprt.json"
    code, out, err = _sprt(["--candidate", RANDOM, "--baseline", RANDOM, "--sandbox", "rlimit", "--max-blocks", "1",
                            "--min-blocks", "1", "--matchups", "pair", "--format", "deals", "--deals", "1",
                            "--tempo", "fixed", "--decision-ms", "50", "--slot-ms", "70", "--seed", "t", "--skip-check",
                            "--json", str(out_json), "--out", str(tmp_path / "r")])
    assert code == 2, err
    assert "tempo fixed (50 ms CPU a decision, answers released 70 ms after their request)" in out
    doc = json.loads(out_json.read_text())
    assert doc["time"]["tempo"] == "fixed" and doc["time"]["decision_ms"] == 50 and doc["time"]["slot_ms"] == 70
    (line,) = [json.loads(x) for x in (tmp_path / "r" / "results.jsonl").read_text().splitlines()]
    lat = [x for g in line["run"]["games"] for p in g["players"] for x in p["latency_ms"]]
    assert lat and not [f for g in line["games"] for f in g["faults"]]


@pytest.mark.slow
def test_end_to_end_heuristic_beats_random_passes(tmp_path) -> None:
    """A clearly stronger bot passes both matchups with wide bounds (about 10 s)."""
    code, out, err = _sprt(["--candidate", HEURISTIC, "--baseline", RANDOM, "--sandbox", "none", "--elo0", "0",
                            "--elo1", "150", "--max-blocks", "60", "--seed", "h1", "--quiet", "--out", str(tmp_path / "r")])
    assert code == 0, out + err
    assert "PASSED (exit 0)" in out


@pytest.mark.slow
def test_two_copies_of_one_bot_end_in_a_verdict_with_what_pairing_saved(tmp_path) -> None:
    """Every block 1-1 (a deterministic bot against itself): a verdict, never a traceback."""
    minimal = str(BOTS / "minimal")
    code, out, err = _sprt(["--candidate", minimal, "--baseline", minimal, "--sandbox", "none", "--max-blocks", "12",
                            "--min-blocks", "2", "--seed", "twins", "--skip-check", "--out", str(tmp_path / "r"),
                            "--json", str(tmp_path / "s.json")])
    assert code in (1, 2), out + err
    assert "Traceback" not in err
    doc = json.loads((tmp_path / "s.json").read_text())
    assert all(v["pentanomial"] == [0, 0, sum(v["pentanomial"]), 0, 0] for v in doc["matchups"].values())
    assert "what pairing saved: pairing (game score" in out and "removed all of the variance" in out
    assert "error rates: per matchup" in out


def test_points_mode_tests_points_per_block(tmp_path) -> None:
    code, out, err = _sprt(["--candidate", HEURISTIC, "--baseline", RANDOM, "--sandbox", "none", "--points",
                            "--deals", "2", "--points0", "0", "--points1", "20", "--max-blocks", "3", "--min-blocks", "2",
                            "--seed", "pts", "--skip-check", "--out", str(tmp_path / "r")])
    assert code in (0, 1, 2) and "per-bot points per block [0, 20]" in out, out + err
    assert "pairing (points difference" in out


def _twin(folder: Path, pick: str) -> Path:
    """The test bot under the name ``twin``, playing the first or the last legal option."""
    src = Path(__file__).resolve().parents[1] / "fixtures" / "testbot"
    folder.mkdir()
    (folder / "bot.py").write_text((src / "bot.py").read_text())
    (folder / "bot.yaml").write_text(f'name: twin\ncommand: ["{{python}}", "bot.py"]\nenv: {{PICK: {pick}}}\n')
    return folder


def test_a_candidate_copied_from_its_baseline_is_told_apart_and_its_folder_resumes(tmp_path) -> None:
    """Same name, other files: the progress and standings name each by name@digest, and the
    same command run again resumes the folder instead of calling both bots changed."""
    from arena.players import load_entry

    cand, base = _twin(tmp_path / "cand", "last"), _twin(tmp_path / "base", "first")
    c_id, b_id = load_entry(cand).ident, load_entry(base).ident
    argv = ["--candidate", str(cand), "--baseline", str(base), "--sandbox", "none", "--format", "deals", "--deals", "1",
            "--max-blocks", "3", "--min-blocks", "2", "--seed", "twins", "--skip-check", "--out", str(tmp_path / "r")]
    code, out, err = _sprt(argv)
    assert code in (0, 1, 2), out + err
    provisional = [ln for ln in err.splitlines() if "provisional:" in ln]
    assert provisional and all(c_id in ln and b_id in ln for ln in provisional), err
    assert "twin 0." not in err  # never the two merged under one name
    again, out2, err2 = _sprt(argv)
    assert again == code, out2 + err2
    assert "changed" not in err2 and "(6 already done)" in err2
    (cand / "bot.py").write_text((cand / "bot.py").read_text() + "\n# tuned\n")
    changed, _, err3 = _sprt(argv)
    assert changed == 3 and "twin: digest" in err3 and "--new-version" in err3
    renewed, out4, err4 = _sprt([*argv, "--new-version"])
    assert renewed in (0, 1, 2), out4 + err4
    assert "new versions enter as new entries" in err4 and "(0 already done)" in err4


def test_a_fault_of_the_copied_candidate_is_reproduced_with_its_own_folder(tmp_path) -> None:
    """The reproduce command names the folder of the bot that faulted, not the other one of its name."""
    cand, base = _twin(tmp_path / "cand", "first"), _twin(tmp_path / "base", "first")
    (cand / "bot.yaml").write_text('name: twin\ncommand: ["{python}", "bot.py"]\nenv: {MODE: crash, AT: "2"}\n')
    code, out, err = _sprt(["--candidate", str(cand), "--baseline", str(base), "--sandbox", "none", "--format", "deals",
                            "--deals", "1", "--max-blocks", "1", "--min-blocks", "1", "--seed", "crash", "--skip-check",
                            "--matchups", "pair", "--out", str(tmp_path / "r")])
    assert code in (0, 1, 2), out + err
    lines = [json.loads(x) for x in (tmp_path / "r" / "results.jsonl").read_text().splitlines()]
    repros = [r for ln in lines for r in ln["run"]["reproduce"]]
    assert repros and all(r["kind"] == "crash" for r in repros)
    assert all(f"--bot {cand.resolve()}" in r["command"] for r in repros), [r["command"] for r in repros]
