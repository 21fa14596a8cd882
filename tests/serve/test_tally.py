"""The ladder's standings read only what the store gained, and give what ``standings`` gives over it all."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from arena.results import ResultsScan, standings
from arena.results.schema import trusted_line
from arena.serve.ladder import STANDINGS, run_batch
from arena.serve.tally import Tally

from .conftest import ROOT
from .test_ladder import accept, library_comp


def seat(name: str, digest: str) -> dict[str, str]:
    return {"bot": name, "digest": digest}


def pair_line(rng: random.Random, bots: list[tuple[str, str]], block: int) -> dict[str, Any]:
    a, b = rng.sample(bots, 2)
    games = []
    for half in range(2):
        x, y = (a, b) if half == 0 else (b, a)
        faults = [{"seat": rng.choice([0, 1, 7, None]), "bot": x[0]}] if rng.random() < 0.2 else []
        games.append({"seats": [seat(*x), seat(*y), seat(*x), seat(*y)], "winner": rng.choice([0, 1, None]),
                      "faults": faults, "side_a": half})
    return {"pairing": "p", "block": block, "side_a": [seat(*a)] * 2, "side_b": [seat(*b)] * 2, "games": games}


def table_line(rng: random.Random, bots: list[tuple[str, str]], block: int) -> dict[str, Any]:
    at = [rng.choice(bots) for _ in range(5)]
    return {"pairing": "t", "block": block, "table": [seat(*x) for x in at],
            "games": [{"seats": [seat(*x) for x in at[r:] + at[:r]], "winner": rng.choice([0, 3, None]),
                       "faults": [], "side_a": None} for r in range(5)]}


def figures(rows: list[Any]) -> list[tuple[str, int, float, int]]:
    return [(s.bot, s.games, s.points, s.faults) for s in rows]


def test_the_tally_counts_as_standings_does_to_the_last_bit() -> None:
    rng = random.Random(7)
    # red has two versions (ids red@...), blue one; a fault on a seat no game has is blamed by name
    bots = [("red", "a" * 64), ("red", "b" * 64), ("blue", "c" * 64), ("green", "d" * 64)]
    shared: dict[Any, Any] = {}
    lines = [trusted_line((table_line if rng.random() < 0.3 else pair_line)(rng, bots, i), shared)
             for i in range(300)]
    t = Tally()
    for ln in lines:
        t.take(ln)
    assert figures(t.standings()) == figures(standings(lines))
    assert {s.bot for s in t.standings()} >= {"red@aaaaaaaaaaaa", "red@bbbbbbbbbbbb", "blue", "green"}


def test_the_ladder_s_index_keeps_counts_per_unit_not_a_row_per_block(tmp_path: Path) -> None:
    """A ladder runs for weeks: what its index keeps (in memory and in its file) grows with its units, not with
    the blocks stored (a block number each at most); and it gives the choice what the games give."""
    from arena.serve.choice import contests
    from arena.serve.tally import Index, Stored

    rng = random.Random(3)
    bots = [("red", "a" * 64), ("blue", "c" * 64), ("green", "d" * 64)]
    shared: dict[Any, Any] = {}
    lines = [trusted_line({**(table_line if rng.random() < 0.3 else pair_line)(rng, bots, i), "config_hash": "h"},
                          shared) for i in range(2000)]
    sizes = []
    for n in (500, 2000):
        index = Index()
        for ln in lines[:n]:
            index.take(ln)
        index.seen = set()  # the keys read, hashed (16 bytes a block), are the Follow's, not the summary's
        index.save(tmp_path)
        sizes.append(len((tmp_path / Index.STATE).read_bytes()))
        want = Stored.of({(ln.pairing, ln.block): contests(ln) for ln in lines[:n]})
        assert Index.load(tmp_path).stored("h") == want
    assert (sizes[1] - sizes[0]) / 1500 < 6, sizes  # a block number and its comma


def test_after_each_batch_the_standings_read_only_the_new_lines_and_a_changed_store_is_read_again(
        tmp_path: Path) -> None:
    svc = library_comp(tmp_path / "c")
    accept(svc, "red", ROOT / "bots" / "minimal")
    accept(svc, "blue", ROOT / "bots" / "random")
    store = svc.folder / "results" / "results.jsonl"

    def whole() -> list[tuple[str, int, float, int]]:
        return figures(standings([x for x, _, _ in ResultsScan(store)]))

    def shown() -> list[tuple[str, int, int]]:
        doc = json.loads((svc.folder / STANDINGS).read_text())
        return [(s["bot"], s["games"], s["faults"]) for s in doc["standings"]]

    for _ in range(3):
        assert run_batch(svc) > 0
        kept = Tally.load(svc.folder)
        assert kept.offset == store.stat().st_size and kept.blocks == sum(1 for _ in ResultsScan(store))
        assert figures(kept.standings()) == whole()
        assert shown() == [(b, g, f) for b, g, _, f in whole()]
    # what was read is not read again: a tally whose sums were doubled stays doubled while the store holds
    kept = Tally.load(svc.folder)
    for row in kept.sums.values():
        row[0] *= 2
    kept.save(svc.folder)
    assert Tally.load(svc.folder).catch_up(svc.folder / "results").sums == kept.sums
    # a store that no longer holds its last line where it was read (cut and written again) is read whole
    data = store.read_bytes()
    last = data.rstrip(b"\n").rsplit(b"\n", 1)[1]
    store.write_bytes(data[: len(data) - len(last) - 1] + last.replace(b'"winner":', b'"winner": ') + b"\n")
    again = Tally.load(svc.folder).catch_up(svc.folder / "results")
    assert figures(again.standings()) == whole()
    # a torn tail is not counted, and once whole it is
    with open(store, "ab") as f:
        f.write(b'{"schema": 1, "pairing"')
    assert Tally.load(svc.folder).catch_up(svc.folder / "results").blocks == again.blocks
    # a missing or unreadable state is a new tally
    (svc.folder / Tally.STATE).write_text("{not json")
    assert Tally.load(svc.folder).offset == 0


@pytest.mark.slow  # six real ladder batches, about 4.5 s of CPU: in CI's slow step, out of make test's budget
def test_the_ladder_chooses_from_its_index_as_from_the_whole_store(tmp_path: Path) -> None:
    from arena.results import ResultsError, ResultsStore
    from arena.serve.choice import contests, pairwise
    from arena.serve.ladder import _choose_from_store, choose, ladder_tournament, room
    from arena.serve.tally import Index, Stored

    svc = library_comp(tmp_path / "c")
    for team, bot in (("red", "minimal"), ("blue", "random"), ("green", "minimal")):
        accept(svc, team, ROOT / "bots" / bot)
    c = svc.config.competition
    for _ in range(6):  # past every pairing's minimum (3 pairings x 3 blocks): continuous play reads the wins
        assert run_batch(svc) > 0
        t = ladder_tournament(svc, room(svc.folder / "results", c))
        assert t is not None
        full = ResultsStore(svc.folder / "results", records=False)
        full.load(expect_hash=t.config_hash())
        failed = {(next(iter(full.lines))[0], 1): 1}
        whole = {k: contests(ln) for k, ln in full.lines.items()}
        assert _choose_from_store(svc.folder, t, c, failed) == choose(t, Stored.of(whole), c, failed)
        kept = Index.load(svc.folder).stored(t.config_hash())
        assert {(u, b) for u, blocks in kept.blocks.items() for b in blocks} == set(full.lines)
        assert all(k in kept for k in full.lines) and (next(iter(full.lines))[0], 10**6) not in kept
        summed: dict[tuple[str, str], float] = {}
        for wins in kept.wins.values():
            for pair, w in wins.items():
                summed[pair] = summed.get(pair, 0.0) + w
        assert summed == pairwise([full.lines[k] for k in sorted(full.lines)])
    with pytest.raises(ResultsError, match="config hash"):
        Index.load(svc.folder).stored("another")
