"""The results store and schema on their own."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from arena.match import MatchSettings
from arena.results import (ResultLine, ResultsError, ResultsStore, StoreIndex, comparable, parse_line, standings,
                           write_stderr)
from arena.schedule import BlockTask, block_key, run_block
from arena.players import BotEntry, Manifest, PolicyPlayer

from ..schedule.conftest import Policy  # noqa: TID252


def _entry(name: str) -> BotEntry:
    return BotEntry(manifest=Manifest(name=name, command=["none"]), dir="/x", digest=(name * 64)[:64])


@pytest.fixture(scope="module")
def line() -> ResultLine:
    a, b = _entry("aa"), _entry("bb")
    task = BlockTask("aa~bb", 0, block_key("s", 0), (a.ident, a.ident), (b.ident, b.ident),
                     MatchSettings(format="deals", deals=2), "hash1")
    factory = lambda e, seed: PolicyPlayer(Policy(e.name, "first" if e.name == "aa" else "last"), seed)  # noqa: E731
    return run_block(task, {a.ident: a, b.ident: b}, make_player=factory).line


def test_line_round_trips_through_json(line: ResultLine) -> None:
    obj = json.loads(line.to_json())
    assert obj["schema"] == 1 and set(obj) == {
        "schema", "config_hash", "pairing", "block", "block_key", "side_a", "side_b", "score_a", "games", "run"}
    assert parse_line(obj) == line
    other = copy.deepcopy(obj)
    other["run"]["wall_s"] = 99.0
    other["run"]["host"] = "elsewhere"
    assert comparable(other) == comparable(obj)


def test_append_is_keyed_and_hash_is_checked(tmp_path: Path, line: ResultLine) -> None:
    store = ResultsStore(tmp_path)
    store.load()
    assert store.append(line) and not store.append(line)
    assert len(ResultsStore(tmp_path).load(expect_hash="hash1")) == 1
    with pytest.raises(ResultsError, match="config hash"):
        ResultsStore(tmp_path).load(expect_hash="other")


def test_a_units_lines_in_one_write_are_the_bytes_of_appending_each(tmp_path: Path, line: ResultLine) -> None:
    """append_all (a batch's lines, one fsync) writes what appending them one by one writes, skips a key
    stored before or repeated in the batch, and leaves an index where appending each leaves it."""
    other = line.model_copy(update={"block": 1})
    third = line.model_copy(update={"block": 2})
    one, many = ResultsStore(tmp_path / "one", index=StoreIndex()), ResultsStore(tmp_path / "many", index=StoreIndex())
    assert one.append(line) and many.append_all([line]) == [True]
    assert [one.append(x) for x in (other, line, third, other)] == [True, False, True, False]
    assert many.append_all([other, line, third, other]) == [True, False, True, False]
    assert many.append_all([]) == [] and many.append_all([line]) == [False]
    assert (tmp_path / "many" / "results.jsonl").read_bytes() == (tmp_path / "one" / "results.jsonl").read_bytes()
    assert many.index is not None and one.index is not None
    assert (many.index.offset, many.index.lines, many.index.tail_at, many.index.tail, many.index.games) == (
        one.index.offset, one.index.lines, one.index.tail_at, one.index.tail, one.index.games)
    assert list(ResultsStore(tmp_path / "many").load()) == [line.task_key, other.task_key, third.task_key]


def test_corrupt_middle_line_is_not_touched(tmp_path: Path, line: ResultLine) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text("{not json}\n" + line.to_json() + "\n")
    with pytest.raises(ResultsError, match="line 1 is not a results line"):
        ResultsStore(tmp_path).load()
    assert path.read_text().startswith("{not json}")


def test_standings_and_stderr_files(tmp_path: Path, line: ResultLine) -> None:
    table = {s.bot: s for s in standings([parse_line(json.loads(line.to_json()))])}
    assert table["aa"].games == table["bb"].games == 2
    assert table["aa"].points + table["bb"].points == 2
    p = write_stderr(tmp_path, "a@1+a@1~b/2", 3, 1, 2, "aa", "hello\n")
    assert p is not None and p.read_text() == "hello\n" and p.name == "3-1-seat2-aa.txt"
    assert write_stderr(tmp_path, "x", 0, 0, 0, "aa", "") is None
