"""The ladder: a competition folder accumulates runs; a new bot or version plays only what is missing."""

from __future__ import annotations

import json
import re
from pathlib import Path

from arena.publish.site import build_site, load_competition
from arena.results import comparable, read_results
from arena.schedule.ladder import read_runs

import yaml

from tests.cli import arena

from .conftest import bot_folder, play

FAST = {"sandbox": "none", "format": "deals", "deals": 2}


def summary(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())


def test_adding_a_bot_plays_exactly_the_missing_games_and_equals_one_run(tmp_path: Path) -> None:
    a = bot_folder(tmp_path, "alpha", {"PICK": "first"})
    b = bot_folder(tmp_path, "bravo", {"PICK": "last"})
    c = bot_folder(tmp_path, "charlie", {"PICK": "last", "NOISY": "1"})
    ladder, single = tmp_path / "ladder", tmp_path / "single"
    play(tmp_path, [a, b], out=ladder, blocks=2, match=FAST)
    assert summary(ladder)["played_now"] == 2
    play(tmp_path, [a, b, c], out=ladder, extend=True, blocks=2, match=FAST)
    assert summary(ladder)["played_now"] == 4  # charlie's two pairings x 2 blocks, nothing replayed
    play(tmp_path, [a, b, c], out=single, blocks=2, match=FAST)

    def key(ln: dict) -> tuple:
        return (ln["pairing"], ln["block"])

    grown = sorted((comparable(x) for x in read_results(ladder).lines), key=key)
    once = sorted((comparable(x) for x in read_results(single).lines), key=key)
    assert grown == once
    assert [r.lines for r in read_runs(ladder)] == [2, 6]
    assert [r.played for r in read_runs(ladder)] == [2, 4]

    comp = load_competition([ladder])
    assert [r.end for r in comp.runs] == [2, 6]
    site = build_site([ladder], tmp_path / "site", bootstrap=50, history_bootstrap=20)
    history = site.model.history
    assert set(history[0]) == {"alpha", "bravo"} and set(history[1]) == {"alpha", "bravo", "charlie"}
    assert history[1]["alpha"] is next(r for r in site.model.doc.bots if r.bot == "alpha")
    html = (tmp_path / "site" / "index.html").read_text()
    assert "<td>not entered</td>" in html and "run 2</th>" in html and 'class="history"' in html
    # the site of the grown folder rates the same games as the single run's
    one = build_site([single], tmp_path / "site1", bootstrap=50)
    assert site.model.doc.bots == one.model.doc.bots


def test_a_new_version_plays_its_share_and_the_old_one_stays_rated(tmp_path: Path) -> None:
    a = bot_folder(tmp_path, "alpha", {"PICK": "first"})
    b = bot_folder(tmp_path, "bravo", {"PICK": "last"})
    out = tmp_path / "out"
    play(tmp_path, [a, b], out=out, blocks=1, match=FAST)
    (a / "bot.py").write_text((a / "bot.py").read_text() + "\n# version 2\n")
    cfg = tmp_path / "config.yaml"
    ran = arena("run", cfg, "--skip-check", "--no-rate", "--new-version")
    assert ran.code == 0, ran.err
    assert summary(out)["played_now"] == 1  # alpha v2 against bravo; alpha v1's games are kept
    lines = read_results(out).lines
    assert len(lines) == 2 and len(read_runs(out)) == 2
    site = build_site([out], tmp_path / "site", bootstrap=0, history_bootstrap=0)
    ids = sorted(r.bot for r in site.model.doc.bots)
    assert len(ids) == 3 and all(i.startswith("alpha@") for i in ids[:2]) and ids[2] == "bravo"
    first_run = site.model.history[0]
    assert len(first_run) == 2 and "bravo" in first_run  # as of run 1: the old alpha and bravo


