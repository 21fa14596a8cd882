"""The pimc bot: legal answers of every kind, determinism from its seed, its counted budget, the
same answers with the compiled core and its pure-Python twin, and the deal model it bids with."""

from __future__ import annotations

import random

import pytest

from arena.engine import Deal, KeyedSource, action_from_dict, get_profile
from arena.engine.view import deal_view
from arena.protocol import choice_to_dict

from cinch_bot import solver as solver_module
from cinch_bot.cards import tables_for
from cinch_bot.legal import is_legal
from cinch_bot.predeal import DealModel, auction_supported, supported

from .conftest import make_bot, subset

BUDGET = 20_000


def decisions(states, every: int) -> list:
    """A few decisions of each kind pimc answers by search: bids, trumps, robs and plays."""
    picked = subset(states, every)
    by_kind: dict[str, list] = {}
    for s in picked:
        by_kind.setdefault(s.kind, []).append(s)
    return [s for kind in ("bid", "trump", "rob", "play") for s in by_kind.get(kind, [])[:6]]


def answers(states, seed: int = 7, **kw) -> tuple[list, list]:
    bot = make_bot("pimc", **{"nodes": BUDGET, **kw})
    bot.start_game({"type": "game", "seat": 0}, seed)
    out, charged = [], []
    for s in states:
        action = bot.decide(s.kind, s.view, s.legal)
        assert is_legal(action, s.legal, s.kind), (s.kind, s.legal, action)
        out.append(action)
        charged.append(bot.last_nodes)
    return out, charged


