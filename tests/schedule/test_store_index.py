"""A run that keeps no stored line (``RunOptions.index``, a server's ladder): each resume parses only what was
appended since the index last read the store, holds no line of it, and plays and stores what a run without
an index does."""

from __future__ import annotations

import json
import shutil
import tracemalloc
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from arena.results import ResultLine, ResultsError, ResultsScan, ResultsStore, StoreIndex, comparable
from arena.schedule import BlockTask, RunOptions, load_config, plan, run_tournament

from .conftest import write_config


def _run(tmp: Path, blocks: int, index: StoreIndex | None = None, out: str = "out") -> Any:
    t = load_config(write_config(tmp, blocks=blocks, out=str(tmp / out)))
    return run_tournament(t, options=RunOptions(extend=True, skip_check=True, index=index))


def _stored(out: Path) -> list[dict[str, Any]]:
    return [comparable(line) for line, _, _ in ResultsScan(out)]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Path, int], Path]]:
    """played(tmp, blocks): TMP/out and TMP/index.json as ``_restart(tmp, blocks, TMP/index.json)`` leaves them.
    Each is played once per module and copied (nothing in a store or its index names the folder): the tests
    differ in what they do next, and a play of the same config is the same bytes."""
    made: dict[int, Path] = {}

    def into(tmp: Path, blocks: int) -> Path:
        if blocks not in made:
            made[blocks] = tmp_path_factory.mktemp(f"played{blocks}")
            _restart(made[blocks], blocks, made[blocks] / "index.json")
        shutil.copytree(made[blocks] / "out", tmp / "out")
        shutil.copy(made[blocks] / "index.json", tmp / "index.json")
        return tmp / "index.json"

    yield into


def test_a_resume_with_an_index_parses_only_what_was_appended_and_stores_the_same(tmp_path: Path, played) -> None:
    played(tmp_path, 2)  # an earlier server: the store holds 2 blocks (its index file is not used here)
    index = StoreIndex()
    r = _run(tmp_path, 4, index)
    assert index.parsed == 2  # the lines stored before this index: read once
    assert r.complete and r.summary["blocks_done"] == 4 and r.summary["games"] == 8
    assert [ln.block for ln in r.lines] == [2, 3]  # the result holds this run's lines only
    r = _run(tmp_path, 6, index)
    assert index.parsed == 2  # what the store appended itself is not read again
    assert r.summary["blocks_done"] == 6 and r.summary["games"] == 12 and r.summary["played_now"] == 2
    again = _run(tmp_path, 6, index)
    assert index.parsed == 2 and again.outcome is None  # nothing left, nothing read
    whole = _run(tmp_path, 6, out="whole")  # one run, no index: the same lines, the same summary figures
    assert _stored(tmp_path / "out") == _stored(tmp_path / "whole")
    assert {k: whole.summary[k] for k in ("blocks_done", "games")} == {k: r.summary[k] for k in ("blocks_done", "games")}


def test_an_index_cuts_a_torn_tail_and_reads_a_rewritten_store_again(tmp_path: Path) -> None:
    index = StoreIndex()
    _run(tmp_path, 2, index)
    path = tmp_path / "out" / "results.jsonl"
    whole = path.read_bytes()
    with open(path, "ab") as f:
        f.write(whole[:100])  # a kill mid-append: a torn last line
    r = _run(tmp_path, 3, index)
    assert r.summary["blocks_done"] == 3 and index.parsed == 0
    assert [x["block"] for x in _stored(tmp_path / "out")] == [0, 1, 2] and path.read_bytes().endswith(b"\n")
    first = whole[:whole.index(b"\n") + 1]
    path.write_bytes(first)  # the store no longer holds what the index read where it read it
    r = _run(tmp_path, 3, index)
    assert index.parsed == 1  # read again from its start
    assert r.summary["played_now"] == 2 and [x["block"] for x in _stored(tmp_path / "out")] == [0, 1, 2]


def test_an_index_refuses_a_store_of_another_config_as_a_full_load_does(tmp_path: Path) -> None:
    index = StoreIndex()
    _run(tmp_path, 1, index)
    out = tmp_path / "out"
    with pytest.raises(ResultsError) as full:
        ResultsStore(out).load(expect_hash="0" * 16)
    with pytest.raises(ResultsError) as indexed:
        ResultsStore(out, index=index).load(expect_hash="0" * 16)  # the lines it read before
    assert str(indexed.value) == str(full.value)
    with pytest.raises(ResultsError) as fresh:
        ResultsStore(out, index=StoreIndex()).load(expect_hash="0" * 16)
    assert str(fresh.value) == str(full.value)


class _Reads:
    """A stopping rule that would be fed the stored lines (an SPRT's kind)."""

    def add(self, task: BlockTask, line: ResultLine) -> None: ...

    def wants(self, task: BlockTask) -> bool:
        return True

    @property
    def done(self) -> bool:
        return False


def test_a_stopping_rule_that_reads_stored_lines_is_refused_with_an_index(tmp_path: Path) -> None:
    t = load_config(write_config(tmp_path, blocks=1))
    with pytest.raises(ValueError, match="stopping rule"):
        plan(t, ResultsStore(t.out, index=StoreIndex()), _Reads())


