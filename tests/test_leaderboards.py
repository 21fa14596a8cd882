"""The committed example leaderboard is what `make leaderboards` makes, and `make run` leaves it alone.

`make run` writes its run and leaderboard under runs/ (gitignored), so a
first run leaves the checkout clean. The committed copy names the bots'
current digests and the quickstart's config hash (cheap: a stale copy fails
here); the slow test plays the command's tournament and compares the files.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from arena.players import load_entry
from arena.schedule import load_config

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "quickstart.yaml"
COMMITTED = ROOT / "leaderboards" / "quickstart"
FILES = ("leaderboard.json", "leaderboard.md", "leaderboard.html")
BASELINES = ROOT / "configs" / "baselines.yaml"
BASELINES_COMMITTED = ROOT / "leaderboards" / "baselines"


def make_recipe(target: str) -> list[str]:
    """The commands of a Makefile target, as make would run them (variables expanded by make itself)."""
    ran = subprocess.run(["make", "-n", "--no-print-directory", target, "STAMP="], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    return [ln for ln in ran.stdout.splitlines() if ln.strip()]


def test_make_run_writes_only_under_the_gitignored_runs_folder() -> None:
    cfg = yaml.safe_load(CONFIG.read_text())
    out = (CONFIG.parent / cfg["out"]).resolve()
    assert out.is_relative_to(ROOT / "runs") and "/runs/" in (ROOT / ".gitignore").read_text()
    lb = (CONFIG.parent / cfg["leaderboard"]).resolve() if cfg.get("leaderboard") else out / "leaderboard"
    assert lb.is_relative_to(ROOT / "runs"), f"make run would rewrite {lb}"
    assert make_recipe("run") == [".venv/bin/arena run configs/quickstart.yaml"]


@pytest.mark.parametrize("config, committed", [(CONFIG, COMMITTED), (BASELINES, BASELINES_COMMITTED)],
                         ids=["quickstart", "baselines"])
def test_the_committed_leaderboard_names_the_current_bots_and_config(config: Path, committed: Path) -> None:
    doc = json.loads((committed / "leaderboard.json").read_text())
    t = load_config(config)
    assert doc["provenance"]["config_hashes"] == [t.config_hash()], "stale: run `make leaderboards`"
    now = {e.name: e.digest for e in t.entries}
    assert {b["name"]: b["digest"] for b in doc["provenance"]["bots"]} == now, "stale: run `make leaderboards`"
    assert all(load_entry(ROOT / "bots" / n).digest == d for n, d in now.items())


def test_the_baseline_ladder_is_in_order_with_intervals() -> None:
    """random < heuristic < montecarlo < pimc by rating, every interval given and every game counted;
    `make baselines` remakes the files from the config."""
    assert any("leaderboards/baselines" in ln and "configs/baselines.yaml" in ln for ln in make_recipe("baselines"))
    doc = json.loads((BASELINES_COMMITTED / "leaderboard.json").read_text())
    by_name = {b["name"]: b for b in doc["bots"]}
    ladder = ["random", "heuristic", "montecarlo", "pimc"]
    assert sorted(by_name) == sorted(ladder)
    ratings = [by_name[n]["rating"] for n in ladder]
    assert ratings == sorted(ratings) and len(set(ratings)) == 4, ratings
    t = load_config(BASELINES)
    assert all(by_name[n]["games"] == t.config.blocks * 2 * 3 for n in ladder)  # 3 opponents, 2 games a block
    assert all(by_name[n]["ci_low"] is not None and by_name[n]["ci_high"] is not None for n in ladder[1:])
    assert all(by_name[n]["ci_low"] <= by_name[n]["rating"] <= by_name[n]["ci_high"] for n in ladder[1:])


@pytest.mark.slow  # the whole quickstart, in bwrap (a minute or more on 2 cores); CI runs it (.ci/run)
def test_make_leaderboards_remakes_the_committed_files(tmp_path: Path) -> None:
    recipe = make_recipe("leaderboards")
    assert any("leaderboards/quickstart" in ln for ln in recipe)
    out, dest = tmp_path / "run", tmp_path / "leaderboard"
    arena = str(Path(sys.executable).parent / "arena")
    ran = subprocess.run([arena, "run", str(CONFIG), "--quiet", "--out", str(out), "--leaderboard", str(dest)],
                         cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert ran.returncode == 0, ran.stderr[-3000:]
    for name in FILES:
        assert (dest / name).read_text() == (COMMITTED / name).read_text(), f"{name} differs: run `make leaderboards`"
    shutil.rmtree(out)
