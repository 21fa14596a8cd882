"""The team page's faults and tempo audit read what the store gained, never the store; what the server keeps of
them does not grow with the store; their state survives kills and is never trusted blindly (issue 43, item 3).

A real ladder plays three blocks (red crashes in every game, blue is bots/minimal); its store is then made ten
times longer with copies of its lines under the next block numbers (as the ladder would store them), some with
their faults left out. Every answer is compared with what the whole store gives (``publish.tempo.audit`` and
each line's ``run.reproduce``); reads are counted as lines parsed, never timed.
"""

from __future__ import annotations

import gc
import json
import shutil
import tracemalloc
from pathlib import Path
from typing import Any, Iterator

import pytest

import arena.results.store as store_module
from arena.publish.site.model import public_command
from arena.publish.tempo import audit
from arena.results import ResultsScan, comparable
from arena.serve.faults import STATE_DIR, Fault, FaultIndex
from arena.serve.tally import Runs

from .conftest import ROOT
from .test_ladder import TOKENS, accept, batches, library_comp
from .test_private import crashing_bot

RESULTS = "results/results.jsonl"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A competition folder after two ladder batches (3 blocks of one pairing; the fault state as the ladder
    left it)."""
    root = tmp_path_factory.mktemp("faultstate")
    svc = library_comp(root / "comp")
    accept(svc, "red", crashing_bot(root))
    accept(svc, "blue", ROOT / "bots" / "minimal")
    assert batches(svc, 2) == [2, 1]
    KEYS.update({t: TOKENS[t] for t in ("red", "blue")})
    return svc.folder


KEYS: dict[str, str] = {}  # the fixture's teams' tokens


@pytest.fixture
def folder(played: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "comp"
    shutil.copytree(played, dest)
    return dest


def grow(folder: Path, copies: int, *, faultless: bool = False) -> int:
    """Append ``copies`` of the stored lines under the pairing's next block numbers (every other one without
    its faults, if ``faultless``); the number of lines appended."""
    path = folder / RESULTS
    raws = [json.loads(r) for r in path.read_bytes().splitlines() if r.strip()]
    base = raws[:3]
    nxt = 1 + max(r["block"] for r in raws)
    with open(path, "a") as f:
        for i in range(copies * len(base)):
            r = json.loads(json.dumps(base[i % len(base)]))
            r["block"] = nxt + i
            if faultless and i % 2:
                r["run"]["reproduce"] = []
            f.write(json.dumps(r) + "\n")
    return copies * len(base)


def whole(folder: Path, team: str | None) -> tuple[list[Fault], list[Any]]:
    """What the whole store says: the team's faults in the store's order, and its tempo audit's rows."""
    lines = [ln for ln, _, _ in ResultsScan(folder / "results")]
    faults = [Fault(team=r.bot, pairing=ln.pairing, block=ln.block, game_id=r.game_id,
                    digest=ln.games[r.game].seats[r.seat].digest, seat=r.seat, kind=r.kind, message=r.message,
                    stderr=r.stderr or "", command=public_command(r.command))
              for ln in lines for r in ln.run.reproduce if team is None or r.bot == team]
    return faults, [s for s in audit(lines).seats if team is None or s.bot == team]


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many stored lines are parsed (every reader of the store parses through ``stored_line``)."""
    count = [0]
    real = store_module.stored_line

    def counted(raw: bytes) -> Any:
        count[0] += 1
        return real(raw)

    monkeypatch.setattr(store_module, "stored_line", counted)
    yield count


def answers(index: FaultIndex, team: str | None) -> tuple[list[Fault], list[Any]]:
    return index.of(team), index.tempo(team)


def test_a_view_reads_no_stored_line_after_a_batch_and_only_the_lines_appended_since(
        folder: Path, parses: list[int]) -> None:
    index = FaultIndex(folder / "results")  # a restarted server: the state the ladder's batch left
    for team in ("red", "blue", None):
        assert answers(index, team) == whole(folder, team)
    parses[0] = 0
    for team in ("red", "blue", None):
        assert answers(index, team)[0] == whole(folder, team)[0]  # (the oracle parses; the count is reset)
    parses[0] = 0
    assert answers(FaultIndex(folder / "results"), "red") and parses[0] == 0  # nothing of the store is read
    red = answers(index, "red")
    assert red[0] and red[0][0].stderr and all(s.games for s in red[1]) and any(s.decisions for s in red[1])
    appended = grow(folder, 9, faultless=True)  # a store ten times longer
    parses[0] = 0
    got = answers(index, "red")
    assert parses[0] == appended  # the view read what was appended, once
    parses[0] = 0
    assert answers(index, "blue") and answers(index, None) and parses[0] == 0
    for team in ("red", "blue", None):
        assert answers(index, team) == whole(folder, team)
    assert got == whole(folder, "red")
    # the host reads any block's line, a team only one holding a fault of its own
    faultless = json.loads((folder / RESULTS).read_bytes().splitlines()[4])
    assert faultless["run"]["reproduce"] == []
    key = (faultless["pairing"], faultless["block"])
    assert index.block_line("red", *key) is None and index.block_line("blue", *key) is None
    assert index.block_line(None, *key) == {**comparable(faultless), "run": {}}
    first = got[0][0]
    assert index.block_line("red", first.pairing, first.block)["block"] == first.block  # type: ignore[index]
    assert index.block_line("blue", first.pairing, first.block) is None
    assert index.block_line(None, first.pairing, 10**6) is None


def retained(folder: Path) -> tuple[int, int]:
    """Bytes a brought-up-to-date index keeps in memory, and its state file's size."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        index = FaultIndex(folder / "results")
        index.tempo("red"), index.of("red")
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert index.tempo("red")
    return kept, (folder / STATE_DIR / "index.json").stat().st_size