def _peak_of_load(folder: Path, index: StoreIndex | None) -> int:
    tracemalloc.start()
    try:
        store = ResultsStore(folder, records=False, index=index)
        store.load()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_loading_with_an_index_holds_no_stored_line(tmp_path: Path) -> None:
    """Bytes of traced memory, not time: a store of many lines costs the index a key each, not a line each."""
    _run(tmp_path, 1)
    line = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])
    peaks: dict[tuple[int, bool], int] = {}
    for n in (20, 220):
        folder = tmp_path / f"store-{n}"
        folder.mkdir()
        with open(folder / "results.jsonl", "w") as f:
            for b in range(n):
                f.write(json.dumps({**line, "block": b}) + "\n")
        for indexed in (False, True):
            peaks[n, indexed] = _peak_of_load(folder, StoreIndex() if indexed else None)
    per_line = {k: (peaks[220, k] - peaks[20, k]) / 200 for k in (False, True)}
    assert per_line[False] > 3000, per_line  # the measure sees what a full load keeps (a slim line: kilobytes)
    assert per_line[True] < 1000, per_line  # an index: the key and its game count


# ------------------------------------------------------------------ the index kept in a file (a server's restart)


def _blocks(out: Path) -> list[int]:
    """The block numbers of the stored lines, in file order (the config has one pairing)."""
    lines = _stored(out)
    assert len({x["pairing"] for x in lines}) == 1
    return [x["block"] for x in lines]


def _restart(tmp: Path, blocks: int, kept: Path) -> tuple[Any, StoreIndex]:
    """A new process: the index as the file holds it, a run, the index written back."""
    index = StoreIndex.read(kept)
    r = _run(tmp, blocks, index)
    index.write(kept)
    return r, index


def test_a_written_index_lets_a_restart_read_nothing_again(tmp_path: Path, played) -> None:
    kept = played(tmp_path, 2)
    r, index = _restart(tmp_path, 4, kept)
    assert index.parsed == 0 and r.summary["played_now"] == 2 and r.summary["blocks_done"] == 4
    assert r.summary["games"] == 8  # the game counts came from the file
    again = StoreIndex.read(kept)
    assert (again.offset, again.games, again.hashes) == (index.offset, index.games, index.hashes)


def test_a_kill_between_the_store_and_its_index_loses_and_doubles_nothing(tmp_path: Path, played) -> None:
    """The process stored blocks 2 and 3 (each fsync'd) and was killed before it wrote the index: the next start
    reads those two lines from where the index stopped and plays neither again."""
    kept = played(tmp_path, 2)
    before = kept.read_bytes()
    _restart(tmp_path, 4, kept)
    kept.write_bytes(before)  # the index as the kill left it: older than the store
    r, index = _restart(tmp_path, 6, kept)
    assert index.parsed == 2 and r.summary["played_now"] == 2 and r.summary["blocks_done"] == 6
    _run(tmp_path, 6, out="whole")
    assert _blocks(tmp_path / "out") == list(range(6))
    assert _stored(tmp_path / "out") == _stored(tmp_path / "whole")
    r, index = _restart(tmp_path, 6, kept)  # and the index now written names all six
    assert index.parsed == 0 and r.outcome is None


def test_a_kill_mid_append_with_a_kept_index_cuts_the_torn_line_and_plays_it_again(tmp_path: Path, played) -> None:
    kept = played(tmp_path, 2)
    path = tmp_path / "out" / "results.jsonl"
    whole = path.read_bytes()
    with open(path, "ab") as f:
        f.write(whole[:len(whole) // 3])  # block 2's line cut short by the kill (its bytes: any line's start)
    r, index = _restart(tmp_path, 3, kept)
    assert index.parsed == 0 and r.summary["played_now"] == 1
    assert _blocks(tmp_path / "out") == [0, 1, 2] and path.read_bytes().endswith(b"\n")


@pytest.mark.parametrize("damage", ["torn", "garbage", "other format", "ahead of the store", "another store"])
def test_an_index_file_that_cannot_be_trusted_reads_the_store_again(tmp_path: Path, damage: str, played) -> None:
    kept = played(tmp_path, 3)
    path = tmp_path / "out" / "results.jsonl"
    text = kept.read_bytes()
    if damage == "torn":
        kept.write_bytes(text[:len(text) // 2])
    elif damage == "garbage":
        kept.write_bytes(b"[1, 2]")
    elif damage == "other format":
        kept.write_bytes(json.dumps({**json.loads(text), "format": 99}).encode())
    elif damage == "ahead of the store":  # the store put back from an older copy: two blocks
        path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:2]))
    else:  # its last two lines swapped: the last line read is not where it was
        lines = path.read_bytes().splitlines(keepends=True)
        path.write_bytes(lines[0] + lines[2] + lines[1])
    r, index = _restart(tmp_path, 4, kept)
    stored = 2 if damage == "ahead of the store" else 3
    assert index.parsed == stored  # the store read from its start, each line once
    assert r.summary["played_now"] == 4 - stored and r.summary["blocks_done"] == 4
    assert sorted(_blocks(tmp_path / "out")) == [0, 1, 2, 3]
