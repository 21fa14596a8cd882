"""The viewer's data (publish/site/frames.py): the engine's frames, compact, and nothing the viewer re-derives.

No browser here: the browser tests (test_browser.py, test_viewer_profiles.py)
check that the page draws these frames; these check the frames themselves
against the engine, the patches, the flags of records that break the rules,
the `arena site frames` command, and that viewer.js holds no rule.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from arena.engine import Game, TakeWidow, cards_str, game_record
from arena.engine.profile import PointValues, RuleProfile, profile_names, variant
from arena.engine.record import load_record, recorded_decisions, recorded_source
from arena.match.show import saved_game
from arena.publish.site.build import asset
from arena.match.stored import games_of
from arena.publish.site.frames import apply_patch, diff, seat_view, unpack, viewer_data
from tests.cli import arena
from tests.profiles import quick_first

from .profile_games import play as play_game
from .profile_games import expected, played, showcase

CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|JK)\b")


def _named(view: dict[str, Any]) -> set[str]:
    """Every card a view (``View.to_dict()``) names."""
    out = set(view["hand"]) | set(view["dealt"]) | set(view["discarded"]) | set(view["received"])
    out |= set(view["rob_stock"] or ()) | set(view["rob_taken"] or ())
    for cards in view.get("shown") or ():
        out.update(cards)
    if view.get("called"):  # a called card is public from the call (docs/protocol.md)
        out.add(view["called"])
    for t in view["tricks"]:
        for p in t["plays"]:
            out.add(p["card"])
            out.update(p.get("under") or ())
    return out


def test_patches_turn_each_value_into_the_next() -> None:
    rng = random.Random(7)

    def value(depth: int) -> Any:
        kind = rng.randrange(5 if depth < 3 else 3)
        if kind == 0:
            return rng.randrange(4)
        if kind == 1:
            return rng.choice(["a", "b", None, True])
        if kind == 2:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        if kind == 3:
            return {rng.choice("pqrs"): value(depth + 1) for _ in range(rng.randrange(4))}
        return [rng.choice("xyz") for _ in range(rng.randrange(5))]

    for _ in range(3000):
        a, b = value(0), value(0)
        p = diff(a, b)
        if a == b:
            continue
        assert apply_patch(a, p) == b, (a, b, p)
        assert apply_patch(a, json.loads(json.dumps(p))) == b  # patches survive JSON (list indices as text)
    old = {"hand": ["2H", "5S", "9C"], "tricks": [{"plays": [1]}], "gone": 1}
    new = {"hand": ["2H", "9C"], "tricks": [{"plays": [1, 2]}, {"plays": []}]}
    p = diff(old, new)
    assert p == {"hand": [1, ["9C"]], "tricks": {"0": {"plays": {"+": [2]}}, "+": [{"plays": []}]}, "gone": []}
    assert apply_patch(old, p) == new and old["hand"] == ["2H", "5S", "9C"]  # the old value is left as it was


def _decision_points(record: dict[str, Any]) -> dict[tuple[int, int], list[dict[str, Any]]]:
    """Every seat's view from the engine at every decision point: (deal, events so far) -> views."""
    rec = load_record(record)
    game = Game(rec.profile, source=recorded_source(rec), max_deals=rec.max_deals, fixed_deals=rec.fixed_deals)
    out = {}

    def snap() -> None:
        if not game.over:
            out[(game.deal.index, len(game.deal.events))] = [game.view(s).to_dict() for s in range(rec.profile.players)]

    snap()
    for _, action in recorded_decisions(rec):
        game.apply(action)
        snap()
    return out


@pytest.mark.parametrize("profile", quick_first(profile_names()))
def test_frames_hold_the_engines_views_and_results_under_every_profile(profile: str) -> None:
    (record, _), = showcase(profile)
    n = record["profile"].get("players", 4)
    data = viewer_data(record, id="g", names=["n", "e", "s", "w", "x", "y"][:n])
    assert data["warnings"] == []
    assert len(data["seat_names"]) == n and sum(len(r["seats"]) for r in data["score_rows"]) == n
    frames = unpack(data["frames"])
    oracle = _decision_points(record)
    at = {(f["deal"], f["events"]): f for f in frames if not f["final"]}
    assert set(oracle) <= set(at)  # a step at every decision point
    for key, views in oracle.items():
        for s in range(n):
            assert seat_view(at[key], s) == views[s], (key, s)
    for f in frames:
        public = set.intersection(*(_named(seat_view(f, s)) for s in range(n)))
        named = set(CARD.findall(f["text"]))
        assert named <= public, f"step text names hidden cards {sorted(named - public)}: {f['text']}"
    ends = [f for f in frames if not f["final"] and f["seats"][0].get("scores_after", f["pub"].get("scores_after"))]
    assert [f["pub"]["scores_after"] for f in ends] == [d["scores_after"] for d in record["deals"] if "scores_after" in d]
    last = frames[-1]
    assert last["final"] and last["table"]["final_scores"] == record["scores"]
    assert [d["scores_after"] for d in last["table"]["deals"]] == [d["scores_after"] for d in record["deals"]
                                                                  if "scores_after" in d]
    assert ("Game over" in last["text"]) == record["over"]
    assert data["rules"].startswith(f"Rules: {profile}:")


