"""The site of a tournament at tables of five (five-hand), in headless Chromium: the seat layout for n,
each seat's view and what it knows of a called partner, and the rotated twins side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.engine import Game
from arena.engine.record import load_record, recorded_decisions, recorded_source
from arena.publish.site import build_site
from arena.results import read_results

from .browser import Browser
from .conftest import EXE, bot_folder, play
from .test_browser import ARTIFACTS, MAIN, _scores, engine_views, open_game

pytestmark = pytest.mark.skipif(EXE is None, reason="no Chromium: install it with `apt-get install chromium` "
                                                   "(.ci/run does) to run the browser tests")
SIDE_TEXT = {0: "maker's side", 1: "the others", None: "not known"}


@pytest.fixture(scope="module")
def five(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One five-hand block by rotation of five test bots (five games), and its site."""
    root = tmp_path_factory.mktemp("five")
    bots = [bot_folder(root, f"b{i}", {"PICK": "first" if i % 2 else "last"}) for i in range(5)]
    play(root, bots, out=root / "out", name="five", seed="five-seed",
         match={"sandbox": "none", "format": "game", "max_deals": 5, "profile": "five-hand"})
    build_site([root / "out"], root / "site", bootstrap=50)
    return root / "out", root / "site"


def _sides_oracle(record: dict[str, Any], seat: int) -> dict[tuple[int, int], list[Any]]:
    """What the engine's view of ``seat`` says of the sides at every decision point (after the call)."""
    rec = load_record(record)
    game = Game(rec.profile, source=recorded_source(rec), max_deals=rec.max_deals, fixed_deals=rec.fixed_deals)
    out: dict[tuple[int, int], list[Any]] = {}

    def snap() -> None:
        if not game.over:
            out[(game.deal.index, len(game.deal.events))] = list(game.view(seat).to_dict().get("sides") or [None] * 5)

    snap()
    for _, action in recorded_decisions(rec):
        game.apply(action)
        snap()
    return out


def test_a_table_site_loads_and_every_link_resolves(browser: Browser, five: tuple[Path, Path]) -> None:
    _, site = five
    browser.events.clear()
    browser.open(site / "index.html")
    assert browser.js("document.querySelectorAll('#ratings tbody tr').length") == 5
    assert "tables of 5" in browser.js("document.body.textContent")
    browser.screenshot(ARTIFACTS / "tables-leaderboard.png")
    for rel in ("index.html", "bots/b0.html", "matchups/b0--b1.html"):
        browser.open(site / rel)
        for h in browser.js("[...document.querySelectorAll('a[href]')].map(a => a.href)"):
            target = Path(h.removeprefix("file://").split("#")[0])
            assert target.is_file(), f"{rel} links to {target}"
    assert browser.problems() == []


def test_five_seats_each_see_what_the_engine_lets_them(browser: Browser, five: tuple[Path, Path]) -> None:
    out, site = five
    lines = [ln.to_dict() for ln in read_results(out).lines]
    g = max((g for g in lines[0]["games"]), key=lambda x: (len(x["record"]["deals"]), x["id"]))
    browser.events.clear()
    open_game(browser, site, g["id"])
    assert browser.js(f"{MAIN}.querySelectorAll('table.hands tbody tr').length") == 5
    assert browser.js(f"{MAIN}.querySelectorAll('table.scores td.score').length") == 5
    browser.key("End")
    assert _scores(browser) == g["scores"]
    collect = (f"(() => {{ const v = cinchViewer.viewers[0], out = []; for (let i = 0; i < v.frames.length; i++) {{"
               f" v.go(i); const r = {MAIN}; out.push([+r.dataset.deal, +r.dataset.events,"
               " [...r.querySelectorAll('[data-card]')].map(x => x.dataset.card),"
               " [...r.querySelectorAll('td.side')].map(x => x.textContent)]); } return out; })()")
    for seat in range(5):
        browser.key(str(seat))
        cards = engine_views(g["record"], seat)
        sides = _sides_oracle(g["record"], seat)
        shown = {(d, e): (set(c), s) for d, e, c, s in browser.js(collect)}
        compared = [k for k in cards if k in shown]
        assert len(compared) >= len(cards) - 1
        for k in compared:
            assert shown[k][0] == cards[k], f"seat {seat}, deal {k[0]}, after {k[1]} events"
            assert shown[k][1] == [SIDE_TEXT[x] for x in sides[k]], f"sides as seat {seat} knows them, at {k}"
    browser.screenshot(ARTIFACTS / "tables-game-seat-view.png")
    assert browser.problems() == []


def test_the_rotations_open_side_by_side(browser: Browser, five: tuple[Path, Path]) -> None:
    out, site = five
    g = [ln.to_dict() for ln in read_results(out).lines][0]["games"][0]
    open_game(browser, site, g["id"])
    browser.key("t")
    browser.wait_for("cinchViewer.viewers.length === 5")
    assert browser.js("document.querySelectorAll('#replay .panel').length") == 5
    assert browser.js("document.querySelectorAll('table.compare thead th').length") == 1 + 5 + 1
    browser.key("PageDown")
    assert set(browser.js("[...document.querySelectorAll('#replay .panel')].map(p => p.dataset.deal)")) == {"1"}
    kitties = browser.js("cinchViewer.viewers.map(v => v.frames[0].all.kitty.join(' '))")
    assert len(set(kitties)) == 1 and kitties[0]  # the same deal in every rotation: the same two cards aside
    browser.screenshot(ARTIFACTS / "tables-rotations.png")
    assert browser.problems() == []
