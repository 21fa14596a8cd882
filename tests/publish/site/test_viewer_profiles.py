"""The replay viewer under every registered rule profile, in headless Chromium.

For each profile a seeded engine game showing the profile's mechanisms
(void deals, face-up discards, extra trumps shown, the free rob and the
trumps it leaves, points out of play, forced dealer bids) is opened as a
saved game in viewer.html: the viewer must find nothing to flag, show the
record's scores after every deal and at the end, and show each seat exactly
the cards the engine's view names at every decision point. One game per
profile in the default suite; more under ``-m slow``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.engine import game_record
from arena.engine.profile import RuleProfile, get_profile, profile_names, variant
from arena.match.show import saved_game

from .browser import Browser
from .conftest import EXE
from .profile_games import expected, showcase
from .profile_games import play as play_game
from .test_browser import ARTIFACTS, MAIN, _open_file, _scores, engine_views

pytestmark = pytest.mark.skipif(EXE is None, reason="no Chromium: install it with `apt-get install chromium` "
                                                   "(.ci/run does) to run the browser tests")
NAMES = ["north", "east", "south", "west"]
SLOW_GAMES = 4


def _open_record(browser: Browser, site: Path, tmp: Path, record: dict[str, Any]) -> None:
    path = tmp / f"{record['profile']['name']}-{record['key']}.json"
    path.write_text(json.dumps(saved_game(record, NAMES)))
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
    assert n == 1 + sum(1 + sum(e["type"] != "reshuffle" for e in d["events"]) for d in record["deals"])
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
    assert browser.js(f"{MAIN}.dataset.frame") == "0" and _scores(browser) == [0, 0]


def check_seat_views(browser: Browser, record: dict[str, Any]) -> None:
    """Each seat sees exactly the cards the engine's view names, at every decision point."""
    collect = (f"(() => {{ const v = cinchViewer.viewers[0], out = []; for (let i = 0; i < v.frames.length; i++) {{"
               f" v.go(i); const r = {MAIN}; out.push([+r.dataset.deal, +r.dataset.events,"
               " [...r.querySelectorAll('[data-card]')].map(x => x.dataset.card)]); } return out; })()")
    for seat in range(4):
        browser.key(str(seat))
        oracle = engine_views(record, seat)
        shown = {(d, e): set(cards) for d, e, cards in browser.js(collect)}
        missing = [k for k in oracle if k not in shown]
        assert len(missing) <= 1, missing  # every decision point has a step (a capped game's last may not)
        for k in oracle:
            if k in shown:
                assert shown[k] == oracle[k], (f"seat {seat}, deal {k[0]}, after {k[1]} events: "
                                               f"extra {sorted(shown[k] - oracle[k])}, missing {sorted(oracle[k] - shown[k])}")


