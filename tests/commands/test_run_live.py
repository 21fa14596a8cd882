"""``arena run`` prints the live standings (the leaderboard's table, provisional) off a terminal; --quiet not."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from tests.cli import arena
from tests.publish.site.conftest import bot_folder


def config(tmp_path: Path) -> Path:
    a = bot_folder(tmp_path, "alpha", {"PICK": "first"})
    b = bot_folder(tmp_path, "bravo", {"PICK": "last"})
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump({"name": "live", "entries": [str(a), str(b)], "seed": "live-seed", "blocks": 3,
                                   "match": {"sandbox": "none", "format": "deals", "deals": 1},
                                   "out": str(tmp_path / "out"), "leaderboard": str(tmp_path / "lb"),
                                   "backend": "serial", "workers": 1}))
    return cfg


def test_the_log_gets_the_provisional_table_and_the_leaderboard_agrees(tmp_path: Path) -> None:
    ran = arena("run", config(tmp_path), "--skip-check")
    assert ran.code == 0, ran.err
    assert "\x1b" not in ran.err
    heads = re.findall(r"provisional standings after (\d+)/3 blocks \(intervals at the end\)", ran.err)
    assert heads and heads[-1] == "3" and len(heads) == len(set(heads))
    last = ran.err[ran.err.rindex("provisional standings after 3/3"):]
    live = {m[1]: m for m in re.findall(r"^(\d+)\s+(alpha|bravo)\s+(-?\d+)\s+at the end\s+(\d+)\s+(\S+%)\s+(\S+)", last,
                                         re.M)}
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    assert set(live) == {"alpha", "bravo"}
    for b in doc["bots"]:  # same ranks, ratings, games, W-D-L as the final leaderboard
        rank, _, rating, games, _, wdl = live[b["bot"]]
        assert (int(rank), int(rating), int(games)) == (b["rank"], round(b["rating"]), b["games"])
        assert wdl == f"{b['wins']}-{b['draws']}-{b['losses']}"


def test_quiet_prints_neither_the_line_nor_the_table(tmp_path: Path) -> None:
    ran = arena("run", config(tmp_path), "--skip-check", "--no-rate", "--quiet")
    assert ran.code == 0, ran.err
    assert "provisional standings" not in ran.err and "blocks | ETA" not in ran.err
    assert "arena run: complete" in ran.err
    assert (tmp_path / "out" / "results.jsonl").read_text().count("\n") == 3
