"""Decision kinds describe themselves (issue 45): nothing above the engine and the protocol branches
on a kind's name, and a kind registered later is prompted, typed, replayed, told and probed by the
same code, unchanged."""

from __future__ import annotations

import ast
import copy
import io
import random
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena.engine import (
    DECISION_KINDS, PASS, Choice, DecisionKind, Game, IllegalAction, Narrator, ReplayMismatch, ReplayWriter,
    action_from_dict, decision_kind, event_kind, get_profile, profile_info, register_kind, replay, unregister_kind,
)
from arena.engine.conformance import check_profile
from arena.engine.record import game_record
from arena.match.game import close_all
from arena.protocol import ActionReply, MalformedMessage, choice_to_dict, decode_from_bot
from arena.match.check import _situation
from arena.match.show import render_deal
from arena.players.human import parse_reply, show_legal
from arena.publish.site import frames

ARENA = Path(__file__).resolve().parents[2] / "arena"
#: Where a kind's name may be compared: the engine (which defines the kinds) and the protocol (whose wire
#: models name them).
ALLOWED = ("engine", "protocol")
#: Names compared with a kind's word that are not kinds: a deal's phase, and a profile field whose value
#: happens to be one ("extra_trumps": "discard").
NOT_KINDS = {"phase", "phase_before", "extra_trumps"}
WORDS = {w for k in DECISION_KINDS for w in (k, *decision_kind(k).events)}


def _words(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & WORDS
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_words(e) for e in node.elts)) if node.elts else set()
    return set()


def _name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def kind_comparisons(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, words) of every comparison of something with a decision kind's name or event type."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            words = set().union(*(_words(s) for s in sides))
            if words and not any(_name(s) in NOT_KINDS for s in sides):
                out.append((node.lineno, ", ".join(sorted(words))))
    return out


def test_nothing_above_the_engine_and_the_protocol_branches_on_a_kind_name() -> None:
    found = []
    for path in sorted(ARENA.rglob("*.py")):
        if path.relative_to(ARENA).parts[0] in ALLOWED:
            continue
        found += [f"{path.relative_to(ARENA)}:{line}: {w}" for line, w in kind_comparisons(ast.parse(path.read_text()))]
    assert found == []


def test_the_grep_finds_a_branch_on_a_kind_name() -> None:
    """The check above can fail: an if-chain on kinds (or a membership test of event types) is found,
    a deal's phase is not."""
    src = ('if kind == "bid":\n    pass\nelif kind in ("rob", "call"):\n    pass\n'
           'x = [e for e in ev if e["type"] == "leave_widow"]\nif deal.phase == "play":\n    pass\n')
    assert [line for line, _ in kind_comparisons(ast.parse(src))] == [1, 3, 5]


class _Toy(DecisionKind):
    """A kind a profile might add: ring a bell, or not; its own words for the replay and the viewer."""

    def replay(self, event: dict[str, Any], out: ReplayWriter) -> None:
        out.line(f"{out.label(event['seat'])} {'rings' if event['type'] == 'toy_ring' else 'keeps quiet'}")

    def narrate(self, event: dict[str, Any], out: Narrator) -> None:
        out.say(f"{out.name(event['seat'])} rings the bell." if event["type"] == "toy_ring" else "Silence.")


class _ToyChoice(Choice):
    kind = "toy"
    __slots__ = ("seat",)

    def __init__(self, seat: int) -> None:
        self.seat = seat


@pytest.fixture
def toy() -> Any:
    kind = register_kind(_Toy("toy", ("toy_ring", "toy_quiet"), "whether to ring the bell"))
    yield kind
    unregister_kind("toy")
    assert event_kind("toy_ring") is None


def _played(name: str = "pagat62", key: str = "toy") -> Game:
    game = Game(key=key, profile=get_profile(name), max_deals=1)
    rng = random.Random(1)
    while not game.over:
        game.apply(game.choice.sample(rng))
    return game


