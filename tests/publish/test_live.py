"""The live standings table: the final leaderboard's table without intervals, on any input."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from arena.publish.leaderboard import main_table
from arena.publish.live import LATER, live_renderer, live_table
from arena.publish.rate import rate_loaded
from arena.results import LoadedResults

from .helpers import block, game, line, meta, tournament, typed, write


def rows(table: str) -> list[list[str]]:
    """The body rows of a "simple" table, split into cells."""
    body = table.split("\n")
    start = next(i for i, x in enumerate(body) if x.startswith("---")) + 1
    return [re.split(r"\s{2,}", x.strip()) for x in body[start:] if x and not x.startswith(("no games", "ratings"))]


def test_the_live_table_is_the_final_table_with_intervals_left_for_the_end() -> None:
    lines = tournament(random.Random(3), {"x": 0.0, "y": 150.0, "z": -80.0}, blocks=6)
    final, _, _ = rate_loaded(LoadedResults(path=Path("r.jsonl"), lines=typed(lines)), bootstrap=40)
    want = rows(main_table(final, "simple"))
    got = rows(live_table(typed(lines)))
    assert [r[:3] + r[4:] for r in got] == [r[:3] + r[4:] for r in want]  # rank, bot, rating, games .. faults
    assert all(r[3] == LATER for r in got) and all(r[3].startswith("[") for r in want)
    ratings = [int(r[2]) for r in got]
    assert ratings == sorted(ratings, reverse=True) and {r[1] for r in got} == {"x", "y", "z"}
    assert all(r[4] == "24" for r in got)  # 2 pairings x 6 blocks x 2 games each


@pytest.mark.parametrize("w0, w1, pct, wdl", [
    (0, 1, "100.0%", "2-0-0"),  # a perfect record: a finite rating, not infinity
    (None, None, "50.0%", "0-2-0"),  # all draws
    (0, 0, "50.0%", "1-0-1"),  # one win each
])
def test_one_block_of_one_pair(w0: int | None, w1: int | None, pct: str, wdl: str) -> None:
    got = rows(live_table(typed([block(("a", "a"), ("b", "b"), 0, w0, w1)])))
    assert len(got) == 2 and got[0][4] == "2" and got[0][5] == pct and got[0][6] == wdl
    assert all(r[3] == LATER for r in got) and all(re.fullmatch(r"-?\d+", r[2]) for r in got)
    if pct == "50.0%":
        assert got[0][2] == got[1][2] == "0"


def test_no_blocks_and_bots_without_games_are_said_not_ranked() -> None:
    assert live_table([]) == "(no blocks finished yet)"
    text = live_table(typed([block(("a", "a"), ("b", "b"), 0, 0, 1)]), entrants=["a", "b", "c", "c"])
    assert text.endswith("no games yet: c") and [r[1] for r in rows(text)] == ["a", "b"]


def test_an_anchor_without_games_yet_leaves_the_mean_as_the_anchor_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "run"
    write(out / "results.jsonl", [])
    (out / "tournament.json").write_text(json.dumps(meta(anchor="c")))
    show = live_renderer(out, entrants=["a", "b", "c"])
    text = show(typed([block(("a", "a"), ("b", "b"), 0, 0, 1)]))
    assert "the anchor c has no games yet" in text and "no games yet: c" in text
    got = rows(text)
    assert int(got[0][2]) == -int(got[1][2]) > 0  # relative to the mean
    later = show(typed([block(("a", "a"), ("c", "c"), 0, 0, 1), block(("b", "b"), ("c", "c"), 0, 1, 0)]))
    assert "anchor" in [r[3] for r in rows(later) if r[1] == "c"] and "no games yet" not in later


def test_lines_the_fit_cannot_take_are_said_in_one_line() -> None:
    broken = line(("a", "a"), ("b", "b"), 0, game(["a", "b", "a", "b"], 0, 0), game(["a", "b", "a", "b"], 0, 0))
    text = live_table(typed([broken]))
    assert text.startswith("(no ratings yet: ") and "\n" not in text


def test_the_provisional_site_copes_with_an_anchor_without_games_as_the_table_does(tmp_path: Path) -> None:
    """One path for both: early in a run the anchor may not have played; the page is written, relative to
    the mean, and says so; the finished results with an absent anchor are still refused."""
    from arena.publish.rate import PublishError, rate_results
    from arena.publish.site import write_provisional

    out = tmp_path / "run"
    write(out / "results.jsonl", [block(("a", "a"), ("b", "b"), 0, 0, 1)])
    (out / "tournament.json").write_text(json.dumps(meta(anchor="c")))
    write_provisional(out, tmp_path / "site", done=1, total=3)
    page = (tmp_path / "site" / "index.html").read_text()
    assert "the anchor c has no games yet" in page and "1 of 3 blocks played so far" in page
    assert "the anchor c has no games yet" in live_renderer(out)(typed([block(("a", "a"), ("b", "b"), 0, 0, 1)]))
    with pytest.raises(PublishError, match="anchor 'c' is not a bot"):
        rate_results(out, tmp_path / "lb", bootstrap=0)