def test_what_the_index_keeps_does_not_grow_with_the_store(folder: Path, tmp_path: Path) -> None:
    retained(folder)  # the modules' own caches, once
    small = retained(folder)
    grow(folder, 9)
    shutil.rmtree(folder / STATE_DIR)  # made again from the whole store: one pass, streamed
    big = retained(folder)
    # ten times the lines and faults: the state names the teams, the seats and each unit's runs of blocks;
    # the faults and the tempo rows are in its files (before: every fault, and every line's place, in memory)
    assert big[1] - small[1] < 200, (small, big)
    assert big[0] - small[0] < 8 * 1024, (small, big)


def test_the_state_survives_a_kill_and_is_never_trusted_blindly(folder: Path, parses: list[int]) -> None:
    state = folder / STATE_DIR
    want = {t: whole(folder, t) for t in ("red", "blue", None)}

    def same(reads: int | None = None) -> None:
        parses[0] = 0
        index = FaultIndex(folder / "results")
        assert {t: answers(index, t) for t in want} == want
        if reads is not None:
            assert parses[0] == reads

    stored = sum(1 for _ in ResultsScan(folder / "results"))
    # killed while appending: its files are longer than the state says; cut back, nothing read twice
    for f in sorted(state.glob("faults-*.jsonl"))[:1] + sorted(state.glob("tempo-*.bin"))[:1]:
        with open(f, "ab") as out:
            out.write(b'{"team": "red", "torn')
    same(reads=0)
    grow(folder, 1)
    want = {t: whole(folder, t) for t in ("red", "blue", None)}
    same(reads=3)
    # a file shorter than the state says, a state that is not JSON, a state of another format or code: the
    # whole store is read again
    stored += 3
    rows = max(state.glob("tempo-*.bin"), key=lambda p: p.stat().st_size)
    rows.write_bytes(rows.read_bytes()[:-5])
    same(reads=stored)
    doc = json.loads((state / "index.json").read_text())
    for bad in ("{not json", json.dumps({**doc, "format": 99}), json.dumps({**doc, "code": "other"}),
                json.dumps({**doc, "read": {"x": [3, 1]}}), json.dumps({**doc, "teams": {"red": "x"}})):
        (state / "index.json").write_text(bad)
        same(reads=stored)
    # a store cut and written again where the state stopped: read whole
    data = (folder / RESULTS).read_bytes()
    last = data.rstrip(b"\n").rsplit(b"\n", 1)[1]
    changed = json.loads(last)
    changed["run"]["reproduce"] = changed["run"]["reproduce"][:1]
    (folder / RESULTS).write_bytes(data[: len(data) - len(last) - 1] + json.dumps(changed).encode() + b"\n")
    want = {t: whole(folder, t) for t in ("red", "blue", None)}
    same(reads=stored)
    # no store: nothing to show
    (folder / RESULTS).unlink()
    index = FaultIndex(folder / "results")
    assert answers(index, "red") == ([], []) and index.block_line(None, "x", 0) is None


