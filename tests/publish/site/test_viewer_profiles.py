"""The replay viewer under every registered rule profile, in headless Chromium.

For each profile a seeded engine game showing the profile's mechanisms
(void deals, face-up discards, extra trumps shown, the free rob and the
trumps it leaves, points out of play, forced dealer bids) is opened as a
saved game in viewer.html: the viewer must find nothing to flag, show the
record's scores after every deal and at the end, and show each seat exactly
the cards the engine's view names at every decision point. The default
suite opens one game of each of ``VIEWER_QUICK``, quick profiles that
together show every mechanism and table size the quick profiles show (a
browser test takes seconds); ``-m slow`` opens one of every profile, and
four longer ones of each. Records that break the rules are flagged by the
engine's replay (``test_frames.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.engine.profile import get_profile
from arena.match.show import saved_game
from arena.match.stored import games_of
from arena.publish.site.frames import replay_file

from .browser import Browser
from .conftest import EXE
from .profile_games import showcase, showcased
from .test_browser import ARTIFACTS, MAIN, _open_file, _scores, engine_views, expected_frames
from arena.engine import profile_names

from ...profiles import QUICK_PROFILES, quick_first

pytestmark = pytest.mark.skipif(EXE is None, reason="no Chromium: install it with `apt-get install chromium` "
                                                   "(.ci/run does) to run the browser tests")
NAMES = ["north", "east", "south", "west", "fifth", "sixth"]
SLOW_GAMES = 4
#: The default suite's profiles here: pagat62 (the default rules) and quick profiles that between them show
#: every mechanism and every table size of QUICK_PROFILES (test_the_default_profiles_show_every_quick_mechanism).
VIEWER_QUICK = frozenset({"pagat62", "bicycle", "eighty-three-joker", "five-hand", "cutthroat-3", "monterey-widow",
                          "oregon", "louisiana-dark"})


def _open_record(browser: Browser, site: Path, tmp: Path, record: dict[str, Any]) -> None:
    """The record as a saved game, turned into the viewer's data as ``arena site frames`` does, opened."""
    path = tmp / f"{record['profile']['name']}-{record['key']}.replay.json"
    path.write_text(json.dumps(replay_file(games_of(saved_game(record, NAMES[:record["profile"].get("players", 4)])))))
    _open_file(browser, site, path)


def check_replay(browser: Browser, site: Path, tmp: Path, record: dict[str, Any]) -> None:
    """The whole game forward by the button and back: nothing flagged, the record's scores at every deal's end."""
    _open_record(browser, site, tmp, record)
    warn = browser.js(f"(w => w && w.textContent)({MAIN}.querySelector('.warn'))")
    assert warn is None, warn
    prof = get_profile(record["profile"]["name"])
    rules = browser.js(f"{MAIN}.querySelector('.rules').textContent")
    assert rules.startswith(f"Rules: {prof.name}:") and f"game to {prof.target}" in rules
    assert f"{prof.deal_points} points a deal" in rules
    n = browser.js("cinchViewer.viewers[0].frames.length")
    assert n == expected_frames(record)
    seen_after = browser.js(
        f"(() => {{ const r = {MAIN}, b = r.querySelector('button[aria-label^=\"forward\"]'), out = [];"
        f" for (let i = 0; i < {n - 1}; i++) {{ b.click();"
        " if (r.querySelector('.board caption').textContent === 'Scores after this deal')"
        " out.push([...r.querySelectorAll('td.score')].map(td => +td.textContent)); } return out; })()")
    assert seen_after == [d["scores_after"] for d in record["deals"]]
    assert _scores(browser) == record["scores"]
    status = browser.js(f"{MAIN}.querySelector('.status').textContent")
    assert ("Game over" in status) == record["over"], status
    if any(d.get("redeal") for d in record["deals"]):
        assert "void (all passed)" in browser.js(f"{MAIN}.querySelector('table.deals').textContent")
    browser.key("Home")
    assert browser.js(f"{MAIN}.dataset.frame") == "0" and _scores(browser) == [0] * len(record["scores"])