def _flags(record: dict[str, Any]) -> list[str]:
    return viewer_data(record, id="g")["warnings"]


def _copy(x: Any) -> Any:
    return json.loads(json.dumps(x))


def test_records_that_break_the_profiles_rules_are_flagged_by_the_engine() -> None:
    (foster, _), = showcase("foster1897")
    assert _flags(foster) == []
    played = next(k for k, d in enumerate(foster["deals"]) if "points" in d)
    wrong = _copy(foster)
    wrong["deals"][played]["scores_after"][0] += 1  # not what difference scoring gives
    assert any(f"deal {played}: the replayed deal differs from the record in scores_after" in w for w in _flags(wrong))
    relabelled = _copy(foster)
    relabelled["profile"]["set_rule"] = "total_plus_gap"  # bicycle's set rule on foster1897's cards
    assert [d for d in foster["deals"] if d.get("made") is False]
    assert any("scores_after" in w for w in _flags(relabelled))
    forced = _copy(foster)
    forced["profile"]["dealer_forced_bid"] = 1  # then four passes are not allowed
    flags = _flags(forced)
    assert flags and any("does not replay" in w for w in flags)
    data = viewer_data(forced, id="g")
    assert data["frames"] is not None  # the steps up to the illegal pass are still shown
    future = _copy(foster)
    future["profile"]["future_rule"] = True  # a parameter no profile has
    data = viewer_data(future, id="g")
    assert data["frames"] is None and "does not load" in data["warnings"][0] and "future_rule" in data["warnings"][0]
    (ru51, _), = showcase("ru51")
    doctored = _copy(ru51)
    dl = next(d for d in doctored["deals"] if any(e["type"] == "discard" for e in d["events"]))
    ev = next(e for e in dl["events"] if e["type"] == "discard")
    ev["seat"] = (ev["seat"] + 1) % 4  # the extra trumps shown by the wrong seat
    assert _flags(doctored)


def test_a_revoke_is_flagged() -> None:
    """A pagat62 record where a seat that could follow suit plays another plain suit (two of its plays swapped)."""
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
            bad = _copy(record)
            swapped = {id(e): later["card"], id(later): e["card"]}
            for de, be in zip(d["events"], next(x for x in bad["deals"] if x["index"] == d["index"])["events"]):
                if id(de) in swapped:
                    be["card"] = swapped[id(de)]
            assert any("does not replay" in w for w in _flags(bad))
            return
    raise AssertionError("no trick in the showcase game to revoke in")


def _ending(profile: RuleProfile, end: str) -> dict[str, Any]:
    for k in range(200):
        g = play_game(profile, f"ending-{end}-{k}", max_deals=30)
        if g.end_reason == end:
            return game_record(g)
    raise AssertionError(f"no game ending by {end} in 200 keys")


def test_profile_options_and_their_end_rules() -> None:
    """Options a club may set (rules 12: parameters, not forks): shooting the moon and a losing floor."""
    for profile, end in ((variant("california", name="california-moon", moon_bid=14), "moon"),
                         (variant("pagat62", name="pagat62-floor", lose_at=-20), "floor")):
        record = _ending(profile, end)
        data = viewer_data(record, id="g")
        assert data["warnings"] == [], profile.name
        assert "Game over" in unpack(data["frames"])[-1]["text"]
        wrong = _copy(record)
        wrong["winner"] = 1 - wrong["winner"]
        assert any("winner" in w for w in _flags(wrong))


