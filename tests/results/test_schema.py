"""The two shapes of a results line, their one seating view, and the readers' round trips."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from pydantic import ValidationError

from arena.match import MatchSettings
from arena.results import (PairsLine, TableLine, bot_ids, line_digest, parse_line, standings, stored_line,
                           trusted_line, without_records)
from arena.schedule import BlockTask, block_key, run_block

from ..schedule.conftest import fake_entry, policy_factory  # noqa: TID252

NAMES = ["ann", "bob", "cy"]


@pytest.fixture(scope="module")
def pairs() -> PairsLine:
    a, b = fake_entry("ann"), fake_entry("bob")
    task = BlockTask("ann~bob", 0, block_key("s", 0), (a.ident, a.ident), (b.ident, b.ident),
                     MatchSettings(format="deals", deals=2, sandbox="none"), "h")
    line = run_block(task, {a.ident: a, b.ident: b}, make_player=policy_factory({"ann": "first", "bob": "last"})).line
    assert isinstance(line, PairsLine)
    return line


@pytest.fixture(scope="module")
def table() -> TableLine:
    entries = [fake_entry(n) for n in NAMES]
    task = BlockTask("table:x", 0, block_key("t", 0), (), (), MatchSettings(profile="cutthroat-3", format="deals",
                     deals=2, sandbox="none"), "h", table=tuple(e.ident for e in entries))
    line = run_block(task, {e.ident: e for e in entries},
                     make_player=policy_factory(dict(zip(NAMES, ["first", "last", "random"])))).line
    assert isinstance(line, TableLine)
    return line


def test_the_shape_is_told_by_the_line_and_the_bytes_round_trip(pairs: PairsLine, table: TableLine) -> None:
    for line, shape in ((pairs, PairsLine), (table, TableLine)):
        text = line.to_json()
        again = stored_line(text)
        assert type(again) is shape and again == line and again.to_json() == text
        assert again.to_dict() == json.loads(text)  # the stored object, key for key
    assert "table" not in json.loads(pairs.to_json()) and "side_a" not in json.loads(table.to_json())
    assert all("side_a" not in g for g in json.loads(table.to_json())["games"])


def _bad(obj: dict[str, Any], match: str) -> None:
    with pytest.raises(ValidationError, match=match):
        parse_line(obj)


def test_a_line_of_neither_shape_is_refused(pairs: PairsLine, table: TableLine) -> None:
    p, t = pairs.to_dict(), table.to_dict()
    _bad({**p, "games": p["games"][:1]}, "games")
    _bad({k: v for k, v in p.items() if k != "side_b"}, "side_b")
    _bad({**t, "side_a": p["side_a"]}, "side_a")  # a table names no partnerships
    _bad({**t, "games": t["games"][:2]}, "a table of 3 plays 3 games")
    bad = copy.deepcopy(p)
    bad["games"][0]["winner"] = 2  # two pairs: the winner is side 0 or 1
    _bad(bad, "winner must be a side 0..1")
    bad = copy.deepcopy(t)
    bad["games"][1]["forfeit_by"] = 3
    _bad(bad, "forfeit_by must be a seat 0..2")
    with pytest.raises(ValueError):
        stored_line("[1, 2]")


def test_one_seating_view_for_both_shapes(pairs: PairsLine, table: TableLine) -> None:
    st = pairs.seating(0)
    assert st.sides == ((0, 2), (1, 3)) and [st.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert st.opponents(0) == [1, 3] and [b.bot for b in st.bots(st.side_a or 0)] == ["ann", "ann"]
    assert [st.seat_score(s) for s in range(4)] == [st.game.scores[0], st.game.scores[1]] * 2
    assert sum(st.points(s) for s in (0, 1)) == 1.0
    tt = table.seating(1)
    assert tt.table and tt.sides == ((0,), (1,), (2,)) and tt.opponents(1) == [0, 2]
    assert [tt.seat_score(s) for s in range(3)] == tt.game.scores
    assert sum(tt.points(s) for s in range(3)) == pytest.approx(1.0)
    nobody = tt.game.model_copy(update={"winner": None})
    assert tt.__class__(nobody, 1, tt.sides, None).points(2) == pytest.approx(1 / 3)  # a third each


def test_standings_and_bot_ids_read_the_seating(pairs: PairsLine, table: TableLine) -> None:
    rows = {s.bot: s for s in standings([table])}
    assert sorted(rows) == NAMES and all(r.games == 3 for r in rows.values())
    assert sum(r.points for r in rows.values()) == pytest.approx(3.0)
    renamed = pairs.model_copy(update={"games": [g.model_copy(update={"seats": [
        s.model_copy(update={"digest": "f" * 64}) if s.bot == "ann" else s for s in g.seats]}) for g in pairs.games]})
    ids = bot_ids([pairs, renamed])
    assert sorted(ids.values()) == ["ann@" + pairs.side_a[0].digest[:12], "ann@ffffffffffff", "bob"]


def test_a_trusted_line_is_the_same_line_with_its_seats_shared(pairs: PairsLine, table: TableLine) -> None:
    shared: dict[Any, Any] = {}
    for line in (pairs, table):
        again = trusted_line(json.loads(line.to_json()), shared)
        assert again == line and line_digest(again) == line_digest(line) and again.to_json() == line.to_json()
    one, two = (trusted_line(pairs.to_dict(), shared) for _ in range(2))
    assert one.games[0].seats[0] is two.games[1].seats[1] is one.side_a[0]  # one object per bot version


def test_trusted_lines_share_their_fields_sets_and_still_write_what_they_were_given(pairs: PairsLine) -> None:
    shared: dict[Any, Any] = {}
    obj = pairs.to_dict()
    obj["games"][0]["faults"] = [{"seat": 1, "bot": "bob", "kind": "timeout"}]  # fewer keys than a Fault has
    obj["games"][1]["faults"] = [{"seat": 0, "bot": "ann", "kind": "illegal", "message": "no"}]
    one, two = trusted_line(obj, shared), trusted_line(json.loads(json.dumps(obj)), shared)
    assert one.model_fields_set is two.model_fields_set and one.games[0].model_fields_set is two.games[1].model_fields_set
    assert one.games[0].faults[0].model_fields_set is not one.games[1].faults[0].model_fields_set  # other keys
    assert one.to_json() == two.to_json() == parse_line(obj).to_json()  # each fault as given, no defaults written
    assert one.games[0].faults[0].model_dump() == {"seat": 1, "bot": "bob", "kind": "timeout"}
    moved = one.model_copy(update={"block": 7})  # a copy owns its set: the others' stay as they were
    assert moved.model_fields_set is not one.model_fields_set and two.model_fields_set == one.model_fields_set
    assert one.run.model_fields_set is not two.run.model_fields_set  # not frozen: setting a field adds to its own


def test_without_records_keeps_what_scores(pairs: PairsLine) -> None:
    light = without_records(pairs)
    assert all(g.record == {} for g in light.games) and light.run.games == []
    assert [s.bot for s in standings([light])] == [s.bot for s in standings([pairs])]
    assert pairs.games[0].record  # the line it came from is left whole
    shared: dict = {}
    one, two = without_records(pairs, shared), without_records(pairs, shared)
    assert one == light and one.games[0].seats[0] is two.games[1].seats[1] is two.side_a[0]  # one per version


def test_faults_and_their_commands_are_stored_with_the_keys_they_were_given(pairs: PairsLine) -> None:
    obj = pairs.to_dict()
    obj["games"][0]["faults"] = [{"seat": 1, "bot": "bob", "kind": "timeout", "stderr_extra": "x"}]
    obj["run"]["reproduce"] = [{"game": 0, "seat": 1, "bot": "bob", "kind": "timeout", "command": "arena reproduce"}]
    line = parse_line(obj)
    f, r = line.games[0].faults[0], line.run.reproduce[0]
    assert (f.seat, f.kind, f.message, f.decision) == (1, "timeout", "", None)  # defaults to read
    assert (r.game, r.command, r.stderr, r.game_id) == (0, "arena reproduce", None, None)
    stored = json.loads(line.to_json())
    assert stored["games"][0]["faults"] == obj["games"][0]["faults"]  # nothing added on the way out
    assert stored["run"]["reproduce"] == obj["run"]["reproduce"]
    again = trusted_line(stored, {})
    assert again == line and again.run.reproduce[0].command == "arena reproduce"
    with pytest.raises(ValidationError, match="seat"):
        parse_line({**obj, "run": {"reproduce": [{"game": 0, "bot": "bob", "kind": "x"}]}})
