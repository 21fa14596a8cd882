"""Records: JSON round trip, validation, exact replay, tamper detection."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from arena.engine import Game, Rob, ReplayMismatch, action_from_dict, action_to_dict, game_record, load_record, replay
from arena.engine import RECORD_VERSION, Bid, DealFile, FileSource, NameTrump, PASS, Play, cards_str
from arena.engine.chance import reshuffle as keyed_reshuffle
from arena.engine.dealfile import FileDeal
from arena.engine.record import RecordedSource
from engine_helpers import build_deck, cs

V1_RECORDS = Path(__file__).parent / "fixtures" / "records-v1.json"
"""Two version-1 records written by the harness before version 2 (reshuffle
kind and key): a deal-file game whose fill ran out of stock, a keyed game
with a blind rob."""


def random_game(key: str, seed: int, **kw) -> Game:
    g = Game(key=key, **kw)
    rng = random.Random(seed)
    while not g.over:
        g.apply(g.choice.sample(rng))
    return g


def test_json_round_trip_validate_and_replay():
    for seed in range(10):  # both game lengths, with and without fixed deals
        g = random_game(f"rec-{seed}", seed, max_deals=5 if seed % 2 else 200, fixed_deals=3 if seed % 5 == 0 else None)
        rec = game_record(g)
        text = json.dumps(rec)
        back = json.loads(text)
        assert back == rec
        model = load_record(back)
        assert model.version == RECORD_VERSION == 2 and len(model.deals) == len(g.deals)
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
        load_record({**rec, "version": 3})
    with pytest.raises(ValueError, match="version"):
        load_record({**rec, "version": 0})
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


# -- reshuffles: their kind and their key (record version 2) ----------------

FILL_HANDS = {  # dealer 0; seats 1-3 hold no heart: they need 18 cards from 16
    1: "2C 3C 4C 6C 7C 8C 9C TC JC",
    2: "2S 3S 4S 6S 7S 8S 9S TS JS",
    3: "QC KC AC QS KS AS 2D 3D 4D",
    0: "AH KH QH JH TH 9H 8H 7H 6H",
}
FILL_STOCK = "5H 5D 4H 3H 2H 5C 5S 6D 7D 8D 9D TD JD QD KD AD"
BLIND_HANDS = {  # dealer 0 holds no heart; seats 1-3 take 15 of the 16 stock cards
    0: "2C 3C 4C 6C 7C 8C 9C TC JC",
    1: "AH 2S 3S 4S 6S 7S 8S 9S TS",
    2: "KH 2D 3D 4D 6D 7D 8D 9D TD",
    3: "QH QC KC AC JS QS KS AS JD",
}
BLIND_STOCK = "JH TH 9H 8H 7H 6H 5H 5D 4H 3H 2H QD KD AD 5C 5S"


def _file_game(decks: list[list[int]], seed: int, max_deals: int = 3) -> Game:
    """A game from a deal file (reshuffle keys "rk-0", "rk-1", ...): seat 1
    bids 7 in hearts in the first deal, random legal play after that."""
    df = DealFile(first_dealer=0, deals=[FileDeal(deck=cards_str(d), reshuffle_key=f"rk-{k}") for k, d in enumerate(decks)])
    g = Game(source=FileSource(df, "after-file"), max_deals=max_deals)
    g.apply(Bid(7))
    while g.deal.phase == "bid":
        g.apply(PASS)
    g.apply(NameTrump(2))
    rng = random.Random(seed)
    while not g.over:
        g.apply(g.choice.sample(rng))
    return g


def _reshuffles(rec: dict, k: int) -> list[dict]:
    return [e for e in rec["deals"][k]["events"] if e["type"] == "reshuffle"]


def test_reshuffle_events_say_fill_or_rob():
    fill = game_record(_file_game([build_deck(0, FILL_HANDS, FILL_STOCK)], 1))
    blind = game_record(_file_game([build_deck(0, BLIND_HANDS, BLIND_STOCK)], 2))
    assert [e["kind"] for e in _reshuffles(fill, 0)] == ["fill"]
    assert [e["kind"] for e in _reshuffles(blind, 0)] == ["rob"]
    # the fill's reshuffle comes between the trump and the rob or first play; the rob's after the rob
    ev = fill["deals"][0]["events"]
    i = next(i for i, e in enumerate(ev) if e["type"] == "reshuffle")
    assert ev[i - 1]["type"] == "trump"
    ev = blind["deals"][0]["events"]
    i = next(i for i, e in enumerate(ev) if e["type"] == "reshuffle")
    assert ev[i - 1]["type"] == "rob"
    for rec in (fill, blind):
        assert game_record(replay(json.loads(json.dumps(rec)))) == rec
    bad = copy.deepcopy(fill)
    _reshuffles(bad, 0)[0]["kind"] = "rob"
    with pytest.raises(ReplayMismatch):
        replay(bad)
    bad = copy.deepcopy(fill)
    del _reshuffles(bad, 0)[0]["kind"]
    with pytest.raises(ValueError, match="kind"):
        load_record(bad)


def test_deal_file_game_deals_its_reshuffles_again_from_the_record_alone():
    decks = [build_deck(0, FILL_HANDS, FILL_STOCK), build_deck(1, BLIND_HANDS, BLIND_STOCK)]
    g = _file_game(decks, 3, max_deals=4)
    rec = json.loads(json.dumps(game_record(g)))
    assert [d["origin"] for d in rec["deals"]] == ["file", "file", "key-after-file", "key-after-file"]
    assert [d["reshuffle_key"] for d in rec["deals"]] == ["rk-0", "rk-1", "after-file", "after-file"]
    # each recorded reshuffle is the documented function of the deal's reshuffle key
    pile = sorted(cs(FILL_HANDS[1]) + cs(FILL_HANDS[2]) + cs(FILL_HANDS[3]))
    assert _reshuffles(rec, 0)[0]["stock"] == cards_str(keyed_reshuffle("rk-0", 0, 0, pile))
    # without the deal file and without the recorded reshuffle stocks, the
    # record's keys deal the same reshuffles: the same game replays
    model = load_record(rec)
    decks = [cs(d.deck) for d in model.deals]
    origins = [d.origin for d in model.deals]
    source = RecordedSource(model.first_dealer, decks, {}, origins, model.key, [d.reshuffle_key for d in model.deals])
    again = Game(model.profile, source=source, max_deals=model.max_deals)
    for d in model.deals:
        for e in d.events:
            if e.type != "reshuffle" and not e.forced:
                again.apply(action_from_dict(e.model_dump(exclude_none=True)))
    assert game_record(again) == rec
    assert sum(len(_reshuffles(rec, k)) for k in range(len(rec["deals"]))) >= 1


def test_version_1_records_still_load_and_replay():
    for name, rec in json.loads(V1_RECORDS.read_text()).items():
        assert rec["version"] == 1
        model = load_record(rec)
        assert model.version == 1 and all(d.reshuffle_key is None for d in model.deals)
        assert any(e.type == "reshuffle" for d in model.deals for e in d.events), name
        game = replay(rec)
        assert list(game.scores) == rec["scores"] and game.winner == rec["winner"]
        # a version-1 record edited is still caught
        bad = copy.deepcopy(rec)
        bad["deals"][0]["trick_winners"][0] = (bad["deals"][0]["trick_winners"][0] + 1) % 4
        with pytest.raises(ReplayMismatch):
            replay(bad)
        # version 1 has no reshuffle key, and a record cannot claim one
        bad = copy.deepcopy(rec)
        bad["deals"][0]["reshuffle_key"] = "x"
        with pytest.raises(ValueError, match="version 1"):
            load_record(bad)
        # without recorded stocks and without a key, a reshuffle cannot be dealt
        src = RecordedSource(model.first_dealer, [cs(d.deck) for d in model.deals], {}, [d.origin for d in model.deals], model.key)
        k = next(d.index for d in model.deals if any(e.type == "reshuffle" for e in d.events))
        with pytest.raises(ReplayMismatch, match="reshuffle"):
            src.reshuffle(k, 0, [1, 2, 3])