def test_a_registered_kind_is_prompted_and_typed_by_the_human_seat(toy: DecisionKind) -> None:
    legal = {"options": [{"type": "toy_ring"}, {"type": "toy_quiet"}], "any": {"type": "toy_quiet"}}
    assert show_legal("toy", legal) == "toy: type one of 1 toy_ring, 2 toy_quiet"
    assert parse_reply("toy", legal, "2") == {"type": "toy_quiet"}
    assert parse_reply("toy", legal, "toy_ring") == {"type": "toy_ring"}
    assert parse_reply("toy", legal, "any") == {"type": "toy_quiet"}
    with pytest.raises(ValueError, match="type one of 1 toy_ring, 2 toy_quiet"):
        parse_reply("toy", legal, "3")


def test_a_registered_kind_is_written_in_the_text_replay_and_told_in_the_viewer(toy: DecisionKind) -> None:
    game = _played()
    d = game_record(game)["deals"][0]
    events = d["events"]
    first_play = next(i for i, e in enumerate(events) if event_kind(e["type"]) is decision_kind("play"))
    toy_events = [{"type": "toy_ring", "seat": 1}, {"type": "toy_quiet", "seat": 2}]
    d = {**d, "events": events[:first_play] + toy_events + events[first_play:]}
    text = render_deal(d, game.deals[0]).splitlines()
    assert "  E seat 1 rings" in text and "  S seat 2 keeps quiet" in text
    said = frames._describe(game.deals[0], toy_events, False, frames._Namer([], 4), "play", [0])
    assert said.startswith("E rings the bell. Silence.")


def test_an_unregistered_kind_gets_the_defaults_everywhere() -> None:
    """No subclass at all: typed by its listed options, replayed and told as "seat type"."""
    register_kind(DecisionKind("bell", ("bell",)))
    try:
        game = _played()
        d = game_record(game)["deals"][0]
        d = {**d, "events": [*d["events"], {"type": "bell", "seat": 3}]}
        assert "  W seat 3 bell" in render_deal(d, game.deals[0]).splitlines()
        said = frames._describe(game.deals[0], [{"type": "bell", "seat": 3}], False, frames._Namer([], 4), "play", [0])
        assert said.startswith("W bell.")
        assert show_legal("bell", {"any": {"type": "bell"}}) == "bell: type any (one legal choice)"
        with pytest.raises(ValueError, match="type any"):
            parse_reply("bell", {"any": {"type": "bell"}}, "ring")
    finally:
        unregister_kind("bell")


def test_check_bot_probes_a_registered_kind_under_its_own_name(toy: DecisionKind) -> None:
    game = Game(key="toy", profile=get_profile("pagat62"))
    stand_in = SimpleNamespace(choice=_ToyChoice(0), deal=game.deal)
    assert _situation(stand_in) == "toy"  # type: ignore[arg-type]
    assert toy.probes(get_profile("pagat62")) == {"toy"}


# -- a toy kind played end to end -----------------------------------------------------------------
# Everything the kind needs is here, in the test: its action, its choice, its words and where deals ask
# it. The modules above the engine and the protocol are not changed for it (the grep above holds them
# to asking the kind); the game is played, checked, shown, told and replayed through their public
# interfaces.

TOY_PROFILE = "toy62"


@dataclass(frozen=True, slots=True)
class Ring:
    """The toy's answer: ring the bell, or keep quiet."""

    ring: bool

    def __str__(self) -> str:
        return "ring" if self.ring is True else "quiet" if self.ring is False else f"ring {self.ring!r}"


class _BellChoice(Choice):
    """Ring or keep quiet; the dealer, asked last, must ring when nobody has (its one option: forced)."""

    kind = "bell"
    __slots__ = ("seat", "options")

    def __init__(self, seat: int, must_ring: bool) -> None:
        self.seat = seat
        self.options = (Ring(True),) if must_ring else (Ring(True), Ring(False))

    def is_legal(self, action: object) -> bool:
        return type(action) is Ring and action in self.options

    def actions(self) -> list[Any]:
        return list(self.options)

    def only(self) -> Any:
        return self.options[0] if len(self.options) == 1 else None

    def sample(self, rng: random.Random) -> Any:
        return rng.choice(self.options)

    def explain(self) -> str:
        return "one of: " + ", ".join(map(str, self.options))


