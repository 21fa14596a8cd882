"""Commands end in a sentence, never a traceback, with the documented exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..cli import arena
from ..schedule.conftest import write_config

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small finished tournament (serial, sandbox none)."""
    tmp = tmp_path_factory.mktemp("done")
    cfg = write_config(tmp, blocks=2)
    assert arena("run", cfg, "--skip-check", "--no-rate").code == 0
    return tmp / "out"


def test_replay_into_a_closed_pipe_is_quiet(finished: Path) -> None:
    first_id = arena("replay", finished / "results.jsonl").out.splitlines()[1].split()[1].rstrip(":")
    bin_dir = Path(sys.executable).parent
    ran = subprocess.run(f"arena replay {finished / 'results.jsonl'} --game {first_id} | head -n 2", shell=True,
                         capture_output=True, text=True, env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
                         timeout=120)
    assert ran.returncode == 0 and len(ran.stdout.splitlines()) == 2
    assert "Traceback" not in ran.stderr and "BrokenPipe" not in ran.stderr


def test_replay_lists_game_ids_and_shows_one(finished: Path) -> None:
    listing = arena("replay", finished / "results.jsonl")
    assert listing.code == 0 and listing.out.startswith("4 games; show one with --game ID:")
    ids = [ln.split()[1].rstrip(":") for ln in listing.out.splitlines()[1:]]
    assert len(set(ids)) == 4
    one = arena("replay", finished / "results.jsonl", "--game", ids[0])
    assert one.code == 0 and "=== game over" in one.out and one.out.count("=== game over") == 1
    assert "first" in one.out or "last" in one.out  # bot names, not "seat 0"
    missing = arena("replay", finished / "results.jsonl", "--game", "nosuchgame")
    assert missing.code == 2 and "no game with id 'nosuchgame'" in missing.err


def test_an_interrupt_while_rating_keeps_the_games_and_says_how_to_rate(tmp_path: Path, monkeypatch) -> None:
    import arena.publish.rate as rate_mod  # arena run imports it where it rates

    def interrupted(*a: object, **k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(rate_mod, "rate_results", interrupted)
    ran = arena("run", write_config(tmp_path), "--skip-check")
    assert ran.code == 130
    assert "interrupted while rating; the results are complete" in ran.err and "arena rate" in ran.err
    assert "Traceback" not in ran.err and (tmp_path / "out" / "results.jsonl").read_text().count("\n") == 1


@pytest.mark.parametrize("argv,code,fragment", [
    (["nosuch"], 2, "unknown command 'nosuch'"),
    (["rpelay"], 2, "did you mean 'replay'"),
    (["run", "/nonexistent/config.yaml"], 2, "/nonexistent/config.yaml: no such config file"),
    (["run"], 2, "the following arguments are required: config"),
    (["check-bot", "/nonexistent/bot"], 2, "no bot manifest"),
    (["rate", "/nonexistent/results.jsonl"], 2, "cannot read results"),
    (["sprt", "--candidate", "/nonexistent/bot", "--baseline", "x"], 3, "no bot manifest"),
    (["bench"], 2, "give a benchmark"),
])
def test_bad_input_is_one_line_with_its_exit_code(argv: list[str], code: int, fragment: str) -> None:
    ran = arena(*argv)
    assert ran.code == code and fragment in ran.err, ran
    assert "Traceback" not in ran.err


def test_the_run_time_options_are_checked_as_the_config_is(tmp_path: Path) -> None:
    """`arena run --tempo/--decision-ms/--slot-ms` (parsed as `arena sprt`'s) are the config's match.time fields."""
    ran = arena("run", write_config(tmp_path), "--tempo", "fixed", "--decision-ms", "300", "--slot-ms", "200")
    assert ran.code == 2 and "match.time" in ran.err and "slot_ms (200) must be above decision_ms (300)" in ran.err, ran
    ran = arena("run", write_config(tmp_path), "--decision-ms", "0")
    assert ran.code == 2 and "match.time.decision_ms" in ran.err and "Traceback" not in ran.err, ran


def test_help_and_version() -> None:
    assert arena("--help").code == 0 and "check-bot" in arena("--help").out
    assert arena().code == 2
    assert arena("version").out.startswith("cinch-arena ")
    assert arena("run", "--help").code == 0


def test_sprt_quiet_prints_only_the_result(tmp_path: Path) -> None:
    minimal = REPO / "bots" / "minimal"
    ran = arena("sprt", "--candidate", minimal, "--baseline", minimal, "--sandbox", "none", "--max-blocks", "2",
                "--seed", "q", "--quiet", "--skip-check", "--out", tmp_path / "s")
    assert ran.code == 2, ran
    lines = ran.out.strip().splitlines()
    assert not any("per-bot Elo [" in ln for ln in lines)  # no header
    assert lines[-1] == "arena sprt: INCONCLUSIVE (exit 2)" and ran.err == ""
