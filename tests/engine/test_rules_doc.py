"""The worked examples of docs/rules.md, executed against the engine.

Each example is a fenced ``yaml`` block whose first line is
``# example: <title>``. It gives the dealer, the nine cards each seat is
dealt, the stock, every event of the deal in order (the engine's forced
moves and reshuffles included) and what must follow. This test deals the
deck the way the document says dealing works, plays the listed decisions,
and requires the engine to produce exactly the listed events and results:
if the engine or the document changes, they must change together.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.engine import (
    DealFile,
    FileSource,
    Game,
    IllegalAction,
    action_from_dict,
    cards_str,
    deal_record,
    get_profile,
    variant,
)
from arena.engine.dealfile import FileDeal
from arena.engine.view import deal_view

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
BLOCK = re.compile(r"^```yaml\n(# example: .*?)^```", re.M | re.S)


def examples() -> list[dict[str, Any]]:
    out = []
    for m in BLOCK.finditer(DOC.read_text()):
        ex = yaml.safe_load(m.group(1))
        ex["title"] = m.group(1).splitlines()[0].removeprefix("# example: ").strip()
        out.append(ex)
    return out


def deck_from_hands(dealer: int, hands: dict[int, str], stock: str, packets: tuple[int, ...] = (3, 3, 3),
                    widows: dict[int, str] | None = None, seats: int = 4, kitty: str = "") -> list[str]:
    """The deck (top first) that deals ``hands`` as docs/rules.md section 3
    says: three rounds, a packet of 3 to each seat from the dealer's left
    (or the profile's ``packets``, rules 12.12), then any widows, one packet
    each from the dealer's left (12.14), then the kitty; at a table of
    ``seats`` other than four the rounds go round that many (rules 14)."""
    deck: list[str] = []
    done = 0
    for size in packets:
        for i in range(seats):
            seat = (dealer + 1 + i) % seats
            deck += hands[seat].split()[done : done + size]
        done += size
    for i in range(seats if widows else 0):
        deck += widows[(dealer + 1 + i) % seats].split()  # type: ignore[index]
    return deck + kitty.split() + stock.split()


def parse_line(line: str) -> dict[str, Any]:
    """``"2 play AH under 3H 4H (forced)"`` -> an action dict with seat and forced."""
    forced = line.endswith("(forced)")
    words = line.removesuffix("(forced)").split()
    seat, kind, rest = int(words[0]), words[1], words[2:]
    if kind == "pass":
        d: dict[str, Any] = {"type": "pass"}
    elif kind == "bid":
        d = {"type": "bid", "amount": int(rest[0])}
        if len(rest) > 1:  # a bid that names its suit (oregon)
            d["suit"] = rest[1]
    elif kind == "trump":
        d = {"type": "trump", "suit": rest[0]}
    elif kind == "rob":
        d = {"type": "rob", "take": rest}
    elif kind == "discard":
        d = {"type": "discard", "cards": rest}
    elif kind == "call":  # a called partner (rules 14): a card, or alone
        d = {"type": "call", "alone": True} if rest == ["alone"] else {"type": "call", "card": rest[0]}
    elif kind in ("take_widow", "leave_widow"):  # a widow taken up or left (rules 12.14)
        d = {"type": kind}
    elif kind == "play":
        d = {"type": "play", "card": rest[0]}
        if len(rest) > 1:
            assert rest[1] == "under", line
            d["under"] = rest[2:]
    else:
        raise AssertionError(f"unknown event {line!r}")
    return {**d, "seat": seat, "forced": forced}


def event_line(e: dict[str, Any]) -> str:
    """A record event written the way the document writes it."""
    if e["type"] == "reshuffle":
        return f"reshuffle {e['kind']}: " + " ".join(e["stock"])
    t = e["type"]
    words = {"pass": [], "bid": [str(e.get("amount"))] + ([e["suit"]] if e.get("suit") else []), "trump": [e.get("suit")], "rob": e.get("take", []),
             "discard": e.get("cards", []), "call": ["alone"] if e.get("alone") else [e.get("card")], "take_widow": [], "leave_widow": []}.get(t)
    if t == "play":
        words = [e["card"]] + (["under", *e["under"]] if e.get("under") else [])
    text = " ".join([str(e["seat"]), t, *words])  # type: ignore[list-item]
    return text + (" (forced)" if e["forced"] else "")


def start(ex: dict[str, Any]) -> Game:
    dealer = ex["dealer"]
    profile = get_profile(ex.get("profile", "pagat62"))
    if ex.get("changes"):  # a profile's option, e.g. {moon_bid: 14}
        profile = variant(profile, **ex["changes"])
    deck = deck_from_hands(dealer, ex["hands"], ex.get("stock", ""), profile.packets, ex.get("widows"), profile.players,
                           ex.get("kitty", ""))
    n = profile.shuffled_cards  # 52, or 53 with the joker (rules 12.11)
    if profile.short_deck is not None:  # a deal file holds every card; the others are not dealt (rules 12.12)
        deck += [card for card in cards_str(range(n)) if card not in deck]
    assert len(deck) == n and len(set(deck)) == n, f"{ex['title']}: hands and stock are not one deck of {n}"
    source = FileSource(DealFile(first_dealer=dealer, deals=[FileDeal(deck=deck, reshuffle_key=ex["reshuffle_key"])]), "next")
    game = Game(profile, source=source, max_deals=2)
    zero = (0,) * profile.score_slots
    scores = tuple(ex.get("scores", zero))
    if scores != zero:  # a game always starts at 0-0: deal the first deal again from these scores
        game.deals.clear()
        game.scores = scores  # type: ignore[assignment]
        game._start_deal()
    return game


def hands_at_play(game: Game) -> dict[int, set[str]]:
    deal = game.deals[0]
    out = {s: set(cards_str(deal.hands[s])) for s in range(deal.n)}
    for t in deal.tricks:
        for seat, top, under in t.plays:
            out[seat] |= set(cards_str((top, *under)))
    return out


def check_rob(game: Game, want: dict[str, Any]) -> None:
    ch = game.choice
    assert ch.kind == "rob"
    assert ch.count == want["take"]
    assert set(cards_str(ch.candidates)) == set(want["from"].split())
    assert set(cards_str(ch.must_take)) == set(want.get("automatic", "").split())


def run_example(ex: dict[str, Any]) -> Game:
    game = start(ex)
    deal = game.deals[0]
    expect = ex.get("expect", {})
    listed: list[str] = []
    for line in ex["events"]:
        if line.startswith("illegal: "):
            action = action_from_dict(parse_line(line.removeprefix("illegal: ")))
            assert not game.choice.is_legal(action), line
            with pytest.raises(IllegalAction):
                game.apply(action)
            continue
        listed.append(line)
        if line.startswith("reshuffle") or line.endswith("(forced)"):
            continue  # the engine makes these itself; compared below
        ev = parse_line(line)
        assert game.to_act == ev["seat"], f"{line}: the engine asks seat {game.to_act}"
        if ev["type"] == "rob" and "rob" in expect:
            check_rob(game, expect["rob"])
        game.apply(action_from_dict(ev))
    assert [event_line(e) for e in deal_record(deal)["events"]] == listed
    if "received" in expect:
        for seat, cards in expect["received"].items():
            assert cards_str(deal.received[seat]) == cards.split(), f"seat {seat} received"
    if "hands_at_play" in expect:
        got = hands_at_play(game)
        for seat, cards in expect["hands_at_play"].items():
            assert got[seat] == set(cards.split()), f"seat {seat} at the start of play"
    if "hand_sizes" in expect:
        assert [len(h) for h in deal.hands] == expect["hand_sizes"]
    if "trick_winners" in expect:
        assert [t.winner for t in deal.tricks if t.winner is not None] == expect["trick_winners"]
    if "shown" in expect:  # cards laid face up, per seat, in the order they were laid
        for seat in range(deal.n):
            assert cards_str(deal.shown[seat]) == expect["shown"].get(seat, "").split(), f"seat {seat} shown"
    if "undealt" in expect:  # cards left after every deal: out of play, in no hand and no seat's view
        assert cards_str(deal.stock) == expect["undealt"].split(), "undealt cards"
        assert not any(set(deal.stock) & deal_view(deal, seat).cards_named() for seat in range(deal.n)), "an undealt card seen"
        assert not set(deal.stock) & ({c for h in deal.dealt for c in h} | {c for r in deal.received for c in r})
    if "lost" in expect:
        assert deal.lost == expect["lost"], "points out of play"
    if "redeal" in expect:
        assert deal.redeal == expect["redeal"]
    if "partner" in expect:  # a called partner (rules 14)
        assert deal.partner == expect["partner"] and deal.side_of == tuple(expect["sides"])
    if "dark" in expect:
        assert deal.in_dark == expect["dark"] and deal_record(deal).get("dark", False) == expect["dark"]
    for field in ("points", "made", "scores_after"):
        if field in expect:
            value = getattr(deal, field)
            assert (list(value) if isinstance(value, tuple) else value) == expect[field], field
    if "game" in expect:
        want = expect["game"]
        assert game.over == want["over"]
        if want["over"]:
            assert (game.winner, game.end_reason) == (want["winner"], want["end"])
        else:
            assert len(game.deals) == 2 and game.deals[1].scores_before == deal.scores_after
    return game


EXAMPLES = examples()


def test_the_document_has_the_promised_examples():
    titles = " | ".join(ex["title"] for ex in EXAMPLES)
    for word in ("rob", "stock ran out", "blind", "long hand", "set", "deciding"):
        assert word in titles, word
    assert len({ex["title"] for ex in EXAMPLES}) == len(EXAMPLES)


@pytest.mark.parametrize("ex", EXAMPLES, ids=[ex["title"] for ex in EXAMPLES])
def test_example_agrees_with_the_engine(ex: dict[str, Any]):
    run_example(ex)


def test_a_wrong_example_is_caught():
    """The runner is not a rubber stamp: change any listed fact and it fails."""
    ex = next(e for e in EXAMPLES if "set" in e["title"])
    wrong_card = dict(ex, events=[*ex["events"][:-1], ex["events"][-1].replace("(forced)", "")])
    wrong_points = dict(ex, expect={**ex["expect"], "points": list(reversed(ex["expect"]["points"]))})
    missing_forced = dict(ex, events=[e for e in ex["events"] if "(forced)" not in e])
    for bad in (wrong_card, wrong_points, missing_forced):
        with pytest.raises((AssertionError, ValueError)):
            run_example(bad)
