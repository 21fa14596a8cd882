"""The installed package is self-sufficient: built as a wheel, installed without the checkout
(not editable), it runs a tournament whose bots use the SDK and read nothing from the source tree."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installs_and_runs_a_tiny_tournament_without_the_checkout(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(REPO)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = wheels.glob("cinch_arena-*.whl")
    # A fresh venv with only the wheel installed; its dependencies come from this venv's site-packages
    # (a path line in a .pth: that folder's own .pth files, the editable install among them, are not run).
    fresh = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True, timeout=120)
    site = Path(subprocess.run([str(fresh / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    work = tmp_path / "work"  # nothing of the checkout: bots copied, cwd elsewhere
    for bot in ("random", "minimal"):
        shutil.copytree(REPO / "bots" / bot, work / "bots" / bot)
    (work / "t.yaml").write_text("name: wheel\nentries: [bots/random, bots/minimal]\nblocks: 1\nseed: w\n"
                                 "backend: serial\nmatch: {sandbox: none, format: deals, deals: 2}\nout: out\n")
    py = str(fresh / "bin" / "python")
    where = subprocess.run([py, "-c", "import arena, cinch_bot; print(arena.__file__); print(cinch_bot.__file__)"],
                           cwd=work, capture_output=True, text=True, check=True).stdout.split()
    assert all(p.startswith(str(site)) for p in where), where
    ran = subprocess.run([py, "-m", "arena", "run", "t.yaml", "--no-rate"], cwd=work, capture_output=True, text=True,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr
    (line,) = [json.loads(x) for x in (work / "out" / "results.jsonl").read_text().splitlines()]
    assert {g["end"] for g in line["games"]} == {"deals"} and not any(g["faults"] for g in line["games"])
    schema = subprocess.run([py, "-m", "arena", "schema"], cwd=work, capture_output=True, text=True, check=True).stdout
    assert json.loads(schema)["title"].startswith("cinch-arena bot protocol")
    # the site's assets ship as package data
    ran = subprocess.run([py, "-m", "arena", "site", "out", "--out", "site", "--bootstrap", "0"], cwd=work,
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    for asset in ("viewer.js", "site.css"):
        assert (work / "site" / asset).read_bytes() == (REPO / "arena" / "publish" / "site" / "assets" / asset).read_bytes()