class _Bell(DecisionKind):
    """Before the first card of each deal of the toy profile, each seat from the dealer's left in turn
    rings the bell or keeps quiet; the record, the bots and the human seat see it as ``bell_ring`` or
    ``bell_quiet`` (listed options, so the defaults prompt and parse it)."""

    action_type = Ring

    def action_to_dict(self, action: Any) -> dict[str, Any]:
        return {"type": "bell_ring" if action.ring else "bell_quiet"}

    def action_from_dict(self, d: dict[str, Any]) -> Any:
        return Ring(d["type"] == "bell_ring")

    def asked_in(self, profile: Any) -> bool:
        return bool(profile.name == TOY_PROFILE)

    def most(self, profile: Any) -> int:
        return int(profile.players)

    def ask(self, deal: Any) -> Choice | None:
        if deal.phase != "play" or deal.tricks[0].plays:
            return None
        rung = [ev[2].ring for ev in deal.events if ev[0] == "act" and type(ev[2]) is Ring]
        if len(rung) == deal.n:
            return None
        seat = (deal.dealer + 1 + len(rung)) % deal.n
        return _BellChoice(seat, must_ring=seat == deal.dealer and not any(rung))

    def replay(self, event: dict[str, Any], out: ReplayWriter) -> None:
        out.line(f"{out.label(event['seat'])} {'rings the bell' if event['type'] == 'bell_ring' else 'keeps quiet'}"
                 + (" (forced)" if event.get("forced") else ""))

    def narrate(self, event: dict[str, Any], out: Narrator) -> None:
        out.say(f"{out.name(event['seat'])} rings the bell." if event["type"] == "bell_ring"
                else f"{out.name(event['seat'])} keeps quiet.")


@pytest.fixture
def bell() -> Any:
    from arena.engine import PROFILES, register_profile, variant

    profile = register_profile(variant("pagat62", name=TOY_PROFILE))
    kind = register_kind(_Bell("bell", ("bell_ring", "bell_quiet"), "whether to ring the bell before the first card"))
    yield profile
    unregister_kind("bell")
    del PROFILES[TOY_PROFILE]
    with pytest.raises(ValueError, match="unknown action type 'bell_ring'"):
        action_from_dict({"type": "bell_ring"})  # gone with its kind
    assert "bell" not in profile_info(profile).decision_kinds and kind.name == "bell"


def _bell_events(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for d in record["deals"] for e in d["events"] if e["type"].startswith("bell_")]


def test_a_registered_kind_is_asked_by_the_deals_of_its_profile_and_replays(bell: Any) -> None:
    info = profile_info(bell)
    assert "bell" in info.decision_kinds and "bell" not in profile_info(get_profile("pagat62")).decision_kinds
    assert info.max_deal_actions == profile_info(get_profile("pagat62")).max_deal_actions + 4
    game = _played(TOY_PROFILE)
    record = game_record(game)
    events = record["deals"][0]["events"]
    bells = _bell_events(record)
    assert [e["seat"] for e in bells] == [(game.deals[0].dealer + 1 + i) % 4 for i in range(4)]
    first_card = next(i for i, e in enumerate(events) if e["type"] == "play")
    assert all(events.index(e) < first_card for e in bells)  # asked before the first card, after the rest
    assert replay(record) is not None and game_record(replay(record)) == record
    # the engine's invariants (information hiding, forced decisions never asked, illegal actions refused,
    # exact replay) hold with the kind in play; the dealer's forced ring shows in some game
    assert check_profile(bell, games=6, seed=1, max_deals=3).failures == []
    forced = [e for k in range(30) for e in _bell_events(game_record(_played(TOY_PROFILE, key=f"bell-{k}")))
              if e["forced"]]
    assert forced and all(e["type"] == "bell_ring" for e in forced)
    with pytest.raises(IllegalAction):  # an action of another kind is refused while the bell is asked
        g = Game(key="bell", profile=bell, max_deals=1)
        while g.choice.kind != "bell":
            g.apply(g.choice.sample(random.Random(0)))
        g.apply(PASS)
    tampered = copy.deepcopy(record)
    e = _bell_events(tampered)[0]
    e["type"] = "bell_quiet" if e["type"] == "bell_ring" else "bell_ring"
    with pytest.raises(ReplayMismatch):
        replay(tampered)


