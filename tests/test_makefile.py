"""The Makefile picks a supported Python (3.11-3.13, the system build first)
and says what it does on first use instead of installing silently."""

from __future__ import annotations

import glob
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")


def make(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", "-s", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def _version(python: str) -> tuple[int, int]:
    out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True)
    major, minor = map(int, out.stdout.split())
    return major, minor


def test_default_choice_is_a_supported_python_and_the_system_one_first():
    r = make("check-python")
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip()
    assert line.startswith("make: Python 3.1")
    path = line.split(" at ")[1]
    assert (3, 11) <= _version(path) <= (3, 13)
    if Path("/usr/bin/python3.11").exists():
        assert path == "/usr/bin/python3.11"


def test_falls_back_past_missing_and_unsupported_interpreters():
    found = sorted(
        p for p in {*glob.glob("/usr/bin/python3.1[0-9]"), *glob.glob(str(Path.home() / ".pyenv/versions/3.1*/bin/python3"))}
        if (3, 11) <= _version(p) <= (3, 13)
    )
    if not found:
        pytest.skip("no Python 3.11-3.13 at a fixed path")
    candidates = f"/nonexistent/python3.12 /bin/false {found[-1]}"
    r = make("check-python", f"PY_CANDIDATES={candidates}")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith(f"at {_executable(found[-1])}")


def _executable(python: str) -> str:
    return subprocess.run([python, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True).stdout.strip()


def test_an_unsupported_or_missing_python_is_refused_in_one_line():
    r = make("check-python", "PY=/bin/false")
    assert r.returncode != 0 and "/bin/false is not Python 3.11-3.13; pass PY=" in r.stderr
    r = make("check-python", "PY_CANDIDATES=/nonexistent/python3")
    assert r.returncode != 0 and "no Python 3.11, 3.12 or 3.13 found" in r.stderr
    if sys.version_info[:2] != (3, 10):
        old = glob.glob(str(Path.home() / ".pyenv/versions/3.10*/bin/python3"))
        if old:
            r = make("check-python", f"PY={old[0]}")
            assert r.returncode != 0 and "is not Python 3.11-3.13" in r.stderr


def test_first_install_says_what_it_does_and_keeps_pip_quiet(tmp_path):
    venv = tmp_path / "venv"
    r = make("-n", f"VENV={venv}", f"{venv}/.installed")
    assert r.returncode == 0, r.stderr
    recipe = r.stdout
    assert "first run: installing cinch-arena and its dependencies" in recipe and "about a minute" in recipe
    pip_lines = [x for x in recipe.splitlines() if "pip" in x and "install" in x]
    assert pip_lines and all(f">{venv}/install.log 2>&1" in x for x in pip_lines)
