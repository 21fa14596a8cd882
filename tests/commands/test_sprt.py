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


@pytest.mark.slow
def test_end_to_end_heuristic_beats_random_passes(tmp_path) -> None:
    """A clearly stronger bot passes both matchups with wide bounds (about 10 s)."""
    code, out, err = _sprt(["--candidate", HEURISTIC, "--baseline", RANDOM, "--sandbox", "none", "--elo0", "0",
                            "--elo1", "150", "--max-blocks", "60", "--seed", "h1", "--quiet", "--out", str(tmp_path / "r")])
    assert code == 0, out + err
    assert "PASSED (exit 0)" in out
