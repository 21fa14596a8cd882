"""Honest runtimes pass check-bot at level bwrap: the syscall filter's allow-list and the mounts
leave every supported language working (tests/fixtures/runtimes, one tiny bot each).

Slow (builds and whole games). A missing toolchain skips its test locally, with the reason;
in CI (`CI` set, see .ci/run) every runtime must be there and run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.match import MatchSettings
from arena.match.check import check_entry
from arena.players import load_entry

from .conftest import need_gvisor

pytestmark = [pytest.mark.slow, pytest.mark.bwrap]
RUNTIMES = Path(__file__).resolve().parents[1] / "fixtures" / "runtimes"
#: A Python readable by every uid (the harness's own may sit in a 0700 home), for the bot's own venv.
SYSTEM_PYTHON = next((p for p in ("/usr/bin/python3.11", "/usr/bin/python3") if os.access(p, os.X_OK)), sys.executable)


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is not installed: CI must run every runtime (.ci/run installs it)")
        pytest.skip(f"{tool} is not installed here (CI installs it: .ci/run)")
    return path


def _run(argv: list[str], cwd: Path, **env: str) -> None:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, env={**os.environ, **env})
    assert proc.returncode == 0, f"{argv} failed:\n{proc.stdout}\n{proc.stderr}"


def _numpy_venv(folder: Path) -> None:
    """venv/ in the bot folder with numpy, installed without network (a local wheel folder or index).

    A bot folder holds no symbolic link (docs/sandbox.md), so the venv is made with ``--copies`` and
    without the ``lib64 -> lib`` link venv adds on 64-bit Linux: as an author would ship one."""
    _run([SYSTEM_PYTHON, "-m", "venv", "--copies", "venv"], folder)
    (folder / "venv" / "lib64").unlink(missing_ok=True)
    wheels = os.environ.get("CINCH_TEST_WHEELS")
    source = ["--no-index", "--find-links", wheels] if wheels else []
    proc = subprocess.run([str(folder / "venv" / "bin" / "python"), "-m", "pip", "install", "-q", *source, "numpy"],
                          cwd=folder, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"numpy could not be installed into the bot's venv:\n{proc.stderr}")
        pytest.skip(f"numpy not installable here without a wheel (set CINCH_TEST_WHEELS): {proc.stderr.strip()[-200:]}")


def build(name: str, folder: Path) -> None:
    """Build the fixture in `folder` as its author would before entering it."""
    if name == "c-pthreads":
        _run([_need("cc"), "-O2", "-pthread", "-o", "bot", "bot.c"], folder)
    elif name == "rust":
        _run([_need("rustc"), "-O", "-o", "bot", "bot.rs"], folder)
    elif name == "go":
        _run([_need("go"), "build", "-o", "bot", "bot.go"], folder, CGO_ENABLED="0", GOCACHE=str(folder.parent / "gocache"),
             GOPATH=str(folder.parent / "gopath"), GOFLAGS="-mod=mod", GO111MODULE="off")
    elif name == "java":
        _need("java")
        _run([_need("javac"), "Bot.java"], folder)
    elif name == "node-workers":
        _need("node")
    elif name == "python-venv-numpy":
        _numpy_venv(folder)


@pytest.mark.parametrize("level", ["bwrap", "gvisor"])
@pytest.mark.parametrize("name", sorted(p.name for p in RUNTIMES.iterdir() if (p / "bot.yaml").exists()))
def test_runtime_conforms(tmp_path, name, level) -> None:
    if level == "gvisor":
        need_gvisor()
    folder = tmp_path / name
    shutil.copytree(RUNTIMES / name, folder)
    build(name, folder)
    report = check_entry(load_entry(folder), MatchSettings.model_validate({"sandbox": level}), games=1)
    assert report.ok, report.summary()
    assert report.decisions > 0


def test_every_runtime_of_the_matrix_has_a_fixture() -> None:
    names = {p.name for p in RUNTIMES.iterdir() if (p / "bot.yaml").exists()}
    assert names == {"python-threads", "python-venv-numpy", "node-workers", "c-pthreads", "rust", "go", "java"}
