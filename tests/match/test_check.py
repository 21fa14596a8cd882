"""The conformance checker passes a conforming bot, fails a faulty one, and
the engine library really is importable inside the sandbox."""

import json
import sys
from pathlib import Path

import pytest

from arena.commands import main
from arena.match import MatchSettings
from arena.players import load_entry
from arena.match.check import PROBES, check_entry, probe_positions

from ..profiles import quick_first
from ..testbots import hostile

MINIMAL = Path(__file__).resolve().parents[2] / "bots" / "minimal"


def test_probes_cover_every_edge_case():
    positions = probe_positions()
    assert set(positions) == set(PROBES)
    rob = positions["rob_after_reshuffle"]()
    assert rob.choice.kind == "rob" and rob.deal.reshuffles >= 1 and rob.choice.count > 0
    extra = positions["extra_cards"]()
    assert extra.choice.kind == "play" and extra.choice.under_count > 0
    forced = positions["forced_bid_history"]()
    assert any(f for _, _, f in forced.deal.bids)


def test_probes_cover_the_dark_round_and_the_widow():
    from arena.engine import get_profile

    dark = probe_positions(get_profile("louisiana-dark"))
    assert {"dark_bid", "trump", "play"} <= set(dark)
    assert "forced_bid_history" not in dark  # after three passes its dealer chooses its bid (6 or more)
    g = dark["dark_bid"]()
    view = g.view(g.to_act)
    assert g.deal.phase == "dark" and view.hand == () and view.dealt == () and list(g.choice.amounts) == [14]
    widow = probe_positions(get_profile("monterey-widow"))
    assert {"trump_with_widow", "take_widow", "forced_bid_history", "extra_cards"} <= set(widow)
    g = widow["trump_with_widow"]()
    assert g.choice.kind == "trump" and len(g.deal.hands[g.to_act]) in (9, 13)  # its widow taken up, or left
    g = widow["take_widow"]()
    assert g.choice.kind == "take_widow" and g.deal.bids[-1][0] == g.to_act  # right after its own bid or pass


@pytest.mark.parametrize("name", quick_first(__import__("arena.engine", fromlist=["profile_names"]).profile_names()))
def test_every_profile_probes_each_decision_its_rules_make(name):
    """The decision kinds and edge cases a profile's rules produce, read from its parameters,
    each have a probe position (and the scan stops early: it looks for no impossible one)."""
    from arena.engine import get_profile

    p = get_profile(name)
    found = set(probe_positions(p))
    want = {"bid", "top_bid"} | ({"play_partner_hidden", "play_partner_known"} if p.call is not None else {"play"})
    want |= {"discard"} if p.discard != "non_trumps" or p.extra_trumps == "discard" else set()
    if p.rob != "none" and p.players == 4:
        want.add("rob")
    elif p.rob != "none" and p.players >= 5:  # a rob with a choice nearly always after the stock ran out
        assert found & {"rob", "rob_after_reshuffle"}
    want |= {"call"} if p.call is not None else set()
    want |= {"play_maker_alone"} if p.call_alone else set()
    want |= set() if p.bid_suits else {"trump_with_widow" if p.widow else "trump"}
    want |= {"dark_bid"} if p.dark_bid is not None else set()
    want |= {"joker_play"} if p.joker else set()
    want |= {"take_widow"} if p.widow else set()
    assert want <= found, sorted(want - found)


