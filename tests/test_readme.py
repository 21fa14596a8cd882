"""The README's examples work as written.

Fenced ``python`` blocks are executed; blocks whose info string names a file
(```yaml mybot/bot.yaml) are written to that file; ``sh`` blocks are run,
line by line, in a scratch folder where ``bots/`` is the checkout's. So the
first-hour walk-through (write a bot, check it, enter it, read the result)
is exactly what a newcomer types.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


REPO = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[str, str | None, str]]:
    """(language, file or None, body) of every fenced block of the README."""
    out = []
    for info, body in FENCE.findall((REPO / "README.md").read_text()):
        lang, _, path = info.strip().partition(" ")
        out.append((lang, path.strip() or None, body))
    return out


def test_python_examples_run() -> None:
    code = [body for lang, path, body in blocks() if lang == "python" and path is None]
    assert code, "the README has Python examples"
    for body in code:
        exec(compile(body, "README.md", "exec"), {"__name__": "readme_example"})


@pytest.mark.slow  # about 20 s of real bots in bwrap and a Ray start; CI runs it (.ci/run)
def test_the_first_hour_works_as_written(tmp_path: Path) -> None:
    files = [(path, body) for lang, path, body in blocks() if path]
    commands = [ln for lang, path, body in blocks() if lang == "sh" and path is None
                for ln in body.splitlines() if ln.strip() and not ln.startswith("#")]
    assert files and commands
    (tmp_path / "bots").symlink_to(REPO / "bots")
    for path, body in files:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    said = ""
    for cmd in commands:
        ran = subprocess.run(cmd, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert ran.returncode == 0, f"{cmd}\n{ran.stdout}\n{ran.stderr}"
        said += ran.stdout
    assert "mybot: CONFORMS" in said
    assert "| mybot" in said or "mybot" in (tmp_path / "runs/first-hour/leaderboard/leaderboard.md").read_text()
    assert "show one with --game ID" in said
