"""arena play / replay / export-deals: games for people, from records alone."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.commands import main
from arena.engine import DealFile, Game, game_record
from arena.match.show import render_game

from ..cli import arena

MINIMAL = str(Path(__file__).resolve().parents[2] / "bots" / "minimal")


def test_play_shows_every_deal_and_saves_a_replayable_record(tmp_path, capsys):
    rec_path = tmp_path / "game.json"
    assert main(["play", MINIMAL, MINIMAL, "--sandbox", "none", "--key", "k1", "--save", str(rec_path)]) == 0
    out = capsys.readouterr().out
    saved = json.loads(rec_path.read_text())
    record = saved["record"]
    assert saved["players"] == ["minimal"] * 4
    assert out.count("--- deal ") == len(record["deals"])
    assert "=== game over" in out and "trick 6:" in out and "bidding:" in out
    # replay shows the same game from the saved file alone, with the players' names
    assert main(["replay", str(rec_path)]) == 0
    again = capsys.readouterr().out
    assert again == out
    assert "N minimal" in again and "seat 0" not in again


def test_replay_refuses_a_tampered_record(tmp_path):
    g = Game(key="t")
    rng = random.Random(0)
    while not g.over:
        g.apply(g.choice.sample(rng))
    rec = game_record(g)
    rec["deals"][0]["points"] = [14, 0] if rec["deals"][0]["points"] != [14, 0] else [0, 14]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(rec))
    ran = arena("replay", p)
    assert ran.code == 2 and "does not replay" in ran.err and str(p) in ran.err
    assert "Traceback" not in ran.err


@pytest.mark.parametrize("content,why", [
    (None, "no such file"),
    ('{"some": "other json"}', "neither a game record nor a results file"),
    ("not json at all\n", "neither a game record nor a results file"),
])
def test_replay_of_the_wrong_file_is_one_sentence(tmp_path, content, why):
    p = tmp_path / "x.json"
    if content is not None:
        p.write_text(content)
    ran = arena("replay", p)
    assert ran.code == 2 and why in ran.err and "Traceback" not in ran.err
    assert ran.err.count("\n") == 1


def test_debug_shows_the_traceback(tmp_path):
    ran = arena("--debug", "replay", tmp_path / "nosuch.json")
    assert ran.code == 2 and "no such file" in ran.err


def test_play_with_a_missing_bot_is_one_sentence(tmp_path):
    ran = arena("play", tmp_path / "nosuchbot", MINIMAL)
    assert ran.code == 2 and "no bot manifest" in ran.err and "Traceback" not in ran.err


def test_render_marks_forced_moves_and_reshuffles():
    from arena.match.check import probe_positions

    g = probe_positions()["rob_after_reshuffle"]()
    text = render_game(game_record(g))
    assert "reshuffled" in text and "(forced)" not in text.split("bidding:")[0]


def test_export_deals_writes_a_loadable_deal_file(tmp_path, capsys):
    out = tmp_path / "deals.json"
    assert main(["export-deals", "abc", str(out), "--deals", "5"]) == 0
    df = DealFile.load(out)
    assert len(df.deals) == 5 and df.deals[0].reshuffle_key == "abc"
    assert [c for c in df.deals[2].deck] == [c for c in DealFile.from_key("abc", 5).deals[2].deck]


def test_export_deals_for_a_profile_with_the_joker(tmp_path, capsys):
    from arena.engine import get_profile

    out = tmp_path / "deals.json"
    assert main(["export-deals", "abc", str(out), "--deals", "2", "--profile", "sixty-three-joker"]) == 0
    assert "53 cards, profile sixty-three-joker" in capsys.readouterr().out
    df = DealFile.load(out)
    assert all(len(d.deck) == 53 and "JK" in d.deck for d in df.deals)
    df.check_profile(get_profile("sixty-three-joker"))
    assert main(["export-deals", "abc", str(out), "--profile", "sixty-three-jokr"]) == 2
    assert "did you mean 'sixty-three-joker'" in capsys.readouterr().err


@pytest.mark.parametrize(("profile", "seats"), [("cutthroat-3", 3), ("five-hand", 5)])
def test_play_seats_the_bots_round_a_table_of_n_and_replays_it(tmp_path, capsys, profile, seats):
    rec_path = tmp_path / "game.json"
    assert main(["play", MINIMAL, "--profile", profile, "--sandbox", "none", "--key", "n1", "--format", "deals",
                 "--deals", "2", "--save", str(rec_path)]) == 0
    out = capsys.readouterr().out
    saved = json.loads(rec_path.read_text())
    assert saved["players"] == ["minimal"] * seats and len(saved["record"]["scores"]) == seats
    assert f"P{seats} minimal" in out and f"P{seats + 1}" not in out and "=== game over" in out
    if profile == "five-hand":
        assert " calls " in out or " goes alone" in out
    assert main(["replay", str(rec_path)]) == 0
    assert capsys.readouterr().out == out


def test_play_refuses_more_bots_than_the_table_seats(capsys):
    assert main(["play", MINIMAL, MINIMAL, MINIMAL, "--profile", "cutthroat-2", "--sandbox", "none"]) != 0
    assert "1 to 2 bots" in capsys.readouterr().err