def test_viewer_js_holds_no_rule() -> None:
    """No profile parameter, profile name or point card in the viewer: it reads what the engine wrote."""
    js = asset("viewer.js")
    (record, _), = showcase("foster1897")
    frames = unpack(viewer_data(record, id="g")["frames"])
    data_keys: set[str] = set()

    def keys(x: Any) -> None:
        if isinstance(x, dict):
            data_keys.update(x)
            for v in x.values():
                keys(v)
        elif isinstance(x, list):
            for v in x:
                keys(v)

    keys(frames)
    fields = set(RuleProfile.model_fields) | set(PointValues.model_fields)
    for f in sorted(fields - data_keys - {"name", "game", "target"}):  # (a DOM event's .target is no profile's)
        pattern = rf"\b{f}\b" if "_" in f else rf"\.{f}\b|\b{f}:"
        assert not re.search(pattern, js), f"viewer.js reads the profile parameter {f}"
    for name in profile_names():
        assert name not in js, name
    assert "pedro" not in js.lower()
    assert set(re.findall(r"(\w+)\.target\b", js)) == {"e"}  # only the DOM event's
    assert not re.search(r"\bpower\b|\bisTrump\b|\bpointsOf\b|\blegal", js)


def test_the_frames_command(tmp_path: Path) -> None:
    (record, _), = showcase("pagat62")
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps(saved_game(record, ["a", "b", "c", "d"])))
    ran = arena("site", "frames", saved)
    assert ran.code == 0, ran.err
    data = json.loads(ran.out)
    assert data["format"] == "cinch-replay" and data["version"] == 1
    (game,) = data["games"]
    assert game["names"] == ["a", "b", "c", "d"] and game["warnings"] == []
    assert unpack(game["frames"])[-1]["table"]["final_scores"] == record["scores"]
    line = {"pairing": "a:b", "block": 0, "games": [{"id": "g0", "record": record, "seats": [{"bot": "x"}] * 4,
                                                       "forfeit_by": None},
                                                      {"id": "g1", "record": record, "seats": [{"bot": "y"}] * 4,
                                                       "forfeit_by": None}]}
    assert [g.id for g in games_of(line)] == ["g0", "g1"] and games_of(line)[0].twin == "g1"
    results = tmp_path / "line.json"
    results.write_text(json.dumps(line))
    ran = arena("site", "frames", results, "--game", "g1", "--out", tmp_path / "one.json")
    assert ran.code == 0, ran.err
    assert [g["id"] for g in json.loads((tmp_path / "one.json").read_text())["games"]] == ["g1", "g0"]
    assert arena("site", "frames", results, "--game", "nope").code == 2
    junk = tmp_path / "junk.json"
    junk.write_text("{\"hello\": 1}")
    ran = arena("site", "frames", junk)
    assert ran.code == 2 and "neither a game record nor a results file" in ran.err
    assert arena("site", "frames", tmp_path / "missing.json").code == 2


@pytest.mark.slow
@pytest.mark.parametrize("profile", profile_names())
def test_the_declared_mechanisms_are_those_play_shows(profile: str) -> None:
    """``expected`` (the engine's ``profile_info``) names exactly what seeded games go through: a
    declaration that claimed a mechanism the rules cannot produce, or missed one, fails here."""
    assert expected(profile) == played(profile)


def test_a_widow_taken_or_left_is_told_and_a_left_one_is_named_only_once_the_bidding_is_over() -> None:
    """monterey-widow (rules 12.14): each seat's answer on its widow is narrated; the cards of a
    widow left are named by no step's text and no seat's view until the bidding is over, then
    they lie face up for every seat."""
    (record, mechs), = showcase("monterey-widow")
    assert {"widows taken up", "a widow left face down"} <= mechs
    data = viewer_data(record, id="g", names=["n", "e", "s", "w"])
    frames = unpack(data["frames"])
    text = " ".join(f["text"] for f in frames)
    assert "takes up its widow." in text and "leaves its widow face down." in text
    assert "widow is turned face up, out of play: " in text
    rec = load_record(record)
    game = Game(rec.profile, source=recorded_source(rec), max_deals=rec.max_deals)
    left: dict[int, set[str]] = {}  # per deal: the cards of the widows left
    for _, action in recorded_decisions(rec):
        if isinstance(action, TakeWidow) and not action.take:
            left.setdefault(game.deal.index, set()).update(cards_str(game.deal.widows[game.to_act]))
        game.apply(action)
    assert left
    for f in frames:
        hidden = left.get(f["deal"], set())
        bidding = f["pub"]["phase"] in ("bid", "take_widow")
        for s in range(4):
            assert bool(hidden & _named(seat_view(f, s))) == (not bidding and bool(hidden)), (f["deal"], f["events"], s)
        if bidding:
            assert not hidden & set(CARD.findall(f["text"]))
