"""Versions of a bot: one computation for the terminal, the leaderboard and the site; each bot's latest
version ranked, earlier ones linked history; a retired version left out of the ratings."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from arena.publish import Leaderboard
from arena.publish.leaderboard import main_table
from arena.publish.live import LATER, live_table
from arena.publish.rate import PublishError, rate_loaded, rate_results
from arena.publish.site import build_site
from arena.results import LoadedResults
from tests.cli import arena

from .helpers import digest, game, line, meta, seat, write

OLD, NEW = "a" * 64, "b" * 64


def _block(a: dict, b: dict, idx: int, w0: int | None, w1: int | None) -> dict:
    """``block`` of the helpers with seat dicts, so one name can carry two digests."""
    g0 = game([a, b, a, b], 0, w0)
    g1 = game([b, a, b, a], 1, w1)
    ln = line((a["bot"], a["bot"]), (b["bot"], b["bot"]), idx, g0, g1, pairing=f"{a['digest'][:4]}~{b['bot']}")
    ln["side_a"], ln["side_b"] = [a, a], [b, b]
    return ln


def versions_run(tmp_path: Path, retired: list[str] | None = None) -> Path:
    """cp v1 loses its blocks against x and y; cp v2 (a new version, later in the file) wins its own."""
    rng = random.Random(5)
    cp1, cp2, x, y = seat("cp", OLD), seat("cp", NEW), seat("x"), seat("y")
    lines = []
    for i in range(6):
        lines.append(_block(cp1, x, i, 1, 0))  # cp v1 loses both games
        lines.append(_block(x, y, i, *rng.sample([0, 1], 2)))
    for i in range(6):
        lines.append(_block(cp2, x, 10 + i, 0, 1))  # cp v2 wins both
    out = tmp_path / "run"
    write(out / "results.jsonl", lines)
    m = meta(anchor="x")
    m["entries"] = [{"name": "cp", "digest": OLD, "version": "1"}, {"name": "cp", "digest": NEW, "version": "2"},
                    {"name": "x", "digest": digest("x"), "version": "1"}, {"name": "y", "digest": digest("y"), "version": "1"}]
    if retired is not None:
        m["retired"] = retired
    (out / "tournament.json").write_text(json.dumps(m))
    return out


def test_each_bot_s_latest_version_is_ranked_and_earlier_ones_follow_linked(tmp_path: Path) -> None:
    pub = rate_results(versions_run(tmp_path), tmp_path / "lb", bootstrap=0)
    rows = pub.doc.bots
    ranked = [r for r in rows if r.rank is not None]
    assert [r.name for r in ranked].count("cp") == 1 and len(ranked) == 3
    new = next(r for r in rows if r.digest == NEW)
    old = next(r for r in rows if r.digest == OLD)
    assert new.latest and new.rank == 1 and new.superseded_by is None
    assert not old.latest and old.rank is None and old.superseded_by == new.bot
    assert rows[-1] is old  # history after the ranking
    assert old.games == 12 and old.score_pct == 0.0  # its games still count
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    table = md.split("\n\n")[2]
    assert new.bot in table and f"| {old.bot}" not in table
    assert f"earlier versions (not ranked; their games count): {old.bot}" in md and f"now {new.bot}" in md


def test_terminal_live_table_and_leaderboard_are_one_computation(tmp_path: Path) -> None:
    out = versions_run(tmp_path)
    pub = rate_results(out, tmp_path / "lb", bootstrap=0)
    res = LoadedResults(out / "results.jsonl", pub.results.lines)
    live = live_table(pub.results.lines, meta=json.loads((out / "tournament.json").read_text()))
    assert live.splitlines() == main_table(pub.doc, "simple", missing_interval=LATER).splitlines()  # rows, versions
    doc, _, _ = rate_loaded(res, meta=json.loads((out / "tournament.json").read_text()), bootstrap=0)
    assert [(r.bot, r.rating, r.games) for r in doc.bots] == [(r.bot, r.rating, r.games) for r in pub.doc.bots]


def test_a_retired_version_is_left_out_of_the_ratings(tmp_path: Path) -> None:
    base = rate_results(versions_run(tmp_path / "a"), tmp_path / "a" / "lb", bootstrap=0).doc.model_dump()
    for spec in ("cp@2", f"cp@{NEW[:8]}"):  # the manifest's version or a digest prefix
        doc = rate_results(versions_run(tmp_path / spec), tmp_path / spec / "lb", bootstrap=0,
                           retire=[spec]).doc.model_dump()
        assert doc["retired"] == [{"name": "cp", "digest": NEW, "version": "2"}]
        assert all(r["digest"] != NEW for r in doc["bots"])
        cp = next(r for r in doc["bots"] if r["name"] == "cp")
        assert cp["digest"] == OLD and cp["rank"] is not None and cp["latest"]  # the rank goes back to v1
        assert doc["blocks"] == base["blocks"] - 6  # every block cp v2 played is out
    md = (tmp_path / "cp@2" / "lb" / "leaderboard.md").read_text()
    assert "retired (left out of the ratings): cp@2" in md


def test_the_run_s_retired_list_applies_without_the_flag_and_a_typo_is_refused(tmp_path: Path) -> None:
    doc = rate_results(versions_run(tmp_path / "r", retired=["cp@1"]), tmp_path / "lb", bootstrap=0).doc.model_dump()
    assert [r["version"] for r in doc["retired"]] == ["1"] and all(r["latest"] for r in doc["bots"])
    with pytest.raises(PublishError, match=r"names no version of cp.*versions: 1 \(digest aaaa.*2 \(digest bbbb"):
        rate_results(versions_run(tmp_path / "t"), tmp_path / "lb2", bootstrap=0, retire=["cp@3"])
    ran = arena("rate", versions_run(tmp_path / "c"), "--out", tmp_path / "lb3", "--bootstrap", "0",
                "--retire", "nobody@1")
    assert ran.code != 0 and "no bot 'nobody'" in ran.err


def test_the_site_links_an_earlier_version_to_the_ranked_one(tmp_path: Path) -> None:
    site = tmp_path / "site"
    b = build_site([versions_run(tmp_path)], site, bootstrap=0, history_bootstrap=0)
    index = (site / "index.html").read_text()
    ratings = index[index.index('id="ratings"'):index.index("</table>", index.index('id="ratings"'))]
    versions = index[index.index('id="versions"'):].split("</table>")[0]
    old_id, new_id = f"cp@{OLD[:12]}", f"cp@{NEW[:12]}"
    old_page, new_page = (f"bots/{b.model.slugs[i]}.html" for i in (old_id, new_id))
    assert old_id not in ratings and new_id in ratings
    assert re.search(rf'href="{old_page}">{old_id}</a>.*href="{new_page}">{new_id}</a>', versions, re.S)
    assert f'now <a href="../{new_page}">{new_id}</a>' in (site / old_page).read_text()
    assert "Rank 1 of 3" in (site / new_page).read_text()


def test_arena_run_ends_with_the_leaderboard_s_standings(tmp_path: Path) -> None:
    """The terminal's final table is printed from the leaderboard document, versions and all."""
    from arena.commands.run import publish_step, show_standings
    from arena.publish.live import live_renderer
    import io

    out = versions_run(tmp_path)
    err = io.StringIO()
    assert publish_step(out, tmp_path / "lb", err) == 0
    doc = Leaderboard.model_validate_json((tmp_path / "lb" / "leaderboard.json").read_text())
    assert main_table(doc, "simple") in err.getvalue() and "earlier versions" in err.getvalue()
    err = io.StringIO()
    show_standings(out, live_renderer(out), err)
    rows = [ln.split()[:3] for ln in err.getvalue().splitlines()[3:6]]
    assert rows == [ln.split()[:3] for ln in main_table(doc, "simple").splitlines()[2:5]]


def test_the_site_s_crosstable_leaves_a_retired_version_out_as_the_leaderboard_does(tmp_path: Path) -> None:
    b = build_site([versions_run(tmp_path, retired=["cp@2"])], tmp_path / "site", bootstrap=0, history_bootstrap=0)
    new_id = f"cp@{NEW[:12]}"
    assert all(new_id not in pair for pair in b.model.matrix)
    old_id = f"cp@{OLD[:12]}"  # the id it has on every page: the results hold two versions of cp
    assert {r.bot for r in b.model.doc.bots} == {old_id, "x", "y"} and old_id in b.model.slugs
    x_vs_cp = b.model.matrix[("x", old_id)]
    assert len(x_vs_cp.games) == 12  # cp v1's 6 blocks only
    assert "Retired by the host, left out of the ratings: cp@2." in (tmp_path / "site" / "index.html").read_text()
