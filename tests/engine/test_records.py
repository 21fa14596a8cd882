"""Records: JSON round trip, validation, exact replay, tamper detection."""

from __future__ import annotations

import copy
import json
import random

import pytest

from arena.engine import Game, Rob, ReplayMismatch, action_from_dict, action_to_dict, game_record, load_record, replay
from arena.engine import Bid, NameTrump, PASS, Play


def random_game(key: str, seed: int, **kw) -> Game:
    g = Game(key=key, **kw)
    rng = random.Random(seed)
    while not g.over:
        g.apply(g.choice.sample(rng))
    return g


def test_json_round_trip_validate_and_replay():
    for seed in range(20):
        g = random_game(f"rec-{seed}", seed, max_deals=5 if seed % 2 else 200, fixed_deals=3 if seed % 5 == 0 else None)
        rec = game_record(g)
        text = json.dumps(rec)
        back = json.loads(text)
        assert back == rec
        model = load_record(back)
        assert model.version == 1 and len(model.deals) == len(g.deals)
        again = replay(back)
        assert game_record(again) == rec
        assert again.winner == g.winner and again.scores == g.scores


def test_unfinished_deal_record_replays():
    g = Game(key="mid")
    rng = random.Random(2)
    for _ in range(12):
        g.apply(g.choice.sample(rng))
    rec = game_record(g)
    assert "points" not in rec["deals"][-1]
    assert game_record(replay(json.loads(json.dumps(rec)))) == rec


def _tampered(rec: dict, rng: random.Random) -> list[tuple[str, dict]]:
    out = []
    d0 = rec["deals"][0]

    def edit(name, fn):
        t = copy.deepcopy(rec)
        fn(t)
        out.append((name, t))

    free_plays = [i for i, e in enumerate(d0["events"]) if e["type"] == "play" and not e["forced"]]
    if free_plays:
        i = free_plays[-1]
        other = next(x for x in ("AS", "2C", "7D", "KH") if x != d0["events"][i]["card"])
        edit("play card", lambda t: t["deals"][0]["events"][i].update(card=other))
    edit("trick winner", lambda t: t["deals"][0]["trick_winners"].__setitem__(0, (t["deals"][0]["trick_winners"][0] + 1) % 4))
    edit("points", lambda t: t["deals"][0].update(points=[t["deals"][0]["points"][1], t["deals"][0]["points"][0]]) if t["deals"][0]["points"][0] != t["deals"][0]["points"][1] else t["deals"][0].update(points=[0, 14 + 1]))
    edit("deck", lambda t: t["deals"][0]["deck"].reverse())
    edit("first dealer", lambda t: t.update(first_dealer=(t["first_dealer"] + 1) % 4))
    edit("scores", lambda t: t.update(scores=[t["scores"][0] + 1, t["scores"][1]]))
    edit("winner", lambda t: t.update(winner=None if t["winner"] is not None else 0))
    edit("maker", lambda t: t["deals"][0].update(maker=(t["deals"][0]["maker"] + 1) % 4))
    edit("trump", lambda t: t["deals"][0].update(trump="C" if t["deals"][0]["trump"] != "C" else "S"))
    edit("scores_before", lambda t: t["deals"][0].update(scores_before=[1, 0]))
    edit("forced flag", lambda t: t["deals"][0]["events"][0].update(forced=not t["deals"][0]["events"][0]["forced"]))
    edit("dropped event", lambda t: t["deals"][0]["events"].pop())
    return out


def test_tampered_records_raise_replay_mismatch():
    rng = random.Random(0)
    for seed in range(15):
        g = random_game(f"tamper-{seed}", seed, max_deals=3)
        rec = json.loads(json.dumps(game_record(g)))
        for name, t in _tampered(rec, rng):
            with pytest.raises(ReplayMismatch):
                replay(t)
                print("not detected:", name)


def test_load_record_refuses_other_versions_and_shapes():
    rec = game_record(random_game("v", 1, max_deals=1))
    with pytest.raises(ValueError, match="version"):
        load_record({**rec, "version": 2})
    with pytest.raises(ValueError):
        load_record({**rec, "format": "chess"})
    with pytest.raises(ValueError):
        load_record({**rec, "extra": 1})
    bad = copy.deepcopy(rec)
    bad["deals"][0]["deck"] = bad["deals"][0]["deck"][:51]
    with pytest.raises(ValueError):
        load_record(bad)


def test_action_dict_round_trip_and_errors():
    for a in (PASS, Bid(9), NameTrump(3), Rob((3, 1)), Rob(()), Play(5), Play(5, (7, 9))):
        assert action_from_dict(json.loads(json.dumps(action_to_dict(a)))) == a
    # a rob is a set: any order gives the same action and the same record
    assert Rob((9, 3)) == Rob((3, 9)) and action_to_dict(Rob((9, 3)))["take"] == ["5C", "JC"]
    for bad in ({"type": "bid", "amount": "7"}, {"type": "bid", "amount": True}, {"type": "play"}, {"type": "x"},
                {"type": "play", "card": "ZZ"}, {"type": "rob", "take": "AS"}, [], {"type": "trump", "suit": "X"}):
        with pytest.raises(ValueError):
            action_from_dict(bad)  # type: ignore[arg-type]
