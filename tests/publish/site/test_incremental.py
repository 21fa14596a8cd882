"""An incremental rebuild (the folder's state, ``ledger``) gives the files a build from scratch gives.

The results grow as a ladder grows them: lines appended run by run, a new
bot, a new version, a retired version, a half-written last line; between
builds the state is also cut short, rewritten results are detected, and a
build killed while saving its state leaves a folder the next build finishes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena.publish.site import build_site
from arena.publish.site import ledger

from tests.cli import arena

from .conftest import bot_folder, play

FAST = {"sandbox": "none", "format": "deals", "deals": 2}
STATE = ledger.STATE


def pages(root: Path) -> dict[str, bytes]:
    """Every file of a site but its state."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and STATE not in p.relative_to(root).parts}


def scratch(results: Path, tmp: Path, **kw: object) -> dict[str, bytes]:
    out = tmp / "scratch"
    shutil.rmtree(out, ignore_errors=True)
    build_site([results], out, **kw)  # type: ignore[arg-type]
    return pages(out)


@pytest.fixture(scope="module")
def grown(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ladder folder of three runs: alpha and bravo; charlie joins; alpha's second version."""
    root = tmp_path_factory.mktemp("grown")
    a = bot_folder(root, "alpha", {"PICK": "first"})
    b = bot_folder(root, "bravo", {"PICK": "last"})
    c = bot_folder(root, "charlie", {"PICK": "first", "MODE": "illegal", "AT": "9", "NOISY": "1"})
    out = root / "ladder"
    play(root, [a, b], out=out, blocks=2, match=FAST)
    play(root, [a, b, c], out=out, extend=True, blocks=2, match=FAST)
    (a / "bot.py").write_text((a / "bot.py").read_text() + "\n# version 2\n")
    ran = arena("run", root / "config.yaml", "--skip-check", "--no-rate", "--new-version")
    assert ran.code == 0, ran.err
    return out


def _copy_prefix(src: Path, dest: Path, lines: int, runs: int, torn: bytes = b"") -> None:
    """``dest`` as ``src`` was after its first ``lines`` results lines and ``runs`` runs."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(src / "tournament.json", dest / "tournament.json")
    body = (src / "results.jsonl").read_bytes().splitlines(keepends=True)
    (dest / "results.jsonl").write_bytes(b"".join(body[:lines]) + torn)
    if (src / "runs.jsonl").exists():
        rows = (src / "runs.jsonl").read_bytes().splitlines(keepends=True)
        (dest / "runs.jsonl").write_bytes(b"".join(rows[:runs]))


def test_growing_results_rebuilt_in_place_give_the_files_of_a_build_from_scratch(grown: Path, tmp_path: Path) -> None:
    rows = [json.loads(x) for x in (grown / "runs.jsonl").read_text().splitlines()]
    total = len((grown / "results.jsonl").read_text().splitlines())
    assert [r["lines"] for r in rows][-1] == total and len(rows) == 3
    live, site = tmp_path / "live" / "ladder", tmp_path / "site"
    steps = [(1, 0, b""), (rows[0]["lines"], 1, b'{"schema": 1, "pair'), (rows[0]["lines"] + 1, 1, b""),
             (rows[1]["lines"], 2, b""), (total, 3, b"")]
    for lines, runs, torn in steps:
        _copy_prefix(grown, live, lines, runs, torn)
        b = build_site([live], site, bootstrap=30, history_bootstrap=10)
        assert pages(site) == scratch(live, tmp_path, bootstrap=30, history_bootstrap=10), (lines, runs)
        assert b.model.comp.game_count == 2 * lines
    again = build_site([live], site, bootstrap=30, history_bootstrap=10)
    assert again.written == 0  # nothing new: nothing written


def test_a_retired_version_and_other_options_rebuild_what_they_change(grown: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site([grown], site, bootstrap=20, history_bootstrap=0)
    old = next(json.loads(x) for x in (grown / "results.jsonl").read_text().splitlines())
    alpha1 = next(s for s in old["side_a"] + old["side_b"] if s["bot"] == "alpha")
    retire = [f"alpha@{alpha1['digest'][:12]}"]
    build_site([grown], site, bootstrap=20, history_bootstrap=0, retire=retire)
    assert pages(site) == scratch(grown, tmp_path, bootstrap=20, history_bootstrap=0, retire=retire)
    build_site([grown], site, bootstrap=0, history_bootstrap=0, private=True)
    assert pages(site) == scratch(grown, tmp_path, bootstrap=0, history_bootstrap=0, private=True)


def test_rewritten_results_or_a_damaged_state_build_from_scratch(grown: Path, tmp_path: Path) -> None:
    live, site = tmp_path / "live" / "ladder", tmp_path / "site"
    _copy_prefix(grown, live, 4, 1)
    build_site([live], site, bootstrap=0)
    # the file is replaced by another whose first lines differ (not an append): nothing read before is trusted
    lines = (grown / "results.jsonl").read_bytes().splitlines(keepends=True)
    (live / "results.jsonl").write_bytes(b"".join([lines[1], lines[0], *lines[2:]]))
    shutil.copy(grown / "runs.jsonl", live / "runs.jsonl")
    build_site([live], site, bootstrap=0)
    assert pages(site) == scratch(live, tmp_path, bootstrap=0)
    for damage in ("ledger.jsonl", "cache.json"):
        p = site / STATE / damage
        p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2])
        build_site([live], site, bootstrap=0)
        assert pages(site) == scratch(live, tmp_path, bootstrap=0), damage


def test_a_build_killed_while_saving_its_state_is_finished_by_the_next(grown: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    live, site = tmp_path / "live" / "ladder", tmp_path / "site"
    _copy_prefix(grown, live, 4, 1)
    build_site([live], site, bootstrap=0)
    _copy_prefix(grown, live, 8, 2)
    real = ledger.os.replace

    def killed(a: object, b: object) -> None:
        if str(b).endswith("cache.json"):  # the ledger and time files are appended, the commit point never comes
            raise KeyboardInterrupt
        real(a, b)  # type: ignore[arg-type]

    monkeypatch.setattr(ledger.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        build_site([live], site, bootstrap=0)
    monkeypatch.setattr(ledger.os, "replace", real)
    build_site([live], site, bootstrap=0)
    assert pages(site) == scratch(live, tmp_path, bootstrap=0)


def test_replays_made_on_demand_give_the_files_of_a_build_that_wrote_them(grown: Path, tmp_path: Path) -> None:
    """The server's site (``replays=False``, its state outside the folder) grown run by run as the ladder grows
    it, every game's replay asked for after each build (``replay_on_demand``): the files of a build from
    scratch that wrote every replay, each time; so a replay whose bot was renamed by a new version (run 3)
    is made again, never served stale. An id the site does not have, or not an id, is None."""
    from arena.publish.site import replay_on_demand

    rows = [json.loads(x) for x in (grown / "runs.jsonl").read_text().splitlines()]
    live, site, state = tmp_path / "live" / "ladder", tmp_path / "site", tmp_path / "site-state"
    for lines, runs in [(1, 0), (rows[0]["lines"], 1), (rows[1]["lines"], 2), (rows[2]["lines"], 3)]:
        _copy_prefix(grown, live, lines, runs)
        b = build_site([live], site, bootstrap=30, history_bootstrap=10, state=state, replays=False)
        ref = scratch(live, tmp_path, bootstrap=30, history_bootstrap=10)
        built = pages(site)
        assert {k: v for k, v in built.items() if not k.startswith("replays/")} == \
            {k: v for k, v in ref.items() if not k.startswith("replays/")}, (lines, runs)
        assert all(ref[k] == v for k, v in built.items() if k.startswith("replays/")), (lines, runs)  # none stale
        for gid in b.model.comp.where:
            assert replay_on_demand(site, state, gid) == site / "replays" / f"{gid}.js"
        assert pages(site) == ref, (lines, runs)
    assert replay_on_demand(site, state, "00000000ff") is None
    assert replay_on_demand(site, state, "../index") is None


def test_a_site_built_with_replays_on_demand_then_with_replays_writes_them_all(grown: Path, tmp_path: Path) -> None:
    """The replay mode is part of what a state was made with: switching builds whole, so no replay is missing."""
    site, state = tmp_path / "site", tmp_path / "state"
    build_site([grown], site, bootstrap=0, history_bootstrap=0, state=state, replays=False)
    assert not (site / "replays").exists() or not any((site / "replays").iterdir())
    build_site([grown], site, bootstrap=0, history_bootstrap=0, state=state)
    assert pages(site) == scratch(grown, tmp_path, bootstrap=0, history_bootstrap=0)


def test_the_ratings_memo_is_kept_and_a_damaged_one_is_summed_again(grown: Path, tmp_path: Path) -> None:
    """The bootstrap's sums (``ratings.memo``) are kept in the state; a rebuild reusing them, or one whose memo
    was cut short or is missing, gives the files of a build from scratch."""
    live, site = tmp_path / "live" / "ladder", tmp_path / "site"
    rows = [json.loads(x) for x in (grown / "runs.jsonl").read_text().splitlines()]
    _copy_prefix(grown, live, rows[1]["lines"] - 2, 2)
    build_site([live], site, bootstrap=30, history_bootstrap=0)
    memo = site / STATE / ledger.MEMO
    assert memo.stat().st_size > 1000  # per matchup and pairing, 30 resamples' sums
    for damage in ("cut", "gone", None):
        if damage == "cut":
            memo.write_bytes(memo.read_bytes()[:-7])
        elif damage == "gone":
            memo.unlink()
        _copy_prefix(grown, live, rows[1]["lines"] - (1 if damage else 0), 2)
        build_site([live], site, bootstrap=30, history_bootstrap=0)
        assert pages(site) == scratch(live, tmp_path, bootstrap=30, history_bootstrap=0), damage


def test_a_rebuild_converts_only_the_new_lines_and_takes_the_last_fit_for_the_history(
        grown: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's site (its state outside the folder, no interval on the history) grown run by run: each
    rebuild converts only the lines appended since (``rating-inputs.json``) and takes the previous build's fit
    for the run it ended (the fits of the ratings do not depend on the resamples), unless a new version renames
    a bot (every line is converted again); the files are those of a build from scratch each time."""
    from arena.publish import load
    from arena.publish.site import model

    converted: list[int] = []
    fits: list[int] = []
    real_block, real_rate = load.line_block, model.rate_loaded

    def counting_block(*a: object, **kw: object) -> object:
        converted[-1] += 1
        return real_block(*a, **kw)  # type: ignore[arg-type]

    def counting_rate(*a: object, **kw: object) -> object:
        fits[-1] += 1
        return real_rate(*a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(load, "line_block", counting_block)
    monkeypatch.setattr(model, "rate_loaded", counting_rate)
    rows = [json.loads(x) for x in (grown / "runs.jsonl").read_text().splitlines()]
    live, site, state = tmp_path / "live" / "ladder", tmp_path / "site", tmp_path / "state"
    ends = [rows[0]["lines"], rows[1]["lines"], rows[2]["lines"]]
    for lines, runs in [(ends[0], 1), (ends[1], 2), (ends[2], 3)]:
        converted.append(0)
        fits.append(0)
        _copy_prefix(grown, live, lines, runs)
        build_site([live], site, bootstrap=30, history_bootstrap=0, state=state, replays=False)
        monkeypatch.setattr(load, "line_block", real_block)
        monkeypatch.setattr(model, "rate_loaded", real_rate)
        assert pages(site) == scratch(live, tmp_path, bootstrap=30, history_bootstrap=0, state=tmp_path / "st2",
                                      replays=False), lines
        monkeypatch.setattr(load, "line_block", counting_block)
        monkeypatch.setattr(model, "rate_loaded", counting_rate)
    # run 2 converted its own lines and fitted once (run 1's rows were the first build's); run 3 brought alpha's
    # second version, which renames the first (alpha@digest): every line converted again, still one fit
    assert converted == [ends[0], ends[1] - ends[0], ends[2]] and fits == [1, 1, 1]
    # the history's fit is taken only with the same resamples or none: another number of them fits again
    shutil.rmtree(state)
    fits.append(0)
    build_site([live], site, bootstrap=30, history_bootstrap=10, state=state, replays=False)
    assert fits[-1] == 3  # the leaderboard, runs 1 and 2


def test_damaged_or_foreign_rating_inputs_are_made_again(grown: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept rating inputs are checked against the lines before they are used: cut short, another store's, or
    left behind by a build killed while writing them, the next build gives the files of a build from scratch."""
    from arena.publish.site import build

    rows = [json.loads(x) for x in (grown / "runs.jsonl").read_text().splitlines()]
    live, site = tmp_path / "live" / "ladder", tmp_path / "site"
    kept = site / STATE / build.INPUTS
    body = (grown / "results.jsonl").read_bytes().splitlines(keepends=True)
    other = tmp_path / "other" / "ladder"
    other.mkdir(parents=True)
    shutil.copy(grown / "tournament.json", other / "tournament.json")
    (other / "results.jsonl").write_bytes(b"".join(body[rows[0]["lines"]:rows[0]["lines"] + 3]))
    build_site([other], tmp_path / "other-site", bootstrap=10, history_bootstrap=0)
    foreign = (tmp_path / "other-site" / STATE / build.INPUTS).read_bytes()  # the same key, other lines
    _copy_prefix(grown, live, rows[1]["lines"] - 3, 2)
    build_site([live], site, bootstrap=10, history_bootstrap=0)
    for n, damage in enumerate(("cut", "foreign", "killed")):
        if damage == "cut":
            kept.write_bytes(kept.read_bytes()[:-40])
        elif damage == "foreign":
            kept.write_bytes(foreign)
        else:
            real = build.os.replace

            def killed(a: object, b: object) -> None:
                if str(b).endswith(build.INPUTS):
                    raise KeyboardInterrupt  # the ledger's state is saved, the inputs are not
                real(a, b)  # type: ignore[arg-type]

            monkeypatch.setattr(build.os, "replace", killed)
            _copy_prefix(grown, live, rows[1]["lines"], 2)
            with pytest.raises(KeyboardInterrupt):
                build_site([live], site, bootstrap=10, history_bootstrap=0)
            monkeypatch.setattr(build.os, "replace", real)
            (site / STATE / (build.INPUTS + ".tmp")).write_bytes(b"half a fi")
        _copy_prefix(grown, live, rows[1]["lines"] - 2 + n, 2 if n < 2 else 3)
        build_site([live], site, bootstrap=10, history_bootstrap=0)
        assert pages(site) == scratch(live, tmp_path, bootstrap=10, history_bootstrap=0), damage


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A five-hand ladder folder of three runs (a table by rotation a block, five games a line): five bots, one
    of them faulting; another block; b0's second version."""
    root = tmp_path_factory.mktemp("tables")
    bots = [bot_folder(root, f"b{i}", {"PICK": "first" if i % 2 else "last"}) for i in range(4)]
    bots.append(bot_folder(root, "b4", {"PICK": "first", "MODE": "illegal", "AT": "12"}))
    match = {"sandbox": "none", "format": "game", "max_deals": 4, "profile": "five-hand"}
    out = root / "ladder"
    play(root, bots, out=out, name="five", seed="five-seed", match=match)
    play(root, bots, out=out, extend=True, name="five", seed="five-seed", blocks=2, match=match)
    (bots[0] / "bot.py").write_text((bots[0] / "bot.py").read_text() + "\n# version 2\n")
    ran = arena("run", root / "config.yaml", "--skip-check", "--no-rate", "--new-version")
    assert ran.code == 0, ran.err
    return out


@pytest.mark.slow  # three runs of five bots at tables: about 4 s of CPU
def test_a_table_ladder_grown_with_a_fault_and_a_retired_version_gives_the_files_of_a_build_from_scratch(
        tables: Path, tmp_path: Path) -> None:
    """The server's site (replays on demand, its state outside the folder) of a ladder at tables of five, grown
    run by run: a bot's faults, a new version that renames the first (b0@digest), then that first version
    retired as a server retires it (``retire_played``): each rebuild gives the files of a build from scratch."""
    rows = [json.loads(x) for x in (tables / "runs.jsonl").read_text().splitlines()]
    lines = [json.loads(x) for x in (tables / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and all(ln.get("table") for ln in lines)
    assert any(f for ln in lines for g in ln["games"] for f in g["faults"])  # b4's illegal moves
    first = next(s["digest"] for s in lines[0]["table"] if s["bot"] == "b0")
    live, site, state = tmp_path / "live" / "ladder", tmp_path / "site", tmp_path / "state"
    steps = [(rows[0]["lines"], 1, ()), (rows[1]["lines"], 2, ()), (rows[2]["lines"], 3, ()),
             (rows[2]["lines"], 3, (("b0", first),))]
    before: dict[str, bytes] = {}
    for n, runs, retired in steps:
        _copy_prefix(tables, live, n, runs)
        b = build_site([live], site, bootstrap=20, history_bootstrap=0, state=state, replays=False,
                       retire_played=retired)
        ref = scratch(live, tmp_path, bootstrap=20, history_bootstrap=0, state=tmp_path / "st2", replays=False,
                      retire_played=retired)
        assert pages(site) == ref != before, (n, runs, retired)  # each step changes the site
        assert b.model.comp.game_count == 5 * n
        before = ref
    assert [r.name for r in b.model.doc.retired] == ["b0"]