@pytest.mark.parametrize("profile", profile_names())
def test_viewer_replays_and_hides_under_every_profile(browser: Browser, site: Path, tmp_path: Path, profile: str) -> None:
    (record, mechs), = showcase(profile)
    assert expected(profile) <= mechs  # the game shows what the profile adds
    browser.events.clear()
    check_replay(browser, site, tmp_path, record)
    check_seat_views(browser, record)
    # a step in the middle of the play, where the face-up cards and any seat sitting out show
    browser.js("(v => { v.setSeat(null); v.go(v.frames.findIndex(f => f.phase === 'play' && f.tricks.length > 2)); })"
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


def _flags(browser: Browser, record: dict[str, Any]) -> list[str]:
    return browser.js(f"cinchViewer.framesOf({{record: {json.dumps(record)}, names: []}}).warnings")


def test_viewer_flags_records_that_break_the_profiles_rules(browser: Browser, site: Path) -> None:
    browser.open(site / "viewer.html")
    browser.wait_for("window.cinchViewer && cinchViewer.ready")
    (foster, _), = showcase("foster1897")
    assert _flags(browser, foster) == []
    played = next(k for k, d in enumerate(foster["deals"]) if "points" in d)
    wrong = json.loads(json.dumps(foster))
    wrong["deals"][played]["scores_after"][0] += 1  # not what difference scoring gives
    assert any(f"deal {played}: scores by the rules" in w for w in _flags(browser, wrong))
    relabelled = json.loads(json.dumps(foster))
    relabelled["profile"]["set_rule"] = "total_plus_gap"  # bicycle's set rule on foster1897's cards
    sets = [d for d in foster["deals"] if d.get("made") is False]
    assert sets and any("scores by the rules" in w for w in _flags(browser, relabelled))
    void = next(k for k, d in enumerate(foster["deals"]) if d.get("redeal"))
    forced = json.loads(json.dumps(foster))
    forced["profile"]["dealer_forced_bid"] = 1  # then four passes are not allowed
    assert any(f"deal {void}: the dealer passes where the rules make it bid" in w for w in _flags(browser, forced))
    future = json.loads(json.dumps(foster))
    future["profile"]["future_rule"] = True  # a parameter of a profile this viewer does not know
    flags = _flags(browser, future)
    assert flags and "does not know the profile's parameter future_rule" in flags[0]
    assert _revoke_flagged(browser)
    (ru51, _), = showcase("ru51")
    doctored = json.loads(json.dumps(ru51))
    dl = next(d for d in doctored["deals"] if any(e["type"] == "discard" for e in d["events"]))
    ev = next(e for e in dl["events"] if e["type"] == "discard")
    ev["seat"] = (ev["seat"] + 1) % 4  # the extra trumps shown by the wrong seat
    with pytest.raises(Exception):  # the cards are not in that hand: the viewer refuses the record
        browser.js(f"cinchViewer.framesOf({{record: {json.dumps(doctored)}, names: []}})")
    assert browser.problems() == []


def test_game_pages_of_a_competition_under_another_profile(browser: Browser, club: tuple[Path, Path]) -> None:
    from arena.results import read_results

    results, site = club
    games = [g for ln in read_results(results).lines for g in ln["games"]]
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


def _revoke_flagged(browser: Browser) -> bool:
    """A pagat62 record where a seat that could follow suit plays another plain suit (its two plays swapped)."""
    (record, _), = showcase("pagat62")
    for d in record["deals"]:
        plays = [e for e in d["events"] if e["type"] == "play"]
        trump = d.get("trump")
        for i, e in enumerate(plays):
            lead = plays[i - i % 4]["card"]
            if i % 4 == 0 or lead[1] == trump or e["card"][1] != lead[1] or lead[0] == "5":
                continue
            later = next((x for x in plays[i + 1:] if x["seat"] == e["seat"] and x["card"][1] not in (lead[1], trump)
                          and x["card"][0] != "5"), None)
            if later is None:
                continue
            bad = json.loads(json.dumps(record))
            swapped = {id(e): later["card"], id(later): e["card"]}
            for de, be in zip(d["events"], next(x for x in bad["deals"] if x["index"] == d["index"])["events"]):
                if id(de) in swapped:
                    be["card"] = swapped[id(de)]
            return any(f"plays {later['card']}, which the rules do not allow" in w for w in _flags(browser, bad))
    raise AssertionError("no trick in the showcase game to revoke in")


def _ending(profile: RuleProfile, end: str) -> dict[str, Any]:
    """A seeded game under ``profile`` that ends by ``end``."""
    for k in range(200):
        g = play_game(profile, f"ending-{end}-{k}", max_deals=30)
        if g.end_reason == end:
            return game_record(g)
    raise AssertionError(f"no game ending by {end} in 200 keys")


def test_viewer_replays_profile_options_and_their_end_rules(browser: Browser, site: Path) -> None:
    """Options a club may set (rules 12: parameters, not forks): shooting the moon and a losing floor."""
    browser.open(site / "viewer.html")
    browser.wait_for("window.cinchViewer && cinchViewer.ready")
    for profile, end in ((variant("california", name="california-moon", moon_bid=14), "moon"),
                         (variant("pagat62", name="pagat62-floor", lose_at=-20), "floor")):
        record = _ending(profile, end)
        assert _flags(browser, record) == [], profile.name
        wrong = json.loads(json.dumps(record))
        wrong["winner"] = 1 - wrong["winner"]
        assert any(f"by the rules the game ends by {end}" in w for w in _flags(browser, wrong))
