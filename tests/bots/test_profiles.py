"""The SDK and every baseline under any rule profile: the profile's point values,
legal play from the ``legal`` choices only, trump among the legal suits, and
a legal answer to a decision kind a bot does not know.

Profiles come from ``profiles_under_test`` (every registered one plus the
test variant), so checks cover profiles as they are registered.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.bench.bots import duplicate_match, load_bot_class
from arena.engine import Choice, Deal, KeyedSource, NameTrump, RuleProfile, action_from_dict, get_profile
from arena.engine.view import deal_view
from arena.match import MatchSettings
from arena.match.check import check_entry
from arena.players import load_entry
from arena.protocol import choice_to_dict
from arena.protocol.messages import Decide

import cinch_bot
from cinch_bot import PAGAT62, Bot, card_points, run, tables_for
from cinch_bot.strategy import Facts, estimate_points
from cinch_bot.scoring import deal_delta

from ..profiles import VARIANT, four_seat_profiles_under_test, profiles_under_test
from .conftest import BOTS, PY_BOTS, QUICK_ENV, ROOT, quick_bot

ALL_BOTS = ("random", "heuristic", "montecarlo", "pimc", "js-random", "minimal")
PROFILES = profiles_under_test()
NODE = shutil.which("node")


def params(profile: RuleProfile) -> dict[str, Any]:
    return profile.model_dump(mode="json")


# -- the SDK's point values -------------------------------------------------------------------------


#: Engine profile fields the SDK's built-in default does not carry: the SDK reads none of them (rob_all,
#: rules.md 12.13, only marks monterey-draw's forced take-all, which the SDK plays through the choose path), and
#: adding them would change the SDK's digest that the committed leaderboards name.
NOT_IN_SDK_DEFAULT = {"rob_all"}


def test_pagat62_of_the_sdk_is_the_engine_default():
    engine = params(RuleProfile())
    assert set(engine) - set(PAGAT62) == NOT_IN_SDK_DEFAULT
    assert PAGAT62 == {k: v for k, v in engine.items() if k not in NOT_IN_SDK_DEFAULT}
    sdk_source = "".join(p.read_text() for p in Path(cinch_bot.__file__).parent.glob("*.py"))
    assert not any(name in sdk_source for name in NOT_IN_SDK_DEFAULT)  # a field the SDK reads belongs in its default


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_sdk_tables_give_the_engine_point_values(profile):
    tables = tables_for(params(profile))
    for trump in range(4):
        t = tables[trump]
        assert t.points == profile.point_table(trump)
        assert t.pointless == profile.pointless_trumps(trump)
        assert t.total == profile.points.total == sum(t.points)
        holder = profile.low_goes_to == "holder"
        assert t.low_to_holder == holder and t.captured[t.low] == (0 if holder else t.points[t.low])


def test_card_points_read_the_profile():
    p = params(VARIANT)
    assert card_points("JH", "H", p) == 2 and card_points("TH", "H", p) == 2 and card_points("5D", "H", p) == 5
    assert card_points("JH", "H") == 1 and card_points("JH", "H", PAGAT62) == 1 and card_points("JS", "H", p) == 0
    assert tables_for(None) is tables_for(PAGAT62) is cinch_bot.TABLES


def test_bot_profile_comes_from_the_game_then_the_hello():
    bot = Bot()
    assert bot.profile == PAGAT62 and bot.tables is cinch_bot.TABLES
    hello = {"type": "hello", "protocol": [1], "seed": 3, "harness": "t", "profile": params(VARIANT)}
    import io

    run(bot, io.BytesIO(json.dumps(hello).encode() + b"\n"), io.BytesIO())
    assert bot.profile == params(VARIANT) and bot.seed == 3
    assert bot.tables[2].points == VARIANT.point_table(2)
    other = {**params(VARIANT), "name": "other", "target": 40}
    bot.start_game({"type": "game", "profile": other}, 3)
    assert bot.profile == other


def test_points_won_and_hand_estimates_use_the_profile():
    # Hearts trump; seat 0 (side 0) won a trick holding the jack and Low of hearts.
    view = {"seat": 0, "hand": ["AS"], "maker": 0, "bid": 6, "trump": "H",
            "tricks": [{"leader": 1, "plays": [{"seat": 1, "card": "2H"}, {"seat": 2, "card": "JH"},
                                                {"seat": 3, "card": "3C"}, {"seat": 0, "card": "QH"}], "winner": 0}]}
    assert Facts(view).won_points == [1, 0]  # pagat62: Low stays with its holder (side 1)
    assert Facts(view, tables_for(params(VARIANT))).won_points == [3, 0]  # jack 2, Low to the capturer
    hand = [cinch_bot.card_index(c) for c in ("JH", "TH", "KH", "3C", "4S", "7D")]
    assert estimate_points(hand, 2, tables=tables_for(params(VARIANT))) > estimate_points(hand, 2)


@pytest.mark.parametrize("profile", four_seat_profiles_under_test(), ids=lambda p: p.name)
def test_the_sdk_scores_a_deal_like_the_engine(profile):
    """Every partnership profile's scoring, read from the parameters as the game message
    sends them and as records spell them (later fields only where not default).
    ``deal_delta`` scores two fixed sides; tables of single scores are scored per seat
    by the engine alone."""
    rng = random.Random(5)
    scored = 0
    for k in range(60):
        deal = Deal(profile, k, k % 4, (0, 0), KeyedSource(f"delta-{profile.name}"))
        while not deal.done:
            deal.apply(deal.choice.sample(rng))
        if deal.redeal:
            continue
        got = deal_delta(deal.points, deal.maker % 2, deal.high, params(profile), deal.in_dark)
        assert [deal.scores_after[s] - deal.scores_before[s] for s in (0, 1)] == list(got)
        assert deal_delta(deal.points, deal.maker % 2, deal.high, profile.record_dict(), deal.in_dark) == got
        scored += 1
    assert scored >= 30


@pytest.mark.parametrize("profile", four_seat_profiles_under_test(), ids=lambda p: p.name)
def test_the_sdk_follow_rule_and_trick_winner_are_the_engines(profile):
    """The SDK's ``Tables.legal_follow`` and ``winner_pos`` (the montecarlo bot simulates play with
    them) against the engine's play decisions and tricks: the same under the follow rule, and under
    the others what they are stated to be, a model of the follow rule only (oregon allows any card on
    a plain lead and lets it hold unless trumped; a first lead that must be a trump is the caller's to
    restrict; trumps_only and monterey seats out of trumps sit out)."""
    tables = tables_for(params(profile))
    rng = random.Random(11)
    asked = tricks = 0
    for k in range(16):
        deal = Deal(profile, k, k % 4, (0, 0), KeyedSource(f"follow-{profile.name}"))
        while not deal.done:
            choice = deal.choice
            if choice.kind == "play" and not getattr(choice, "under_count", 0):
                trick = deal.tricks[-1]
                led = trick.plays[0][1] if trick.plays else None
                sdk = set(tables[deal.trump].legal_follow(list(deal.hands[choice.seat]), led))
                if profile.play == "oregon" and led is not None and not tables[deal.trump].is_trump[led]:
                    assert sdk <= set(choice.cards)
                elif profile.play == "trumps_only":  # the SDK's follow rule, less the plain cards never played
                    assert {c for c in sdk if tables[deal.trump].is_trump[c]} == set(choice.cards)
                elif profile.first_lead_trump and led is None and len(deal.tricks) == 1:
                    assert sdk >= set(choice.cards)  # the rule of the first lead is the caller's (montecarlo's sim)
                else:
                    assert sdk == set(choice.cards), (deal.hands[choice.seat], led, choice.cards)
                asked += 1
            deal.apply(choice.sample(rng))
        for t in deal.tricks:
            if len(t.plays) == 4 and profile.play != "oregon":
                cards = [c for _, c, _ in t.plays]
                assert t.plays[tables[deal.trump].winner_pos(cards)][0] == t.winner
                tricks += 1
    assert asked >= 30 and (tricks >= (30 if profile.play == "follow" else 5) or profile.play == "oregon")


# -- legal choices only -----------------------------------------------------------------------------


class DeclareChoice(Choice):
    """A decision kind no baseline knows (as a profile could add): name one of three suits."""

    kind = "declare"
    __slots__ = ("seat",)

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def actions(self) -> list[Any]:
        return [NameTrump(s) for s in (0, 2, 3)]

    def is_legal(self, action: object) -> bool:
        return action in self.actions()

    def sample(self, rng: random.Random) -> Any:
        return rng.choice(self.actions())

    def only(self) -> None:
        return None

    def explain(self) -> str:
        return "declare C, H or S"


def a_view(profile: RuleProfile = VARIANT) -> dict[str, Any]:
    deal = Deal(profile, 0, 0, (0, 0), KeyedSource("views"))
    return deal_view(deal, deal.to_act).to_dict()


def test_an_unknown_kind_carries_one_legal_action_and_validates():
    legal = choice_to_dict(DeclareChoice(1))
    assert legal["options"] == [{"type": "trump", "suit": s} for s in "CHS"] and legal["any"] in legal["options"]
    assert legal == choice_to_dict(DeclareChoice(1))  # the same decision, the same 'any'
    msg = Decide.model_validate({"type": "decide", "id": 1, "kind": "declare", "view": a_view(), "legal": legal,
                                 "time_left_ms": 1, "decision_ms": 1})
    assert msg.kind == "declare"


def talk(name: str, decides: list[tuple[str, dict[str, Any], dict[str, Any]]], profile: RuleProfile) -> list[dict[str, Any]]:
    """Run a baseline as a process (no sandbox): hello, game, the decides, bye; its actions."""
    manifest = load_entry(BOTS / name).manifest
    if manifest.command[0] == "node" and NODE is None:
        pytest.skip("node is not installed")
    argv = [sys.executable if a == "{python}" else a for a in manifest.command]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(BOTS / "sdk"), str(ROOT)]), **QUICK_ENV)
    lines = [{"type": "hello", "protocol": [1], "seed": 5, "harness": "t", "profile": params(profile)},
             {"type": "game", "seat": 1, "profile": params(profile), "match_format": "game", "deals": None,
              "time": {"startup_ms": 10000, "decision_ms": 1000, "bank_ms": 60000}, "players": None}]
    lines += [{"type": "decide", "id": i, "kind": k, "view": v, "legal": lg, "time_left_ms": 9, "decision_ms": 9}
              for i, (k, v, lg) in enumerate(decides)]
    lines.append({"type": "bye", "reason": None})
    text = "".join(json.dumps(m) + "\n" for m in lines).encode()
    proc = subprocess.run(argv, cwd=BOTS / name, env=env, input=text, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    replies = [json.loads(x) for x in proc.stdout.splitlines()]
    assert replies[0]["type"] == "hello" and [r["id"] for r in replies[1:]] == list(range(len(decides)))
    return [r["action"] for r in replies[1:]]


@pytest.mark.parametrize("name", ALL_BOTS)
def test_every_baseline_names_trump_among_the_legal_suits_and_answers_an_unknown_kind(name):
    view = a_view()
    call = choice_to_dict(DeclareChoice(view["seat"]))
    only_any = {"any": {"type": "trump", "suit": "D"}}
    decides = [("trump", view, {"suits": [s]}) for s in "CDHS"] + [("trump", view, {"suits": ["D", "S"]})]
    decides += [("declare", view, call), ("declare", view, only_any)]
    actions = talk(name, decides, VARIANT)
    assert [a["suit"] for a in actions[:4]] == list("CDHS")
    assert actions[4]["suit"] in ("D", "S")
    assert DeclareChoice(view["seat"]).is_legal(action_from_dict(actions[5]))
    assert actions[6] == only_any["any"]


@pytest.mark.parametrize("name", PY_BOTS)
def test_sdk_baselines_in_process_answer_an_unknown_kind_legally(name):
    bot = quick_bot(name)
    bot.start_game({"type": "game", "profile": params(VARIANT)}, 1)
    choice = DeclareChoice(0)
    for _ in range(10):
        assert choice.is_legal(action_from_dict(bot.decide("declare", a_view(), choice_to_dict(choice))))
    assert cinch_bot.is_legal(cinch_bot.random_legal(choice_to_dict(choice), "declare", random.Random(1)),
                              choice_to_dict(choice), "declare")


# -- conformance and strength under a profile -------------------------------------------------------


def settings(profile: RuleProfile) -> MatchSettings:
    return MatchSettings(sandbox="none", profile=profile, time={"decision_ms": 5000, "bank_ms": 600000})


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_baselines_conform_under_the_variant(name):
    report = check_entry(load_entry(BOTS / name), settings(VARIANT), games=1)
    assert report.ok, report.summary()
    assert report.profile == "testvariant" and report.decisions > 50


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@pytest.mark.parametrize("name", ALL_BOTS)
def test_every_baseline_conforms_under_every_profile(name, profile):
    if name == "js-random" and NODE is None:
        pytest.skip("node is not installed")
    entry = load_entry(BOTS / name)
    if name in ("montecarlo", "pimc"):  # a small search budget: the same code paths, in minutes not hours
        m = entry.manifest
        entry = entry.model_copy(update={"manifest": m.model_copy(update={"env": {**m.env, **QUICK_ENV}})})
    report = check_entry(entry, settings(profile), games=2)
    assert report.ok, report.summary()


def test_heuristic_beats_random_under_the_variant():
    r = duplicate_match(load_bot_class("heuristic"), load_bot_class("random"), 4, "variant-strength",
                        MatchSettings(profile=VARIANT))
    assert r["games"] == 8 and r["unfinished_games"] == 0
    assert r["score_rate"] >= 0.75 and r["mean_final_score_diff"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@pytest.mark.parametrize("strong", ["heuristic", "montecarlo"])
def test_the_strong_baselines_beat_random_under_every_profile(strong, profile):
    make = load_bot_class(strong)
    if profile.sides != "pairs":  # a table of n: one strong entrant among random ones, duplicate by rotation
        from arena.bench.bots import rotation_match

        n = profile.players
        strong_bot = (lambda: make(samples=40)) if strong == "montecarlo" else make
        r = rotation_match([strong_bot] + [load_bot_class("random")] * (n - 1), 6, f"strength-{profile.name}",
                           MatchSettings(profile=profile))
        assert r["mean_final_score"][0] == max(r["mean_final_score"]) and r["win_rate"][0] >= 2 / n, r
        return
    a = (lambda: make(samples=40)) if strong == "montecarlo" else make
    settings = MatchSettings(profile=profile)
    # A look after the first 4 of the 8 blocks (the same blocks: block k's key does not depend on
    # how many are played): 8 of 8 games won there already passes. A bot that wins a game with
    # probability 0.6 does that 1.7 % of the time (0.5: 0.4 %), so the test passes such a bot at
    # most that much more often than the 8 blocks alone (which pass it 17 % of the time, at 12 of
    # 16); a strong bot stops at half the games (montecarlo's 8 blocks were most of this test's time).
    first = duplicate_match(a, load_bot_class("random"), 4, f"strength-{profile.name}", settings)
    if first["score_rate"] == 1.0 and first["unfinished_games"] == 0:
        assert first["score_rate_95"][0] > 0.5, first
        return
    r = duplicate_match(a, load_bot_class("random"), 8, f"strength-{profile.name}", settings)
    assert r["unfinished_games"] == 0
    lo, _ = r["score_rate_95"]
    assert r["score_rate"] >= 0.75 and lo > 0.5, r


# -- bids that name their trump and the off-jack (oregon) -----------------------------------------------


def test_sdk_trump_order_follows_the_profile():
    for profile in PROFILES:
        for trump, t in enumerate(tables_for(params(profile))):
            engine = profile.trump_table(trump)
            assert t.trumps == engine.trumps
            assert list(t.order) == sorted(engine.trumps, key=lambda c: -engine.power[c])
            assert all(t.esuit[c] == engine.esuit[c] for c in profile.deck_cards)


def suited_bid_decisions(n: int) -> list[tuple[Choice, dict[str, Any], dict[str, Any]]]:
    """The first ``n`` bid decisions of oregon deals played at random: (choice, view, legal)."""
    profile, rng, out = get_profile("oregon"), random.Random(3), []
    for k in range(50):
        deal = Deal(profile, k, k % 4, (0, 0), KeyedSource("suited"))
        while not deal.done and len(out) < n:
            c = deal.choice
            if c.kind == "bid" and len(choice_to_dict(c).get("suited") or []) > 1:
                out.append((c, deal_view(deal, c.seat).to_dict(), choice_to_dict(c)))
            deal.apply(c.sample(rng))
    return out


def test_suited_bids_sampled_checked_and_found():
    for choice, _, legal in suited_bid_decisions(12):
        for seed in range(5):
            action = cinch_bot.random_legal(legal, "bid", random.Random(seed))
            assert choice.is_legal(action_from_dict(action)) and cinch_bot.is_legal(action, legal, "bid")
        low = min(o["amount"] for o in legal["suited"])
        for suit in "CDHS":
            action = cinch_bot.bid_action(legal, low, suit)
            assert choice.is_legal(action_from_dict(action))
            mine = [o["amount"] for o in legal["suited"] if o["suit"] == suit]
            assert action["amount"] == (min(mine) if mine else low)
        assert not cinch_bot.is_legal({"type": "bid", "amount": low}, legal, "bid")  # the suit is missing


@pytest.mark.parametrize("name", ALL_BOTS)
def test_every_baseline_bids_legally_when_bids_name_their_suit(name):
    decisions = suited_bid_decisions(8)
    forced = [(c, v, {**lg, "pass": False}) for c, v, lg in decisions[:3]]  # a dealer who must bid (asked anyway)
    actions = talk(name, [("bid", v, lg) for _, v, lg in decisions + forced], get_profile("oregon"))
    for (choice, _, legal), action in zip(decisions + forced, actions):
        assert cinch_bot.is_legal(action, legal, "bid"), (legal, action)
        assert action["type"] == "pass" or choice.is_legal(action_from_dict(action))
