"""Seeded engine games under every registered profile, chosen to show each profile's mechanisms.

A game is played by random legal decisions that pass often (so void deals
and forced dealer bids happen); among a few keys the one whose deals show
the most mechanisms is kept, deterministically. Which mechanisms a profile
has is what the engine declares (``expected``, from ``profile_info``).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from arena.engine import Game, deal_facts, game_record, profile_info
from arena.engine.actions import PASS
from arena.engine.cards import JOKER
from arena.engine.profile import RuleProfile, get_profile

#: keys tried at least, and at most while no game shows every mechanism ``expected`` names
TRIES, LIMIT = 30, 400


def play(profile: str | RuleProfile, key: str, max_deals: int = 8) -> Game:
    rng = random.Random(key)
    game = Game(get_profile(profile) if isinstance(profile, str) else profile, key=key, max_deals=max_deals)
    while not game.over:
        ch = game.choice
        game.apply(PASS if ch.kind == "bid" and ch.can_pass and rng.random() < 0.6 else ch.sample(rng))
    return game


def mechanisms(game: Game) -> set[str]:
    """Which of the rules' mechanisms the game's deals went through."""
    out: set[str] = set()
    p = game.profile
    for d in game.deals:
        if d.redeal:
            out.add("void deal")
            continue
        for ev in d.events:
            if ev[0] == "reshuffle":
                out.add(f"reshuffle ({ev[3]})")
            elif type(ev[2]).__name__ == "Discard":
                trumps = d.table is not None and d.table.is_trump[ev[2].cards[0]]
                out.add("extra trumps shown" if p.discard not in ("choose", "keep") and trumps else
                        "face-up discards" if p.discards_face_up else "chosen discards")
            elif getattr(ev[2], "under", ()):
                out.add("cards under a top card")
        if deal_facts(d).dealer_bid is not None:
            out.add("forced dealer bid")
        if p.rob == "free" and len(d.shown[d.dealer]) > (len(d.discarded[d.dealer]) if p.discards_face_up else 0):
            out.add("trumps left by the rob")
        if any(len(t.plays) < d.n for t in d.tricks):
            out.add("seats sitting out")
        if p.play == "oregon" and any(t.best < 0 for t in d.tricks):
            out.add("a trick without a trump to its leader")
        if p.bid_suits:
            out.add("bids naming the trump")
        if p.second_deal:
            out.add("a second deal")
        if p.kitty and any(type(ev[2]).__name__ == "Discard" and ev[1] == d.maker for ev in d.events if ev[0] == "act"):
            out.add("the kitty taken by the maker")
        if p.off_jack_trump and any(c % 13 == 9 and c // 13 == 3 - d.trump for t in d.tricks for _, c, _ in t.plays):
            out.add("the off-jack played")
        if d.in_dark:
            out.add("a bid in the dark")
        if p.widow and any(d.received):
            out.add("widows taken up")
        if any(ev[0] == "act" and type(ev[2]).__name__ == "TakeWidow" and not ev[2].take for ev in d.events):
            out.add("a widow left face down")
        if p.joker and any(c == JOKER for t in d.tricks for _, c, _ in t.plays):
            out.add("the joker played")
        if d.called is not None and d.partner is not None:
            out.add("a called partner")
        if d.alone or d.called is not None and d.partner is None and d.done:
            out.add("the maker alone")
        pts = p.point_table(d.trump)  # type: ignore[arg-type]
        if any(pts[c] for _, c in d.out):
            out.add("points out of play")
        out.add("made" if d.made else "set")
    return out


#: Mechanisms a profile declares that seeded games meet too seldom for a showcase game (four deals) to be
#: asked for them (``played`` still looks for them): a long hand at railroad, after the dealer robbed every
#: trump of the stock, comes about once in 300 games; at six cut-throat seats of eight cards as seldom.
RARE = {"railroad": frozenset({"cards under a top card"}), "cutthroat-6": frozenset({"cards under a top card"})}


def showcased(profile: str) -> frozenset[str]:
    """What a showcase game of ``profile`` is asked to show: ``expected`` but the rare ones."""
    return expected(profile) - RARE.get(profile, frozenset())


@lru_cache(maxsize=None)
def showcase(profile: str, n: int = 1, max_deals: int = 4) -> tuple[tuple[dict[str, Any], frozenset[str]], ...]:
    """``n`` games (record, mechanisms) under ``profile``: those showing the most of the profile's own
    mechanisms (``showcased``), then the most mechanisms."""
    scored = []
    want = showcased(profile)
    for k in range(LIMIT):
        if k >= max(TRIES, 3 * n) and sum(not missing for missing, *_ in scored) >= n:
            break
        g = play(profile, f"viewer-{profile}-{k}", max_deals)
        m = mechanisms(g)
        scored.append((len(want - m), -len(m), k, game_record(g), frozenset(m)))
    scored.sort(key=lambda x: x[:3])
    return tuple((rec, m) for *_, rec, m in scored[:n])


#: the mechanisms a showcase game is asked to go through when the profile can produce them
CHECKED = frozenset({
    "made", "set", "void deal", "forced dealer bid", "face-up discards", "chosen discards", "extra trumps shown",
    "cards under a top card", "trumps left by the rob", "points out of play", "seats sitting out",
    "a trick without a trump to its leader", "bids naming the trump", "a second deal", "the kitty taken by the maker",
    "the off-jack played", "a bid in the dark", "widows taken up", "a widow left face down", "the joker played", "a called partner",
    "the maker alone"})


@lru_cache(maxsize=None)
def expected(profile: str) -> frozenset[str]:
    """The mechanisms (of ``CHECKED``) ``profile`` can produce, as the engine declares them
    (``profile_info``): the rules stay in the engine, and a showcase game is asked to show each."""
    info = profile_info(get_profile(profile))
    chosen = "discard" in info.decision_kinds and (info.discard != "non_trumps" or not info.extra_trumps_shown)
    has = {
        "made": True, "set": True, "void deal": info.redeal, "forced dealer bid": info.dealer_must_bid,
        "face-up discards": chosen and info.face_up_discards, "chosen discards": chosen and not info.face_up_discards,
        "extra trumps shown": info.extra_trumps_shown, "cards under a top card": info.long_hands,
        "trumps left by the rob": info.rob == "free", "points out of play": info.points_out_of_play,
        "seats sitting out": info.sit_out, "a trick without a trump to its leader": info.untrumped_lead_holds,
        "bids naming the trump": info.suited_bids, "a second deal": info.second_deal,
        "the kitty taken by the maker": info.kitty, "the off-jack played": any(n == "off_jack" for n, _ in info.point_cards),
        "a bid in the dark": info.dark_bid, "widows taken up": info.widow,
        "a widow left face down": "take_widow" in info.decision_kinds, "the joker played": info.joker,
        "a called partner": "call" in info.decision_kinds,
        # alone by choice (railroad), or a called card nobody held (five-hand: it may have been put down)
        "the maker alone": "call" in info.decision_kinds,
    }
    return frozenset(m for m, on in has.items() if on) & CHECKED


def played(profile: str) -> frozenset[str]:
    """The mechanisms (of ``CHECKED``) seeded games of up to twelve deals went through: ``TRIES`` games,
    and more (up to ``LIMIT``) while a declared one has not shown (railroad's long hand, after the dealer
    robs every trump of the stock, comes about once in 300 games): what the declaration is checked against."""
    out: set[str] = set()
    want = expected(profile)
    for k in range(LIMIT):
        if k >= TRIES and want <= out:
            break
        out |= mechanisms(play(profile, f"mechanisms-{profile}-{k}", 12))
    return frozenset(out & CHECKED)
