"""Results lines -> BlockOutcome conversion."""

from __future__ import annotations

import json

import pytest

from arena.publish.load import convert
from arena.results import ResultsError, comparable, game_id, parse_line, read_results, side_a_sample

from .helpers import block, game, line, seat, typed, write


def test_standard_block_sides_scores_and_totals() -> None:
    ln = block(("x", "x"), ("y", "y"), 0, 0, 0)  # game 0: side 0 (A) wins; game 1: side 0 (B) wins
    (b,) = convert(typed([ln])).blocks
    g0, g1 = b.games
    # side A of the outcome is engine side 0 in both games (same cards)
    assert g0.side_a == ("x", "x") and g0.side_b == ("y", "y")
    assert g1.side_a == ("y", "y") and g1.side_b == ("x", "x")
    assert (g0.score_a, g1.score_a) == (1.0, 1.0)
    assert b.total_for(("x", "x")) == 1.0 == ln["score_a"]
    assert g0.flag is None and g0.forfeit_by is None and g0.points_diff is None


def test_swapped_seats_partnership_a_on_engine_side_1_first() -> None:
    # game 0 puts partnership A (x) on engine side 1, game 1 on side 0
    g0 = game(["y", "x", "y", "x"], 1, 1)  # A wins game 0
    g1 = game(["x", "y", "x", "y"], 0, 0)  # A wins game 1
    ln = line(("x", "x"), ("y", "y"), 3, g0, g1)
    (b,) = convert(typed([ln])).blocks
    assert b.games[0].side_a == ("y", "y") and b.games[0].score_a == 0.0
    assert b.games[1].side_a == ("x", "x") and b.games[1].score_a == 1.0
    assert b.total_for(("x", "x")) == 2.0 == ln["score_a"]
    assert side_a_sample(parse_line(ln))[0] == 2.0


def test_mixed_partnership_ids() -> None:
    ln = block(("x", "z"), ("y", "w"), 0, 1, 0)
    (b,) = convert(typed([ln])).blocks
    assert b.games[0].side_a == ("x", "z") and b.games[0].side_b == ("y", "w")
    assert b.total_for(("x", "z")) == 0.0


def test_partnership_a_not_on_side_a_is_rejected() -> None:
    g0 = game(["x", "y", "x", "y"], 1, 0)  # claims A (x) sits on side 1, but x is on side 0
    g1 = game(["y", "x", "y", "x"], 1, 0)
    ln = line(("x", "x"), ("y", "y"), 0, g0, g1)
    with pytest.raises(ResultsError, match="partnership A"):
        convert(typed([ln]))


def test_forfeit_is_a_loss_for_the_seat_bot() -> None:
    fault = {"seat": 2, "bot": "x", "deal": 0, "decision": 4, "kind": "timeout", "message": "slow",
             "request": None, "reply": None, "substituted": None}
    ln = block(("x", "x2"), ("y", "y2"), 0, 1, 1, end="forfeit", forfeit_by=2, faults=[fault])
    # the line's game 1 reuses forfeit_by=2: there seat 2 holds y2 (side 0), so side 0 loses again
    (b,) = convert(typed([ln])).blocks
    g0, g1 = b.games
    assert g0.forfeit_by == "x2" and g0.score_a == 0.0 and g0.flag == "forfeit"
    assert g1.forfeit_by == "y2" and g1.score_a == 0.0
    assert g0.faults == (("x2", "timeout"),)  # mapped by seat, not by the name in the fault
    assert g1.faults == (("y2", "timeout"),)


def test_forfeit_overrides_an_inconsistent_winner() -> None:
    g0 = game(["x", "y", "x", "y"], 0, 0, end="forfeit", forfeit_by=0)  # winner says side 0, but seat 0 forfeited
    g1 = game(["y", "x", "y", "x"], 1, 0)
    (b,) = convert(typed([line(("x", "x"), ("y", "y"), 0, g0, g1)])).blocks
    assert b.games[0].score_a == 0.0 and b.games[0].forfeit_by == "x"


