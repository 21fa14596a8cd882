"""Leaderboards of tables of n seats: results of rotation blocks rated from their contests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.match import MatchSettings
from arena.publish.load import convert
from arena.publish.rate import PublishError, rate_results
from arena.ratings.data import TableBlock
from arena.results import parse_line
from arena.schedule import block_key, run_block
from arena.schedule.unit import BlockTask

from ..schedule.conftest import fake_entry, policy_factory

NAMES = ["ann", "bob", "cat", "dan", "eve"]
MODES = dict(zip(NAMES, ["random", "first", "random", "last", "random"]))


def table_lines(profile: str, blocks: int, seats: int | None = None) -> list[dict]:
    """``blocks`` rotation blocks of one table of in-process bots, as results lines."""
    settings = MatchSettings(profile=profile, format="deals", deals=3, sandbox="none")
    n = seats or settings.profile.players
    entries = [fake_entry(x) for x in NAMES[:n]]
    bots = {e.ident: e for e in entries}
    key = "table:" + "+".join(sorted(e.ident for e in entries))
    out = []
    for b in range(blocks):
        order = entries[b % n:] + entries[: b % n]
        task = BlockTask(key, b, block_key("pub", b), (), (), settings, "h", table=tuple(e.ident for e in order))
        out.append(json.loads(run_block(task, bots, make_player=policy_factory(MODES)).line.to_json()))
    return out


def _write(folder: Path, lines: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder / "results.jsonl"


@pytest.mark.parametrize("profile,contests", [("five-hand", "deal"), ("cutthroat-3", "finish")])
def test_a_table_leaderboard_rates_every_entrant(tmp_path: Path, profile: str, contests: str) -> None:
    lines = table_lines(profile, 4)
    conv = convert([parse_line(x) for x in lines])
    assert all(isinstance(b, TableBlock) for b in conv.blocks)
    n = len(lines[0]["table"])
    pub = rate_results(_write(tmp_path / "r", lines), tmp_path / "lb", bootstrap=40)
    doc = pub.doc.model_dump()
    assert doc["table"]["seats"] == n and doc["table"]["contests"] == contests
    assert sorted(b["bot"] for b in doc["bots"]) == sorted(NAMES[:n])
    assert all(b["games"] == 4 * n for b in doc["bots"]) and doc["games"] == 4 * n and doc["blocks"] == 4
    assert sum(b["wins"] + b["draws"] + b["losses"] for b in doc["bots"]) == 4 * n * n
    assert doc["luck"]["rotations"] == n and doc["luck"]["statistic"] == "standing"
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert f"at tables of {n}" in md and "finished ahead" in md and "1/(1+" in md
    assert ("Maker's side advantage" in md) == (contests == "deal")
    html = (tmp_path / "lb" / "leaderboard.html").read_text()
    assert 'id="table-note"' in html and "partnership" not in html.split('id="crosstable"')[1].split("</thead>")[0]
    cross = {(c["first"], c["second"]): c for c in doc["crosstable"]}
    assert len(cross) == n * (n - 1) // 2 and all(c["games"] == 4 * n for c in cross.values())


def test_pairs_and_tables_in_one_file_are_refused(tmp_path: Path) -> None:
    import random

    from .helpers import tournament

    lines = tournament(random.Random(1), {"alpha": 100.0, "bravo": 0.0}, blocks=2) + table_lines("cutthroat-3", 1)
    with pytest.raises(PublishError, match="mix"):
        rate_results(_write(tmp_path / "m", lines), tmp_path / "lb", bootstrap=10)


def test_live_standings_at_a_table_the_provisional_site_and_the_terminal_table(tmp_path: Path) -> None:
    """While a table's tournament runs: the provisional site page and the live table both rate the blocks
    played so far (no bootstrap: the interval column says so)."""
    from arena.publish.live import live_table
    from arena.publish.site import write_provisional

    lines = table_lines("five-hand", 2)
    res = _write(tmp_path / "r", lines)
    m = write_provisional(res, tmp_path / "site", done=2, total=8)
    html = (tmp_path / "site" / "index.html").read_text()
    assert "Provisional" in html and "2 of 8 blocks" in html and "tables of 5" in html
    assert len(m.doc.bots) == 5 and m.doc.table is not None and m.doc.table.seats == 5
    text = live_table([parse_line(x) for x in lines], entrants=[*NAMES, "late"])
    assert all(n in text for n in NAMES) and "at the end" in text and "no games yet: late" in text


@pytest.mark.parametrize("profile", ["five-hand", "cutthroat-3", None])
def test_kept_rating_inputs_read_back_as_converted(profile: str | None) -> None:
    """``load.Inputs`` (what a site's state keeps of each line) reads back the blocks it wrote, tables of n
    seats (their contests, a called partner's deal sides) and two pairs alike; it reuses them only for the
    same lines, key and bot ids, and refuses what it did not write."""
    from arena.publish.load import Inputs, bot_ids, line_block

    from .helpers import block, typed

    if profile is None:
        lines = typed([block(("x", "x"), ("y", "z"), 0, 1, None, end="cap", scores=(50, 50)),
                       block(("y", "z"), ("x", "x"), 1, 0, 1, end="deals", scores=(30, 41), fixed_deals=8),
                       block(("x", "z"), ("y", "y"), 3, 0, 0, forfeit_by=1),
                       block(("x", "x"), ("z", "z"), 2, 1, 0)])
    else:
        lines = [parse_line(x) for x in table_lines(profile, 3)]
    ids = bot_ids(lines)
    digests = [f"d{i}" for i in range(len(lines))]
    made = Inputs()
    made.update("k", lines[:2], digests[:2], ids)
    back = Inputs.from_bytes(made.to_bytes())
    assert back.bots("k", lines, digests) == ids and back.bots("k", lines[:1], digests[:1]) is None
    assert back.update("k", lines, digests, ids) == [line_block(ln, ids) for ln in lines]  # in file order
    assert back.reused == 2 and Inputs.from_bytes(back.to_bytes()).blocks == back.blocks
    assert [type(b) for b in Inputs.from_bytes(back.to_bytes()).blocks] == [type(b) for b in back.blocks]
    for key, dg, named in [("k", ["other", *digests[1:]], ids), ("another key", digests, ids), ("k", digests[:1], ids),
                           ("k", digests, {**ids, next(iter(ids)): ids[next(iter(ids))].__class__("renamed", "a", "b")})]:
        again = Inputs.from_bytes(made.to_bytes())
        if named is ids:
            assert again.bots(key, lines[:len(dg)], dg) is None, (key, dg)
        again.update(key, lines[:len(dg)], dg, named)
        assert again.reused == 0, (key, dg)
    for bad in (b"", b"{}", made.to_bytes()[:-9], b'{"key":"k","ids":[],"digests":["a"],"games":[],"blocks":[]}'):
        with pytest.raises((ValueError, KeyError, TypeError, IndexError)):
            Inputs.from_bytes(bad)
