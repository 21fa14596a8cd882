"""The site in a real browser: headless Chromium (Debian's package) over the DevTools protocol.

Screenshots of every page kind are kept in test-artifacts/site/ (ignored by
git). Skipped, with the reason shown, where no Chromium is installed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.engine import Game
from arena.match.show import saved_game
from arena.engine.cards import card_str
from arena.engine.record import load_record, recorded_decisions, recorded_source
from arena.results import read_results

from tests.cli import arena

from .browser import Browser
from .conftest import EXE

REPO = Path(__file__).resolve().parents[3]
ARTIFACTS = REPO / "test-artifacts" / "site"
pytestmark = pytest.mark.skipif(EXE is None, reason="no Chromium: install it with `apt-get install chromium` "
                                                   "(.ci/run does) to run the browser tests")

MAIN = "document.querySelector('#replay .panel')"


def longest_game(competition: Path) -> dict[str, Any]:
    """The finished game with the most deals (a whole game to step through)."""
    games = [g for ln in [ln.to_dict() for ln in read_results(competition).lines] for g in ln["games"] if g["forfeit_by"] is None]
    return max(games, key=lambda g: (len(g["record"]["deals"]), g["id"]))


def open_game(browser: Browser, site: Path, gid: str) -> None:
    browser.open(site / "games" / f"{gid}.html")
    browser.wait_for("window.cinchViewer && window.cinchViewer.ready && cinchViewer.viewers.length > 0")


def test_leaderboard_loads_cleanly_and_every_link_resolves(browser: Browser, site: Path) -> None:
    browser.events.clear()
    browser.open(site / "index.html")
    assert browser.js("document.querySelectorAll('#ratings tbody tr').length") == 3
    assert browser.js("document.querySelectorAll('#ratings svg[role=img][aria-label]').length") >= 4
    browser.screenshot(ARTIFACTS / "leaderboard.png")
    pages = {"index.html"}
    todo = ["index.html"]
    while todo:  # follow links breadth-first over one page of each kind
        rel = todo.pop()
        browser.open(site / rel)
        hrefs = browser.js("[...document.querySelectorAll('a[href]')].map(a => a.href)")
        for h in hrefs:
            assert h.startswith("file://"), h
            target = Path(h.removeprefix("file://").split("#")[0])
            assert target.is_file(), f"{rel} links to {target}"
            kind = target.parent.name
            key = target.relative_to(site).as_posix()
            if key not in pages and kind not in {p.split("/")[0] for p in pages if "/" in p}:
                pages.add(key)
                todo.append(key)
    assert {p.split("/")[0] for p in pages} >= {"index.html", "viewer.html", "bots", "matchups", "games"}
    assert browser.problems() == []
    browser.open(site / "bots" / "crashy.html")
    browser.screenshot(ARTIFACTS / "bot.png")
    browser.open(site / "matchups" / "first--last.html")
    browser.screenshot(ARTIFACTS / "matchup.png")
    assert browser.problems() == []


def _scores(browser: Browser) -> list[int]:
    return [int(x) for x in browser.js(f"[...{MAIN}.querySelectorAll('td.score')].map(td => td.textContent)")]


def test_viewer_steps_a_whole_game_forward_and_back(browser: Browser, site: Path, competition: Path) -> None:
    g = longest_game(competition)
    rec = g["record"]
    browser.events.clear()
    open_game(browser, site, g["id"])
    assert browser.js(f"{MAIN}.querySelector('.warn')") is None  # the record agrees with the rules
    n = browser.js("cinchViewer.viewers[0].frames.length")
    assert n == expected_frames(rec)
    # by keyboard: three steps on, one back
    for _ in range(3):
        browser.key("ArrowRight")
    browser.key("ArrowLeft")
    assert browser.js(f"{MAIN}.dataset.frame") == "2"
    browser.key("Home")
    # by the forward button, through every step; each deal's scoring step shows the record's scores
    seen_after = browser.js(
        f"(() => {{ const r = {MAIN}, b = r.querySelector('button[aria-label^=\"forward\"]'), out = [];"
        f" for (let i = 0; i < {n - 1}; i++) {{ b.click();"
        " if (r.querySelector('.board caption').textContent === 'Scores after this deal')"
        " out.push([...r.querySelectorAll('td.score')].map(td => +td.textContent)); } return out; })()")
    assert seen_after == [d["scores_after"] for d in rec["deals"] if "scores_after" in d]
    assert browser.js(f"{MAIN}.dataset.frame") == str(n - 1)
    assert _scores(browser) == rec["scores"] == g["scores"]
    assert "Game over" in browser.js(f"{MAIN}.querySelector('.status').textContent")
    assert browser.js(f"{MAIN}.querySelector('button[aria-label^=\"forward\"]').disabled") is True
    back = browser.js(f"(() => {{ const r = {MAIN}, b = r.querySelector('button[aria-label^=\"back\"]'), seen = [];"
                      f" for (let i = 0; i < {n - 1}; i++) {{ b.click(); seen.push(+r.dataset.frame); }} return seen; }})()")
    assert back == list(range(n - 2, -1, -1))  # every step on the way back, in order
    assert browser.js(f"{MAIN}.dataset.frame") == "0" and _scores(browser) == [0, 0]
    assert browser.js(f"{MAIN}.querySelector('button[aria-label^=\"back\"]').disabled") is True
    browser.key("End")
    assert _scores(browser) == rec["scores"]
    browser.key("PageUp")
    assert browser.js(f"{MAIN}.dataset.events") == "0"
    browser.screenshot(ARTIFACTS / "game.png")
    assert browser.problems() == []


def expected_frames(record: dict[str, Any]) -> int:
    """A step per decision point (the engine's), one more at the end of each finished deal, one for the end."""
    return len(engine_views(record, 0)) + sum("scores_after" in d for d in record["deals"]) + 1


def engine_views(record: dict[str, Any], seat: int) -> dict[tuple[int, int], set[str]]:
    """What the engine's view names for ``seat`` at every decision point: (deal, events so far) -> cards."""
    rec = load_record(record)
    game = Game(rec.profile, source=recorded_source(rec), max_deals=rec.max_deals, fixed_deals=rec.fixed_deals)
    out: dict[tuple[int, int], set[str]] = {}

    def snap() -> None:
        if not game.over:
            out[(game.deal.index, len(game.deal.events))] = {card_str(c) for c in game.view(seat).cards_named()}

    snap()
    for _, action in recorded_decisions(rec):
        game.apply(action)
        snap()
    return out


def test_a_seat_sees_exactly_what_the_engine_lets_it_see(browser: Browser, site: Path, competition: Path) -> None:
    g = longest_game(competition)
    open_game(browser, site, g["id"])
    collect = (f"(() => {{ const v = cinchViewer.viewers[0], out = []; for (let i = 0; i < v.frames.length; i++) {{"
               f" v.go(i); const r = {MAIN}; out.push([+r.dataset.deal, +r.dataset.events,"
               " [...r.querySelectorAll('[data-card]')].map(x => x.dataset.card)]); } return out; })()")
    for seat in range(4):
        browser.key(str(seat))
        assert browser.js(f"{MAIN}.querySelector('input[value=\"{seat}\"]').checked") is True
        oracle = engine_views(g["record"], seat)
        shown = {(d, e): set(cards) for d, e, cards in browser.js(collect)}
        compared = [k for k in oracle if k in shown]
        assert len(compared) >= len(oracle) - 1  # every decision point has a step (a capped game's last may not)
        for k in compared:
            assert shown[k] == oracle[k], f"seat {seat}, deal {k[0]}, after {k[1]} events"
        if seat == 1:
            browser.screenshot(ARTIFACTS / "game-seat-view.png")
    # omniscient shows every card of the deck in the first frame
    browser.key("o")
    browser.js("cinchViewer.viewers[0].go(0)")
    assert len(set(browser.js(f"[...{MAIN}.querySelectorAll('[data-card]')].map(x => x.dataset.card)"))) == 36
    assert browser.problems() == []


def test_the_twin_opens_side_by_side(browser: Browser, site: Path, competition: Path) -> None:
    g = longest_game(competition)
    open_game(browser, site, g["id"])
    browser.key("t")
    browser.wait_for("cinchViewer.viewers.length === 2")
    assert browser.js("document.querySelectorAll('#replay .panel').length") == 2
    assert browser.js("!!document.querySelector('table.compare')")
    browser.key("PageDown")
    deals = browser.js("[...document.querySelectorAll('#replay .panel')].map(p => p.dataset.deal)")
    assert deals == ["1", "1"]  # the twin follows to the same deal
    browser.screenshot(ARTIFACTS / "game-twin.png")
    assert browser.problems() == []


def _open_file(browser: Browser, site: Path, path: Path) -> None:
    browser.open(site / "viewer.html")
    doc = browser.call("DOM.getDocument")
    node = browser.call("DOM.querySelector", nodeId=doc["root"]["nodeId"], selector="#record-file")
    browser.call("DOM.setFileInputFiles", nodeId=node["nodeId"], files=[str(path)])
    browser.wait_for("cinchViewer.viewers.length > 0")


def frames_file(tmp: Path, source: Path, *args: str) -> Path:
    """What ``arena site frames`` writes for ``source``."""
    out = tmp / f"{source.stem}.replay.json"
    ran = arena("site", "frames", source, "--out", out, *args)
    assert ran.code == 0, ran.err
    return out


def test_viewer_page_opens_a_users_results_file(browser: Browser, site: Path, competition: Path, tmp_path: Path) -> None:
    _open_file(browser, site, frames_file(tmp_path, competition / "results.jsonl"))
    lines = [ln.to_dict() for ln in read_results(competition).lines]
    assert browser.js("document.querySelectorAll('#record-pick option').length") == 2 * len(lines)
    browser.js("cinchViewer.viewers[0].go(cinchViewer.viewers[0].frames.length - 1)")
    first = lines[0]["games"][0]
    assert _scores(browser) == first["scores"]
    assert browser.js("!!document.querySelector('.twinctl button')")  # the file holds the twin too
    browser.screenshot(ARTIFACTS / "viewer.png")
    assert browser.problems() == []


def test_viewer_page_opens_a_saved_game_and_flags_a_doctored_record(browser: Browser, site: Path,
                                                                     competition: Path, tmp_path: Path) -> None:
    g = longest_game(competition)
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps(saved_game(g["record"], [s["bot"] for s in g["seats"]])))
    _open_file(browser, site, frames_file(tmp_path, saved))
    browser.key("End")
    assert _scores(browser) == g["record"]["scores"]
    assert browser.js(f"{MAIN}.querySelector('.warn')") is None
    doctored = json.loads(json.dumps(g["record"]))
    doctored["deals"][0]["points"] = [0, 14]  # not what the cards give
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doctored))
    _open_file(browser, site, frames_file(tmp_path, bad))
    assert "deal 0: the replayed deal differs from the record in points" in browser.js(
        f"{MAIN}.querySelector('.warn').textContent")
    # a raw record is not viewer data: the page says how to make it
    browser.open(site / "viewer.html")
    doc = browser.call("DOM.getDocument")
    node = browser.call("DOM.querySelector", nodeId=doc["root"]["nodeId"], selector="#record-file")
    browser.call("DOM.setFileInputFiles", nodeId=node["nodeId"], files=[str(bad)])
    browser.wait_for("!!document.querySelector('#replay .warn')")
    assert "arena site frames" in browser.js("document.querySelector('#replay .warn').textContent")
    assert browser.problems() == []


def test_a_forfeited_game_replays_up_to_the_fault(browser: Browser, site: Path, competition: Path) -> None:
    g = next(g for ln in [ln.to_dict() for ln in read_results(competition).lines] for g in ln["games"] if g["forfeit_by"] is not None)
    browser.events.clear()
    open_game(browser, site, g["id"])
    browser.key("End")
    status = browser.js(f"{MAIN}.querySelector('.status').textContent")
    assert "forfeited" in status and "crashy" in status
    assert _scores(browser) == g["scores"] and browser.js(f"{MAIN}.querySelector('.warn')") is None
    assert browser.js("document.querySelectorAll('section.fault').length") == len(g["faults"])
    assert browser.problems() == []