def test_conforming_bot_passes_with_exit_0(capsys):
    assert main(["check-bot", str(MINIMAL), "--sandbox", "none", "--games", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["violations"] == [] and out["decisions"] > len(PROBES)
    assert out["latency_ms"]["n"] == out["decisions"]


def test_command_form_runs_the_bot_given_after_double_dash(capsys, monkeypatch):
    monkeypatch.chdir(MINIMAL)
    assert main(["check-bot", "--sandbox", "none", "--games", "0", "--", sys.executable, "bot.py"]) == 0
    assert "CONFORMS" in capsys.readouterr().out


@pytest.mark.parametrize("mode,kind", [("illegal", "illegal"), ("crash", "crash"), ("malformed", "malformed")])
def test_faulty_bot_fails_and_each_violation_is_named(mode, kind):
    report = check_entry(hostile(mode, at=1), MatchSettings(sandbox="none"), games=0)
    assert not report.ok
    assert {v.fault.kind for v in report.violations} == {kind}
    assert "FAILS" in report.summary() and kind in report.summary()


@pytest.mark.bwrap
def test_engine_library_is_importable_in_the_sandbox(tmp_path):
    (tmp_path / "bot.py").write_text(
        (MINIMAL / "bot.py").read_text().replace("import json\n", "import json\nfrom arena.engine import RuleProfile\n", 1)
    )
    (tmp_path / "bot.yaml").write_text('name: eng\ncommand: ["{python}", "bot.py"]\nlibraries: [engine]\n')
    without = tmp_path / "no-lib"
    without.mkdir()
    (without / "bot.py").write_text((tmp_path / "bot.py").read_text())
    (without / "bot.yaml").write_text('name: eng\ncommand: ["{python}", "bot.py"]\n')
    st = MatchSettings(sandbox="bwrap")
    player = st.player(load_entry(tmp_path), 1)  # its handshake comes after the import: one start says it
    try:
        assert player.start() is None
    finally:
        player.close()
    report = check_entry(load_entry(without), st)
    assert not report.ok and report.violations[0].fault.kind == "crash"


def test_a_joker_profile_probes_a_play_with_the_joker(tmp_path):
    """Under sixty-three-joker the probes include a play with JK among the legal
    cards, so a bot that only knows 52 card names is caught before a tournament."""
    from arena.engine import JOKER, get_profile

    profile = get_profile("sixty-three-joker")
    positions = probe_positions(profile)
    # (no rob and no long hands in sixty-three; its dealer bids any amount, so no forced bid either)
    assert set(positions) == (set(PROBES) - {"rob", "rob_after_reshuffle", "extra_cards", "forced_bid_history"}) | {"discard", "joker_play"}
    joker = positions["joker_play"]()
    assert joker.choice.kind == "play" and JOKER in joker.choice.cards
    naive = (MINIMAL / "bot.py").read_text().replace(
        "def action(kind, legal):\n",
        "NAMES = {r + s: r for s in 'CDHS' for r in '23456789TJQKA'}\n\n\ndef action(kind, legal):\n"
        "    [NAMES[c] for c in legal.get('cards', [])]  # a parser of the 52 cards only\n", 1)
    (tmp_path / "bot.py").write_text(naive)
    (tmp_path / "bot.yaml").write_text('name: naive52\ncommand: ["{python}", "bot.py"]\n')
    entry = load_entry(tmp_path)
    report = check_entry(entry, MatchSettings(sandbox="none", profile=profile), games=0)
    # every other probe passes: only the position with the joker shows the fault
    assert [(v.where, v.fault.kind) for v in report.violations] == [("probe joker_play", "crash")]
    assert "KeyError: 'JK'" in report.summary()


@pytest.mark.parametrize("mode", ["no_hello", "hang", "crash", "wrong_id"])
def test_the_check_stops_at_the_first_fatal_verdict(mode):
    """A bot that fails its handshake, goes silent, dies or leaves the protocol is asked one
    probe, not every one (a silent bot cost a full timeout per probe), and plays no game."""
    settings = MatchSettings(sandbox="none", time={"startup_ms": 1500, "decision_ms": 300, "bank_ms": 3000})
    report = check_entry(hostile(mode, at=1), settings, games=1)
    assert len(report.probes) == 1 and len(report.violations) == 1, report.summary()
    assert report.violations[0].fault.kind in ("timeout", "crash", "protocol")


def test_an_illegal_answer_is_not_fatal_every_probe_is_still_asked():
    report = check_entry(hostile("illegal", at=1), MatchSettings(sandbox="none"), games=0)
    assert report.probes == list(probe_positions()) and len(report.violations) == len(report.probes)


@pytest.mark.parametrize("name", ["five-hand", "railroad"])
def test_a_called_partner_table_probes_each_way_a_play_stands(name):
    """Every play at a called-partner table comes after the call: the probes stand for the partner still
    hidden (a seat's view leaves sides unknown), the partnership public, and the maker alone."""
    from arena.engine import get_profile

    positions = probe_positions(get_profile(name))
    hidden = positions["play_partner_hidden"]()
    seat = hidden.to_act
    assert not hidden.deal.revealed and hidden.deal.partner is not None
    if seat not in (hidden.deal.maker, hidden.deal.partner):
        assert None in hidden.view(seat).sides
    known = positions["play_partner_known"]()
    assert known.deal.revealed and known.view(known.to_act).sides is not None and None not in known.view(known.to_act).sides
    alone = positions["play_maker_alone"]()
    assert alone.deal.alone or alone.deal.partner is None
    call = positions["call"]()
    assert call.choice.kind == "call" and (call.choice.to_wire()["alone"] == (name == "railroad"))


def test_a_bot_that_breaks_only_while_the_partner_is_hidden_is_caught():
    """The bot plays illegally only while a called card's holder is unknown to it: the probe of that
    position catches it, and only probes of such positions fail."""
    from arena.engine import get_profile

    entry = hostile("hidden_partner")
    report = check_entry(entry, MatchSettings(sandbox="none", profile="five-hand"))
    where = {v.where.removeprefix("probe ") for v in report.violations}
    assert "play_partner_hidden" in where and {v.fault.kind for v in report.violations} == {"illegal"}
    positions = probe_positions(get_profile("five-hand"))
    for probe in where:
        g = positions[probe]()
        assert None in (g.view(g.to_act).sides or ()), probe
    assert "play_partner_known" not in where and "call" not in where


BASELINES = ("minimal", "random", "js-random", "heuristic", "montecarlo", "pimc")


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["eighty-three", "pidro", "monterey-draw", "monterey-widow"])
@pytest.mark.parametrize("bot", BASELINES)
def test_every_baseline_bot_conforms_at_the_last_four_seed_profiles(bot, profile):
    """`arena check-bot` of each baseline at the profiles read last against seeds/004 (rules 12.9,
    12.13-12.15): every probe (the monterey rob's free choice, take_widow) and a whole game answered legally."""
    import shutil

    if bot == "js-random" and shutil.which("node") is None:
        pytest.skip("no node")
    from arena.match import TimeSettings

    entry = load_entry(MINIMAL.parent / bot)
    # (limits far above what the searchers take, so a loaded machine cannot turn a slow answer into a fault)
    time = TimeSettings(startup_ms=60_000, decision_ms=20_000, bank_ms=1_200_000, wall_factor=10.0)
    report = check_entry(entry, MatchSettings(sandbox="none", profile=profile, time=time), games=1)
    assert report.ok, report.summary()
    if profile == "monterey-widow":
        assert "take_widow" in report.probes
