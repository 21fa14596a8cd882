"""arena play / replay / export-deals: games for people, from records alone."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.cli import main
from arena.engine import DealFile, Game, game_record
from arena.match.show import render_game

MINIMAL = str(Path(__file__).resolve().parents[2] / "bots" / "minimal")


def test_play_shows_every_deal_and_saves_a_replayable_record(tmp_path, capsys):
    rec_path = tmp_path / "game.json"
    assert main(["play", MINIMAL, MINIMAL, "--sandbox", "none", "--key", "k1", "--save", str(rec_path)]) == 0
    out = capsys.readouterr().out
    record = json.loads(rec_path.read_text())
    assert out.count("--- deal ") == len(record["deals"])
    assert "=== game over" in out and "trick 6:" in out and "bidding:" in out
    # replay shows the same tricks and result from the record alone (bot names are not in a record)
    assert main(["replay", str(rec_path)]) == 0
    again = capsys.readouterr().out
    strip = lambda text: [ln for ln in text.splitlines() if ln.startswith(("  trick", "==="))]  # noqa: E731
    assert strip(again) == strip(out)


def test_replay_refuses_a_tampered_record(tmp_path):
    g = Game(key="t")
    rng = random.Random(0)
    while not g.over:
        g.apply(g.choice.sample(rng))
    rec = game_record(g)
    rec["deals"][0]["points"] = [14, 0] if rec["deals"][0]["points"] != [14, 0] else [0, 14]
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(rec))
    with pytest.raises(ValueError, match="differs"):
        main(["replay", str(p)])


def test_render_marks_forced_moves_and_reshuffles():
    from arena.players.check import probe_positions

    g = probe_positions()["rob_after_reshuffle"]()
    text = render_game(game_record(g))
    assert "reshuffled" in text and "(forced)" not in text.split("bidding:")[0]


def test_export_deals_writes_a_loadable_deal_file(tmp_path, capsys):
    out = tmp_path / "deals.json"
    assert main(["export-deals", "abc", str(out), "--deals", "5"]) == 0
    df = DealFile.load(out)
    assert len(df.deals) == 5 and df.deals[0].reshuffle_key == "abc"
    assert [c for c in df.deals[2].deck] == [c for c in DealFile.from_key("abc", 5).deals[2].deck]