def test_a_registered_kinds_answers_cross_the_protocol(bell: Any) -> None:
    assert choice_to_dict(_BellChoice(1, False)) == {
        "options": [{"type": "bell_ring"}, {"type": "bell_quiet"}], "any": {"type": "bell_ring"}}
    reply = decode_from_bot(b'{"type": "action", "id": 3, "action": {"type": "bell_quiet"}}')
    assert isinstance(reply, ActionReply) and reply.id == 3
    assert action_from_dict(vars(reply.action)) == Ring(False)
    for bad in (b'{"type": "action", "id": 3, "action": {"type": "bell_knell"}}',
                b'{"type": "action", "id": 3, "action": {"type": "bell_ring", "colour": "red"}}',
                b'{"type": "action", "id": "x", "action": {"type": "bell_ring"}}'):
        with pytest.raises(MalformedMessage):
            decode_from_bot(bad)


def test_a_registered_kind_is_played_checked_shown_told_and_replayed_unchanged(bell: Any) -> None:
    """A real game under the toy profile: a person at seat 0 (typing the bell's option by name, ``any``
    elsewhere), minimal bot processes at the others (answering it by ``any``, through the protocol);
    then check-bot probes the kind, the text replay and the viewer tell it, and the record replays."""
    from arena.match import MatchSettings
    from arena.match.check import check_entry
    from arena.match.game import play_game
    from arena.match.keys import DealKey
    from arena.match.show import render_game
    from arena.players import load_entry
    from arena.players.human import HumanPlayer
    from arena.publish.site.frames import viewer_data

    settings = MatchSettings(sandbox="none", profile=TOY_PROFILE, max_deals=2)
    minimal = load_entry(ARENA.parent / "bots" / "minimal")
    out = io.StringIO()

    class Person(HumanPlayer):
        """The person types what it reads: the bell's last option by name, else the first legal answer."""

        def decide(self, request: dict[str, Any]) -> Any:
            self.legal = request["legal"]
            return super().decide(request)

    def typed() -> str:
        legal = person.legal
        if "options" in legal:
            return f"{legal['options'][-1]['type']}\n"
        if "bids" in legal:
            return "pass\n" if legal["pass"] else f"{legal['bids'][0]}\n"
        if "suits" in legal:
            return f"{legal['suits'][0]}\n"
        if "take" in legal:
            return (" ".join(legal["from"][:legal["take"]]) or "-") + "\n"
        top = legal["cards"][0]
        return " ".join([top, *[c for c in legal["under_from"] if c != top][:legal["under"]]]) + "\n"

    person = Person(typed, out)
    players = [person, *(settings.player(minimal, s) for s in (1, 2, 3))]
    try:
        result = play_game(players, settings, DealKey("toy-bell"))
    finally:
        close_all(players)
    assert result.faults == [] and result.end == "cap"
    assert "bell: type one of 1 bell_ring, 2 bell_quiet" in out.getvalue()
    record = result.record
    bells = _bell_events(record)
    assert len(bells) == 8 and all(e["type"] == "bell_quiet" for e in bells if e["seat"] == 0 and not e["forced"])
    assert any(e["type"] == "bell_ring" and e["seat"] != 0 for e in bells)  # a bot's answer, through the protocol
    assert game_record(replay(record)) == record

    text = render_game(record, ["you", "m1", "m2", "m3"])
    assert text.count("rings the bell") + text.count("keeps quiet") == 8 and "N you keeps quiet" in text

    data = viewer_data(record, id="toy")
    said = " ".join(f.get("text", "") for f in frames.unpack(data["frames"]))
    assert data["warnings"] == [] and said.count("rings the bell.") + said.count("keeps quiet.") == 8
    # the rules line (the engine's rules_text) tells the kind in its own words, after the profile's clauses
    assert data["rules"].endswith("(bidder goes out from 55); bell: whether to ring the bell before the first card.")

    report = check_entry(minimal, settings)
    assert report.ok and "bell" in report.probes, report.summary()


def test_a_record_of_a_kind_no_longer_registered_does_not_load(bell: Any) -> None:
    record = game_record(_played(TOY_PROFILE))
    assert _bell_events(record)
    unregister_kind("bell")
    assert "bell" not in profile_info(bell).decision_kinds and _bell_events(game_record(_played(TOY_PROFILE))) == []
    with pytest.raises(ValueError, match="Input should be .* or 'reshuffle'"):
        replay(record)