def test_a_gauntlet_ladder_plays_each_new_candidate_against_the_pool(tmp_path: Path) -> None:
    a = bot_folder(tmp_path, "alpha", {"PICK": "first"})
    b = bot_folder(tmp_path, "bravo", {"PICK": "last"})
    c = bot_folder(tmp_path, "charlie", {"PICK": "last", "NOISY": "1"})
    ladder = tmp_path / "ladder"
    play(tmp_path, [a, b], out=ladder, blocks=2, match=FAST, schedule={"kind": "gauntlet", "candidate": str(a)})
    before = read_results(ladder).lines
    gauntlet_c = {"kind": "gauntlet", "candidate": str(c)}
    ran = arena("run", *_config(tmp_path, [a, b, c], ladder, gauntlet_c), "--skip-check", "--no-rate")
    assert ran.code == 2 and "--extend" in ran.err  # a new candidate is an extension, asked for explicitly
    play(tmp_path, [a, b, c], out=ladder, extend=True, blocks=2, match=FAST, schedule=gauntlet_c)
    assert summary(ladder)["played_now"] == 4  # charlie against alpha and bravo, 2 blocks each
    after = read_results(ladder).lines
    assert after[:len(before)] == before and len(after) == len(before) + 4
    alone = tmp_path / "alone"  # the same gauntlet in a fresh folder plays the same games
    play(tmp_path, [a, b, c], out=alone, blocks=2, match=FAST, schedule=gauntlet_c)
    assert [comparable(x) for x in after[len(before):]] == [comparable(x) for x in read_results(alone).lines]
    site = build_site([ladder], tmp_path / "site", bootstrap=0, history_bootstrap=0)
    assert [set(h) for h in site.model.history] == [{"alpha", "bravo"}, {"alpha", "bravo", "charlie"}]


def _config(folder: Path, entries: list[Path], out: Path, schedule: dict) -> list[str]:
    cfg = folder / "gauntlet.yaml"
    cfg.write_text(yaml.safe_dump({"name": "sitetest", "entries": [str(e) for e in entries], "seed": "site-seed",
                                   "blocks": 2, "match": FAST, "out": str(out), "backend": "serial", "workers": 1,
                                   "schedule": schedule}))
    return [str(cfg)]


def test_after_a_new_version_the_terminal_leaderboard_and_site_agree_and_a_version_retires(tmp_path: Path) -> None:
    """Issue: the terminal's standings (this run's games) and the leaderboard/site (all games) disagreed,
    and the old version stayed a full row. Now all three are one fit over the whole file, the latest
    version ranked, the old one listed under it; --retire leaves a version out and is kept in tournament.json."""
    a = bot_folder(tmp_path, "alpha", {"PICK": "first"})
    b = bot_folder(tmp_path, "bravo", {"PICK": "last"})
    out = tmp_path / "out"
    play(tmp_path, [a, b], out=out, blocks=2, match=FAST)
    (a / "bot.yaml").write_text((a / "bot.yaml").read_text().replace("version: '1'", "version: '2'"))
    cfg = tmp_path / "config.yaml"
    data = yaml.safe_load(cfg.read_text())
    data["leaderboard"] = str(tmp_path / "lb")
    cfg.write_text(yaml.safe_dump(data))
    ran = arena("run", cfg, "--skip-check", "--new-version", "--quiet")
    assert ran.code == 0, ran.err
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    ranked = [r for r in doc["bots"] if r["rank"] is not None]
    assert sorted(r["name"] for r in ranked) == ["alpha", "bravo"]
    old = next(r for r in doc["bots"] if r["rank"] is None)
    said = ran.err[ran.err.index("standings (the leaderboard's ranking)"):]
    for r in ranked:
        assert re.search(rf"\n\s*{r['rank']}\s+{re.escape(r['bot'])}\s+{round(r['rating'])}\s", said), said
        assert f" {r['games']} " in said.split(r["bot"], 1)[1].splitlines()[0]
    assert f"earlier versions (not ranked; their games count): {old['bot']}" in said
    site = build_site([out], tmp_path / "site", bootstrap=0, history_bootstrap=0)
    assert [(r.bot, r.games) for r in site.model.doc.bots] == [(r["bot"], r["games"]) for r in doc["bots"]]

    ran = arena("run", cfg, "--skip-check", "--quiet", "--retire", "alpha@1")
    assert ran.code == 0, ran.err
    assert json.loads((out / "tournament.json").read_text())["retired"] == ["alpha@1"]
    doc = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    assert doc["retired"][0]["version"] == "1" and len(doc["bots"]) == 2 and all(r["latest"] for r in doc["bots"])
    assert "retired (left out of the ratings): alpha@1" in ran.err