def test_pimc_answers_every_kind_legally_deterministically_within_its_budget(states):
    picked = decisions(states, 9)
    assert {s.kind for s in picked} == {"bid", "trump", "rob", "play"}
    first, charged = answers(picked)
    assert answers(picked) == (first, charged)
    # the node count is the budget: a world that does not fit is dropped (its one last node over)
    assert all(n <= BUDGET + 1 for n in charged)
    assert any(n > BUDGET // 2 for n in charged)


def test_pimc_answers_the_same_with_the_python_twin(states, monkeypatch):
    """The bot's decisions with the compiled core and with the pure-Python twin (same values,
    same node counts, so the same worlds fit the budget)."""
    if not solver_module.compiled():
        pytest.skip("the compiled core is not built: the twin is all there is")
    picked = [s for s in decisions(states, 23) if s.kind == "play"][-3:] + decisions(states, 23)[:1]
    with_core = answers(picked, nodes=3000, worlds=6)
    assert max(with_core[1]) > 1000
    monkeypatch.setattr(solver_module, "_core", None)
    assert answers(picked, nodes=3000, worlds=6) == with_core


def test_pimc_budget_and_switches_come_from_its_manifest_environment(monkeypatch):
    monkeypatch.setenv("CINCH_PIMC_NODES", "1234")
    monkeypatch.setenv("CINCH_PIMC_WORLDS", "5")
    monkeypatch.setenv("CINCH_PIMC_DEALS", "trump, rob")
    monkeypatch.setenv("CINCH_PIMC_OPTIMISM", "2.5")
    bot = make_bot("pimc")
    assert (bot.nodes, bot.worlds, bot.deals, bot.optimism) == (1234, 5, {"trump", "rob"}, 2.5)
    monkeypatch.setenv("CINCH_PIMC_DEALS", "bid,play")
    with pytest.raises(ValueError, match="CINCH_PIMC_DEALS: play"):
        make_bot("pimc")


def test_pimc_takes_its_manifests_settings(monkeypatch):
    """The variables bot.yaml sets are the ones the bot reads, each in its own form."""
    from arena.players import load_entry

    from .conftest import BOTS

    env = load_entry(BOTS / "pimc").manifest.env
    assert set(env) == {"CINCH_PIMC_NODES", "CINCH_PIMC_WORLDS", "CINCH_PIMC_DEALS", "CINCH_PIMC_OPTIMISM"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    bot = make_bot("pimc")
    assert (bot.nodes, bot.worlds) == (int(env["CINCH_PIMC_NODES"]), int(env["CINCH_PIMC_WORLDS"]))
    assert bot.deals == set(env["CINCH_PIMC_DEALS"].split(",")) and bot.optimism == float(env["CINCH_PIMC_OPTIMISM"])


def deal_views(profile_name: str, kinds: set[str], n: int):
    """(deal, choice, view) at the first decision of one of ``kinds`` in each of ``n`` deals
    played at random (the caller may go on playing the deal)."""
    profile = get_profile(profile_name)
    rng = random.Random(11)
    for k in range(200):
        deal = Deal(profile, k, k % 4, (0, 0), KeyedSource("pimc-model"))
        while not deal.done and deal.choice.kind not in kinds:
            deal.apply(deal.choice.sample(rng))
        if deal.done:
            continue
        yield deal, deal.choice, deal_view(deal, deal.choice.seat).to_dict()
        n -= 1
        if not n:
            return


def test_the_deal_model_plays_a_deal_to_the_first_lead_as_the_engine():
    """With the true hands and stock, the model's hands at the first lead are the engine's
    (the dealer robbing as the engine's dealer chose)."""
    profile = get_profile("pagat62")
    params = profile.model_dump(mode="json")
    tables = tables_for(params)
    checked = 0
    for deal, choice, view in deal_views("pagat62", {"trump"}, 30):
        model = DealModel(view, params, tables)
        hands = [list(h) for h in deal.hands]
        stock = list(deal.stock)
        rng = random.Random(3)
        while not deal.done and deal.phase != "play":
            c = deal.choice
            deal.apply(c.sample(rng))
        if deal.done or deal.reshuffles:
            continue  # (a reshuffled pile's order is the deal key's, not the model's)
        taken = [c for c in deal.rob_taken or () if tables[deal.trump].power[c] < 0]
        st = model.play_state(hands, stock, deal.maker, deal.trump, random.Random(1), taken)
        assert [sorted(h) for h in st.hands] == [sorted(h) for h in deal.hands]
        assert st.to_act == deal.maker and st.bidder_side == deal.maker % 2
        checked += 1
    assert checked >= 10


def test_the_deal_model_samples_the_unseen_cards_and_runs_the_auction():
    profile = get_profile("pagat62")
    params = profile.model_dump(mode="json")
    tables = tables_for(params)
    for deal, choice, view in deal_views("pagat62", {"bid"}, 12):
        model = DealModel(view, params, tables)
        hands, stock = model.sample(random.Random(5))
        dealt = [c for h in hands for c in h] + stock
        assert sorted(dealt) == sorted(profile.deck_cards) and hands[choice.seat] == list(deal.hands[choice.seat])
        assert all(len(h) == 9 for h in hands) and len(stock) == 16
        maker, amount = model.auction(hands, 0, 0.5)
        if maker >= 0:
            assert maker != choice.seat or amount == 0
            assert profile.min_bid <= amount <= profile.max_bid
        last = model.order[-1]
        if choice.seat == last and not any(b["amount"] for b in view["bids"]):
            assert choice_to_dict(choice)["pass"] is False  # the dealer's forced bid is the engine's too
    assert supported(params) and auction_supported(params)
    assert not supported(get_profile("sixty-three").model_dump(mode="json"))
    assert supported(get_profile("oregon").model_dump(mode="json"))
    assert not auction_supported(get_profile("oregon").model_dump(mode="json"))


@pytest.mark.parametrize("profile", ["oregon", "sixty-three", "cutthroat-3", "five-hand"])
def test_pimc_plays_profiles_the_deal_model_does_not_cover(profile):
    """Where the model does not follow the deal (suited bids, second deals, tables of other than
    four) pimc bids by hand evaluation and still answers every decision legally."""
    p = get_profile(profile)
    bot = make_bot("pimc", nodes=5000)
    bot.start_game({"type": "game", "seat": 0, "profile": p.model_dump(mode="json")}, 3)
    rng = random.Random(2)
    seen = set()
    for k in range(2):
        deal = Deal(p, k, k % p.players, (0,) * p.score_slots, KeyedSource(f"pimc-{profile}"))
        while not deal.done:
            c = deal.choice
            legal = choice_to_dict(c)
            action = bot.decide(c.kind, deal_view(deal, c.seat).to_dict(), legal)
            assert c.is_legal(action_from_dict(action)), (c.kind, legal, action)
            seen.add(c.kind)
            deal.apply(c.sample(rng))
    assert "play" in seen and "bid" in seen


@pytest.mark.bwrap
def test_the_compiled_core_loads_inside_the_sandbox(tmp_path):
    """A bot runs as an unprivileged uid with the SDK bound read-only: the core (and the source
    it checks itself against) must be readable there, or pimc would silently run a hundred
    times slower. This bot refuses to start on the pure-Python twin."""
    from arena.match import MatchSettings
    from arena.players import load_entry

    if not solver_module.compiled():
        pytest.skip("the compiled core is not built here")
    (tmp_path / "bot.py").write_text(
        "from cinch_bot import Bot, random_legal, run\n"
        "from cinch_bot.solver import compiled\n"
        "if not compiled():\n"
        "    raise SystemExit('the solver core did not load')\n"
        "class B(Bot):\n"
        "    def decide(self, kind, view, legal):\n"
        "        return random_legal(legal, kind, self.rng)\n"
        "run(B())\n")
    (tmp_path / "bot.yaml").write_text('name: core\ncommand: ["{python}", "bot.py"]\nlibraries: [sdk]\n')
    player = MatchSettings(sandbox="bwrap").player(load_entry(tmp_path), 1)  # its handshake says the core loaded
    try:
        fault = player.start()
    finally:
        report = player.close()
    assert fault is None, (fault, report.stderr)
