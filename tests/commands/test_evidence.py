"""A fault shows its cause: the tail of the bot's stderr and the offending line, wherever it is reported."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from ..cli import arena
from ..schedule.conftest import FIRST, write_config

TESTBOT = Path(__file__).resolve().parents[1] / "fixtures" / "testbot"


def bot(tmp_path: Path, name: str, command: str = '["{python}", "bot.py"]', **env: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "bot.py").write_text((TESTBOT / "bot.py").read_text())
    envs = ", ".join(f"{k}: {json.dumps(v)}" for k, v in env.items())
    (folder / "bot.yaml").write_text(f"name: {name}\ncommand: {command}\nenv: {{{envs}}}\n")
    return folder


def test_check_bot_shows_why_a_bot_with_a_typo_in_its_command_dies(tmp_path: Path) -> None:
    typo = bot(tmp_path, "typo", command='["{python}", "bto.py"]')
    ran = arena("check-bot", typo, "--sandbox", "none", "--games", "0")
    assert ran.code == 1
    assert "crash: the bot exited" in ran.out
    assert "its stderr ended with:" in ran.out and "bto.py" in ran.out and "No such file" in ran.out


def test_check_bot_quotes_the_line_that_is_not_json(tmp_path: Path) -> None:
    garbled = bot(tmp_path, "garbled", MODE="malformed", AT="1")
    ran = arena("check-bot", garbled, "--sandbox", "none", "--games", "0", "--json")
    doc = json.loads(ran.out)
    assert ran.code == 1 and not doc["ok"]
    v = doc["violations"][0]
    assert v["kind"] == "malformed" and "'{this is not json'" in v["message"] and v["reply"] == "{this is not json"


def test_run_and_reproduce_show_the_stderr_of_a_crashing_bot(tmp_path: Path) -> None:
    crasher = bot(tmp_path, "crasher", MODE="crash", AT="2")
    cfg = write_config(tmp_path, entries=[str(FIRST), str(crasher)])
    ran = arena("run", cfg, "--skip-check", "--no-rate")
    assert ran.code == 0
    assert "fault: crasher crash in game" in ran.err
    assert "its stderr ended with:" in ran.err and "fatal: giving up at decision" in ran.err
    command = next(ln.split("reproduce: ", 1)[1] for ln in ran.err.splitlines() if "reproduce: arena reproduce" in ln)
    again = arena(*shlex.split(command)[1:])
    assert again.code == 1 and "reproduced: crash" in again.out and "fatal: giving up" in again.out