def test_runs_hold_what_a_set_holds() -> None:
    import random

    rng = random.Random(5)
    runs, plain = Runs(), set()
    for _ in range(3000):
        key = (rng.choice("ab"), rng.randrange(400))
        assert runs.add(*key) == (key not in plain)
        plain.add(key)
        assert key in runs
    assert all(((u, n) in runs) == ((u, n) in plain) for u in "abc" for n in range(-2, 403))
    assert {u: runs.blocks(u) for u in "ab"} == {u: {n for x, n in plain if x == u} for u in "ab"}
    assert Runs(runs.bounds).bounds == runs.bounds
    ordered = Runs()
    for n in range(10_000):  # a ladder stores a unit's blocks in order: two numbers, however many
        ordered.add("p", n)
    assert ordered.bounds == {"p": [0, 10_000]} and ("p", 9_999) in ordered and ("p", 10_000) not in ordered
    for bad in ({"p": [3, 1]}, {"p": [1]}, {"p": ["a", "b"]}):
        with pytest.raises((ValueError, TypeError)):
            Runs(bad)  # type: ignore[arg-type]


def test_games_without_run_timings_count_with_no_rows(folder: Path) -> None:
    """Lines whose run part has no timings (a store written by another runner, the bench's synthesised ones):
    each seat's games count, its figures are those of no decision."""
    path = folder / RESULTS
    raws = [json.loads(r) for r in path.read_bytes().splitlines() if r.strip()]
    for r in raws:
        r["run"]["games"] = []
    path.write_text("".join(json.dumps(r) + "\n" for r in raws))
    shutil.rmtree(folder / STATE_DIR)
    index = FaultIndex(folder / "results")
    for team in ("red", "blue", None):
        assert answers(index, team) == whole(folder, team)
    assert all(s.decisions == 0 and s.games for s in index.tempo(None))


def test_the_team_page_and_its_api_read_no_stored_line(folder: Path, parses: list[int]) -> None:
    """Through the server itself, restarted on the folder the ladder left: the team page's faults and tempo
    table and GET /api/faults and /api/tempo parse nothing of the store (before: the whole store, each
    view after it changed)."""
    import httpx

    from arena.serve.serve import open_service

    from .conftest import start
    from .test_api import login as form_login
    from .conftest import Live

    faults, tempo = whole(folder, "red")
    parses[0] = 0
    svc = open_service(folder)
    url, server = start(svc, worker=False)
    try:
        bearer = {"Authorization": f"Bearer {KEYS['red']}"}
        assert httpx.get(f"{url}/api/faults", headers=bearer).json() == [f.model_dump() for f in faults]
        assert httpx.get(f"{url}/api/tempo", headers=bearer).json() == [t.model_dump(mode="json") for t in tempo]
        page = form_login(Live(None, url, KEYS), "red").get("/team").text  # type: ignore[arg-type]
        assert page.count("<tr><td>red</td>") == len(tempo) == 4 and faults[0].message in page
        assert parses[0] == 0
    finally:
        server.should_exit = True  # type: ignore[attr-defined]