def check_seat_views(browser: Browser, record: dict[str, Any]) -> None:
    """Each seat sees exactly the cards the engine's view names, at every decision point."""
    collect = (f"(() => {{ const v = cinchViewer.viewers[0], out = []; for (let i = 0; i < v.frames.length; i++) {{"
               f" v.go(i); const r = {MAIN}; out.push([+r.dataset.deal, +r.dataset.events,"
               " [...r.querySelectorAll('[data-card]')].map(x => x.dataset.card)]); } return out; })()")
    for seat in range(record["profile"].get("players", 4)):
        browser.key(str(seat))
        oracle = engine_views(record, seat)
        shown = {(d, e): set(cards) for d, e, cards in browser.js(collect)}
        missing = [k for k in oracle if k not in shown]
        assert len(missing) <= 1, missing  # every decision point has a step (a capped game's last may not)
        for k in oracle:
            if k in shown:
                assert shown[k] == oracle[k], (f"seat {seat}, deal {k[0]}, after {k[1]} events: "
                                               f"extra {sorted(shown[k] - oracle[k])}, missing {sorted(oracle[k] - shown[k])}")


def test_the_default_profiles_show_every_quick_mechanism() -> None:
    """What VIEWER_QUICK leaves to ``-m slow`` shows nothing the default suite does not open in the browser."""
    quick = sorted(QUICK_PROFILES & set(profile_names()))
    assert VIEWER_QUICK <= set(quick)
    assert set().union(*map(showcased, VIEWER_QUICK)) == set().union(*map(showcased, quick))
    assert {get_profile(p).players for p in VIEWER_QUICK} == {get_profile(p).players for p in quick}


@pytest.mark.parametrize("profile", quick_first(profile_names(), VIEWER_QUICK))
def test_viewer_replays_and_hides_under_every_profile(browser: Browser, site: Path, tmp_path: Path, profile: str) -> None:
    (record, mechs), = showcase(profile)
    assert showcased(profile) <= mechs  # the game shows what the profile adds (but the rare: profile_games.RARE)
    browser.events.clear()
    check_replay(browser, site, tmp_path, record)
    check_seat_views(browser, record)
    # a step in the middle of the play, where the face-up cards and any seat sitting out show
    browser.js("(v => { v.setSeat(null); v.go(Math.max(0, v.frames.findLastIndex(f => f.pub.phase === 'play'))); })"
               "(cinchViewer.viewers[0])")
    browser.screenshot(ARTIFACTS / f"viewer-{profile}.png")
    assert browser.problems() == []


@pytest.mark.slow
@pytest.mark.parametrize("profile", profile_names())
def test_viewer_under_every_profile_on_more_games(browser: Browser, site: Path, tmp_path: Path, profile: str) -> None:
    for record, _ in showcase(profile, SLOW_GAMES, max_deals=12):
        check_replay(browser, site, tmp_path, record)
        check_seat_views(browser, record)
    assert browser.problems() == []


def test_game_pages_of_a_competition_under_another_profile(browser: Browser, club: tuple[Path, Path]) -> None:
    from arena.results import read_results

    results, site = club
    games = [g for ln in [ln.to_dict() for ln in read_results(results).lines] for g in ln["games"]]
    browser.events.clear()
    for g in games:
        browser.open(site / "games" / f"{g['id']}.html")
        browser.wait_for("window.cinchViewer && window.cinchViewer.ready && cinchViewer.viewers.length > 0")
        assert browser.js(f"{MAIN}.querySelector('.warn')") is None
        assert browser.js(f"{MAIN}.querySelector('.rules').textContent").startswith("Rules: foster1897:")
        browser.key("End")
        assert _scores(browser) == g["scores"]
    browser.key("t")
    browser.wait_for("cinchViewer.viewers.length === 2")
    assert browser.js("cinchViewer.viewers[1].root.querySelector('.warn')") is None
    browser.screenshot(ARTIFACTS / "game-foster1897-twin.png")
    assert browser.problems() == []
