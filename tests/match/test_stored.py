"""One reader of a user's game files (arena/match/stored.py) for `arena replay` and `arena site frames`."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.engine import Game, game_record
from arena.match.show import saved_game
from arena.match.stored import StoredGamesError, games_of, read_games


def _record() -> dict:
    g = Game(key="stored", max_deals=1)
    rng = random.Random(3)
    while not g.over:
        g.apply(g.choice.sample(rng))
    return game_record(g)


def test_every_kind_of_file_gives_its_games(tmp_path: Path) -> None:
    rec = _record()
    line = {"pairing": "a+a~b+b", "block": 2, "games": [
        {"record": rec, "seats": [{"bot": "a"}, {"bot": "b"}] * 2, "forfeit_by": None},
        {"id": "x1", "record": rec, "seats": [{"bot": "b"}, {"bot": "a"}] * 2, "forfeit_by": 1}]}
    for name, doc in (("line.json", line), ("saved.json", saved_game(rec, ["n", "e", "s", "w"])), ("rec.json", rec)):
        (tmp_path / name).write_text(json.dumps(doc))
    first, second = read_games(tmp_path / "line.json")
    assert (first.twin, second.id, second.twin, second.forfeit_by) == ("x1", "x1", first.id, 1)
    assert first.names == ["a", "b", "a", "b"] and first.label.endswith("a+a~b+b block 2")
    (saved,) = read_games(tmp_path / "saved.json")
    assert saved.names == ["n", "e", "s", "w"] and saved.record == rec
    (bare,) = read_games(tmp_path / "rec.json")
    assert bare.names == [] and bare.record == rec
    assert [g.id for g in games_of([line, line])] == [first.id, "x1"] * 2


@pytest.mark.parametrize("content,why", [
    (None, "no such file"),
    ('{"hello": 1}', "neither a game record nor a results file"),
    ("[1, 2]", "neither a game record nor a results file"),
    ("not json\n", "neither a game record nor a results file"),
    ('{"pairing": "p", "block": 0, "games": []}', "holds no game"),
])
def test_a_file_without_games_is_one_sentence_naming_it(tmp_path: Path, content: str | None, why: str) -> None:
    p = tmp_path / "f.json"
    if content is not None:
        p.write_text(content)
    with pytest.raises(StoredGamesError) as e:
        read_games(p)
    assert why in str(e.value) and str(p) in str(e.value) and "\n" not in str(e.value)