def test_caps_and_drawn_deals_are_flagged_draws_with_points() -> None:
    capped = block(("x", "x"), ("y", "y"), 0, None, None, end="cap", scores=(50, 50))
    (b,) = convert(typed([capped])).blocks
    assert [g.flag for g in b.games] == ["capped", "capped"]
    assert [g.score_a for g in b.games] == [0.5, 0.5]
    assert b.games[0].points_diff is None  # game format: no points difference

    a0, b0 = "x", "y"
    g0 = game([a0, b0, a0, b0], 0, None, end="deals", scores=(30, 30), fixed_deals=8)
    g1 = game([b0, a0, b0, a0], 1, 1, end="deals", scores=(20, 41), fixed_deals=8)
    (d,) = convert(typed([line(("x", "x"), ("y", "y"), 1, g0, g1)])).blocks
    assert d.games[0].flag == "drawn_deals" and d.games[0].score_a == 0.5
    assert d.games[0].points_diff == 0.0 and d.games[1].points_diff == -21.0
    assert d.points_for(("x", "x")) == 21.0  # x held side 1 in game 1 and won by 21
    assert convert(typed([line(("x", "x"), ("y", "y"), 1, g0, g1)])).formats == {"deals"}
    assert side_a_sample(parse_line(line(("x", "x"), ("y", "y"), 1, g0, g1))) == (1.5, 21.0)


def test_same_name_different_digest_are_separate_bots() -> None:
    old, new = seat("x", "a" * 64), seat("x", "b" * 64)
    g0 = game([old, "y", old, "y"], 0, 0)
    g1 = game(["y", old, "y", old], 1, 1)
    l1 = line(("x", "x"), ("y", "y"), 0, g0, g1, pairing="old")
    l1["side_a"] = [old, old]
    h0 = game([new, "y", new, "y"], 0, 1)
    h1 = game(["y", new, "y", new], 1, 0)
    l2 = line(("x", "x"), ("y", "y"), 0, h0, h1, pairing="new")
    l2["side_a"] = [new, new]
    conv = convert(typed([l1, l2]))
    assert sorted(conv.bots) == ["x@aaaaaaaaaaaa", "x@bbbbbbbbbbbb", "y"]


def test_torn_last_line_without_newline(tmp_path) -> None:
    lines = [block(("x", "x"), ("y", "y"), i, 0, 1) for i in range(3)]
    p = write(tmp_path / "results.jsonl", lines, tail=json.dumps(lines[0])[:40])
    res = read_results(p)
    assert res.torn and len(res.lines) == 3
    assert len(convert(res.lines).blocks) == 3
    clean = read_results(write(tmp_path / "c" / "results.jsonl", lines))
    assert not clean.torn and clean.sha256 == res.sha256  # the hash covers whole lines only


def test_unparsable_last_line_with_newline_is_torn_but_middle_is_corrupt(tmp_path) -> None:
    good = [block(("x", "x"), ("y", "y"), i, 0, 1) for i in range(2)]
    p = tmp_path / "results.jsonl"
    p.write_text(json.dumps(good[0]) + "\n" + json.dumps(good[1]) + "\n" + '{"pairing": "x~y", "blo\n')
    assert read_results(p).torn and len(read_results(p).lines) == 2
    p.write_text(json.dumps(good[0]) + "\n" + "{broken\n" + json.dumps(good[1]) + "\n")
    with pytest.raises(ResultsError, match="line 2"):
        read_results(p)


def test_duplicate_keys_keep_the_first_line(tmp_path) -> None:
    first = block(("x", "x"), ("y", "y"), 0, 0, 1)
    again = block(("x", "x"), ("y", "y"), 0, 1, 0)
    res = read_results(write(tmp_path / "results.jsonl", [first, again]))
    assert [g.id for g in res.lines[0].games] == [game_id("x+x~y+y", 0, h) for h in (0, 1)]
    for h, g in enumerate(first["games"]):
        g["id"] = game_id("x+x~y+y", 0, h)  # the reader names every game
    assert res.duplicates == 1 and res.lines == typed([first])


def test_folder_argument_reads_results_jsonl(tmp_path) -> None:
    write(tmp_path / "results.jsonl", [block(("x", "x"), ("y", "y"), 0, 0, 1)])
    assert len(read_results(tmp_path).lines) == 1
    with pytest.raises(ResultsError):
        read_results(tmp_path / "missing.jsonl")


def test_results_digest_ignores_run_facts_and_line_order_but_not_scores(tmp_path) -> None:
    lines = [block(("x", "x"), ("y", "y"), i, 0, 1) for i in range(3)]
    base = read_results(write(tmp_path / "a" / "results.jsonl", lines)).sha256
    other_run = [{**ln, "run": {"wall_s": 99.0, "host": "elsewhere"}} for ln in reversed(lines)]
    assert read_results(write(tmp_path / "b" / "results.jsonl", other_run)).sha256 == base
    changed = json.loads(json.dumps(lines))
    changed[1]["games"][0]["scores"] = [99, 0]
    assert read_results(write(tmp_path / "c" / "results.jsonl", changed)).sha256 != base
