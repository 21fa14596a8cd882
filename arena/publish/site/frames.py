"""The replay viewer's data: each game replayed through the engine, one frame per step.

The viewer (``assets/viewer.js``) knows no rule: everything it draws comes
from here, and everything here comes from the engine (``arena.engine``)
replaying the record decision by decision. A step ends where a player was
asked for a decision (the forced actions the engine applied on its own
belong to the step that led to them), at the end of each deal and at the
end of the game. Each frame holds

* ``views``: every seat's view exactly as the engine gives it
  (``View.to_dict()``, rules 9), stored as the keys all seats share
  (``pub``) and each seat's own keys (``seats``: four, or n at a table of
  n seats, where what a seat knows of the sides is its own too);
* ``table``: public facts a view leaves out (how many cards each hand
  holds, whose turn, who sits out, the deals played, the step's result);
* ``all``: what only the omniscient view adds (the stock, the discard pile,
  the kitty, the widows, the rob, the cards out of play, and at a table of
  changing sides each seat's side in the deal);
* ``text``: what happened in the step, naming only public cards.

Frames are stored as the first one and, for each later one, a patch of the
one before (``diff``): most of a frame is the same as the last.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Sequence, cast

from pydantic import JsonValue

from ...engine import AUCTION_PHASES, SUIT_NAME, event_kind, rules_text
from ...engine import Deal, Game, ReplayMismatch, action_to_dict, card_str, cards_str, replay
from ...engine.cards import SUITS
from ...engine.forms import EventForm
from ...engine import DeckSource
from ...engine.record import RecordedSource, load_record, recorded_decisions, recorded_source
from ...engine.view import deal_view, summarize, summary_dict
from ...match.show import seat_names
from ...match.stored import StoredGame
from ...results import JsonObject

REPLAY_FORMAT = "cinch-replay"
REPLAY_VERSION = 1
END_TEXT = {"target": "a side reached the target", "bidder_out": "the bidders went out",
            "moon": "a moon bid decided it", "floor": "a side fell through the floor",
            "deals": "the fixed number of deals was played", "cap": "stopped by the deal cap: unfinished"}


@dataclass(frozen=True)
class ScoreRow:
    """What one entry of a game's ``scores`` belongs to: a side of two pairs, or one seat."""

    label: str
    seats: list[int]

    def to_json(self) -> JsonObject:
        return {"label": self.label, "seats": list[JsonValue](self.seats)}


def score_rows(players: int, sides: str) -> list[ScoreRow]:
    """What each entry of a game's ``scores`` belongs to, for the viewer's scores table: a side of two
    pairs (its label and seats), or one seat at a table of single scores."""
    names = seat_names(players)
    if sides == "pairs":
        return [ScoreRow(f"{names[s]}+{names[s + 2]}", [s, s + 2]) for s in (0, 1)]
    return [ScoreRow(names[s], [s]) for s in range(players)]


# ------------------------------------------------------------------ patches


_SAME = object()
_CONTAINERS = (dict, list)
_INDEX = [str(i) for i in range(64)]


def diff(old: Any, new: Any) -> Any:
    """A patch turning ``old`` into ``new`` (``_SAME`` when equal).

    An object patches a dict key by key (or a list index by index, with the
    items appended under ``"+"``); a list is a value: ``[]`` deletes the key, ``[v]`` replaces
    it with ``v``, ``[k, tail]`` keeps the first ``k`` items of a list and
    appends ``tail``. ``apply_patch`` (and the viewer's ``patch``) undo it.
    """
    if old is new:
        return _SAME
    if type(old) is dict and type(new) is dict:
        out: JsonObject = {}  # a patch is JSON: the viewer reads it
        get = old.get
        for k, v in new.items():
            o = get(k, _SAME)
            if o is v or o == v:
                continue
            if o is _SAME:
                out[k] = [v]
                continue
            # a changed value that is not a container is replaced outright (no call for it)
            out[k] = diff(o, v) if type(v) in _CONTAINERS and type(o) is type(v) else [v]
        for k in old:
            if k not in new:
                out[k] = []
        return out if out else _SAME
    if type(old) is list and type(new) is list:
        n = len(old)
        if n and n <= len(new):  # items patched in place, any new ones appended ("+")
            out = {}
            for i in range(n):
                o, v = old[i], new[i]
                if o is not v and o != v:
                    out[_INDEX[i] if i < 64 else str(i)] = diff(o, v) if type(v) in _CONTAINERS and type(o) is type(v) else [v]
            if len(new) > n:
                out["+"] = new[n:]
            return out if out else _SAME
        k = 0
        while k < n and k < len(new) and old[k] == new[k]:
            k += 1
        if k:
            return [k, new[k:]]
    return _SAME if old == new else [new]


def apply_patch(old: Any, p: Any) -> Any:
    """``new`` from ``old`` and ``diff(old, new)`` (the viewer does the same in JavaScript)."""
    if isinstance(p, list):
        return p[0] if len(p) == 1 else old[: p[0]] + p[1]
    out: Any = list(old) if isinstance(old, list) else dict(old)
    if isinstance(old, list) and "+" in p:
        out.extend(p["+"])
    for k, q in p.items():
        if k == "+" and isinstance(old, list):
            continue
        key: Any = int(k) if isinstance(old, list) else k
        if isinstance(q, list) and not q:
            del out[key]
        elif isinstance(q, list) and len(q) == 1:
            out[key] = q[0]
        else:
            out[key] = apply_patch(out[key], q)
    return out


def unpack(frames: JsonObject) -> list[JsonObject]:
    """Every frame of a game's stored ``frames`` (``first`` and ``patches``)."""
    first, patches = frames["first"], frames["patches"]
    assert isinstance(first, dict) and isinstance(patches, list)
    out = [first]
    for p in patches:
        out.append(apply_patch(out[-1], p))
    return out


def seat_view(frame: JsonObject, seat: int) -> JsonObject:
    """The engine's view of ``seat`` at ``frame`` (``View.to_dict()``), put back together."""
    pub, seats = frame["pub"], frame["seats"]
    assert isinstance(pub, dict) and isinstance(seats, list)
    own = seats[seat]
    assert isinstance(own, dict)
    return {**pub, **own}


# ------------------------------------------------------------------ the rules line


#: One line naming the profile and what a viewer of its games needs to know of its rules (the engine's).
rules_line = rules_text


# ------------------------------------------------------------------ frames


@dataclass(frozen=True)
class TableFacts:
    """Public facts a view leaves out: how many cards each hand holds, whose turn, who sits out, the deals
    played (as the views list them), the deal's line and result; the final frame adds the final scores."""

    hand_counts: list[int]
    dealt_counts: list[int]
    widow_counts: list[int] | None
    kitty_count: int
    to_act: int | None
    sitting: list[int]
    redeal: bool
    in_dark: bool
    deals: list[JsonObject]
    info: str
    result: str | None
    final_scores: list[int] | None = None

    def to_json(self) -> JsonObject:
        out = {"hand_counts": self.hand_counts, "dealt_counts": self.dealt_counts, "widow_counts": self.widow_counts,
               "kitty_count": self.kitty_count, "to_act": self.to_act, "sitting": self.sitting, "redeal": self.redeal,
               "in_dark": self.in_dark, "deals": self.deals, "info": self.info, "result": self.result}
        if self.final_scores is not None:
            out["final_scores"] = self.final_scores
        return cast(JsonObject, out)


@dataclass(frozen=True)
class Omniscient:
    """What only the omniscient view adds: the stock, the discard pile, the kitty, the widows, the rob, the
    point cards out of play (seat, card), and at a table of changing sides each seat's side in the deal."""

    stock: list[str]
    pile: list[str]
    kitty: list[str]
    widows: list[list[str]] | None
    rob_stock: list[str] | None
    rob_taken: list[str] | None
    out_points: list[tuple[int, str]]
    sides: list[int] | None

    def to_json(self) -> JsonObject:
        return cast(JsonObject, {"stock": self.stock, "pile": self.pile, "kitty": self.kitty, "widows": self.widows,
                                 "rob_stock": self.rob_stock, "rob_taken": self.rob_taken,
                                 "out_points": [[s, c] for s, c in self.out_points], "sides": self.sides})


@dataclass(frozen=True)
class Frame:
    """One step of the viewer: every seat's view (``pub``, the keys all share; ``seats``, each one's own),
    the table's public facts, the omniscient additions and what happened, in words."""

    deal: int
    events: int
    text: str
    final: bool
    pub: JsonObject
    seats: list[JsonObject]
    table: TableFacts
    all: Omniscient

    def to_json(self) -> JsonObject:
        """The frame as the viewer reads it (``assets/viewer.js``)."""
        return cast(JsonObject, {"deal": self.deal, "events": self.events, "text": self.text, "final": self.final,
                                 "pub": self.pub, "seats": self.seats, "table": self.table.to_json(),
                                 "all": self.all.to_json()})


@dataclass
class _Step:
    """Where one frame stands: the deal and how many of its events had happened."""

    deal: int
    events: int
    frame: Frame


@dataclass
class _Cursor:
    """Where the last frame stood: its deal, the deal's events and phase then, the cards played so far,
    and the finished deals (in view form; ``previous``: those before the current deal, one shared list)."""

    deal: int = 0
    events: int = 0
    phase: str = ""
    plays: list[int] = field(default_factory=lambda: [0])
    done: list[JsonObject] = field(default_factory=list)
    previous: list[JsonObject] = field(default_factory=list)


@dataclass
class Replayed:
    """A record replayed step by step: the game (None if the record does not load) and its frames."""

    game: Game | None
    steps: list[_Step] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _summary(deal: Deal) -> JsonObject:
    """A finished deal as the views' ``previous`` list it (the engine's own conversion)."""
    return summary_dict(summarize(deal))


class _Namer:
    def __init__(self, names: Sequence[str], players: int = 4) -> None:
        self.names = list(names)
        self.seats = seat_names(players)

    def __call__(self, seat: int) -> str:
        n = self.names[seat] if seat < len(self.names) else ""
        return self.seats[seat] + (f" ({n})" if n else "")


def _sitting(deal: Deal) -> list[int]:
    """Seats out of the tricks: in play, a seat left without cards; at the end, one that missed a trick."""
    if deal.phase == "play":
        return [s for s in range(deal.n) if not deal.hands[s]]
    if deal.done and deal.tricks:
        played = [sum(1 for t in deal.tricks for p in t.plays if p[0] == s) for s in range(deal.n)]
        return [s for s in range(deal.n) if played[s] < len(deal.tricks)]
    return []


# The keys of a view (``View.to_dict()``) that differ from seat to seat: the seat's own cards, and the
# rob's cards, which only the dealer sees. Every other key is the same in the four views (rule 9.1).
SEAT_KEYS = ("seat", "partner", "hand", "dealt", "discarded", "received", "rob_stock", "rob_taken")
# At a table of changing sides a seat's knowledge of the sides is its own as well (a called partner).
TABLE_SEAT_KEYS = (*SEAT_KEYS, "sides")


def _views(deal: Deal, previous: list[JsonObject]) -> tuple[JsonObject, list[JsonObject]]:
    """Every seat's view (``View.to_dict()``) as the keys they share and each seat's own keys.

    One view is converted in full (the engine's ``deal_view``) and gives the shared keys; the other
    seats' own keys are the dealer's view (the only one that sees the rob) or the same few card lists
    of their own hand. At a table without fixed pairs every seat's view is converted in full (what a
    seat knows of the sides is its own). The frames tests compare every seat's with ``Game.view`` at
    every decision point under every profile, so this stays what the engine gives.
    """
    dealer = deal.dealer
    full = deal_view(deal, dealer).to_dict()
    full["previous"] = previous  # the earlier deals' outcomes, as Game.view gives them (one shared list)
    if deal.profile.sides != "pairs":
        own = [full if s == dealer else deal_view(deal, s).to_dict() for s in range(deal.n)]
        return ({k: v for k, v in full.items() if k not in TABLE_SEAT_KEYS},
                [{k: v.get(k) for k in TABLE_SEAT_KEYS} for v in own])
    shared = {k: v for k, v in full.items() if k not in SEAT_KEYS}
    seats: list[JsonObject] = []
    for s in range(4):
        if s == dealer:
            seats.append({k: full[k] for k in SEAT_KEYS})
        else:
            seats.append(cast(JsonObject, {
                "seat": s, "partner": (s + 2) % 4, "hand": cards_str(deal.hands[s]), "dealt": cards_str(deal.dealt[s]),
                "discarded": cards_str(deal.discarded[s]), "received": cards_str(deal.received[s]), "rob_stock": None,
                "rob_taken": None}))
    return shared, seats


def _frame(deal: Deal, previous: list[JsonObject], before: list[JsonObject], name: _Namer, text: str) -> Frame:
    """The frame of ``deal`` now; ``previous``: the deals played before it as the views list them
    (``before``: the same plus the deal itself once done); ``text``: what happened in the step."""
    shared, seats = _views(deal, previous)
    done = deal.done
    trump = deal.trump
    points_of = deal.profile.point_table(trump) if trump is not None else None
    table = TableFacts(
        hand_counts=[len(h) for h in deal.hands],
        dealt_counts=[len(h) for h in deal.dealt],
        widow_counts=[len(w) for w in deal.widows] if deal.profile.widow else None,
        kitty_count=len(deal.kitty),
        to_act=None if done else deal.to_act,
        sitting=_sitting(deal),
        redeal=deal.redeal,
        in_dark=deal.in_dark,
        deals=before,
        info=_info(deal, name),
        result=_result(deal, name) if done else None,
    )
    phase = deal.phase
    rob_stock: list[str] | None = None
    rob_taken: list[str] | None = None
    if phase == "rob":
        rob_stock, rob_taken = cards_str(deal.rob_pool()), []
    elif phase in ("play", "done") and (deal.rob_stock or deal.rob_taken):
        rob_stock, rob_taken = cards_str(deal.rob_stock), cards_str(deal.rob_taken)
    out_points: list[tuple[int, str]] = []
    if points_of is not None and deal.out:
        out_points = [(s, card_str(c)) for s, c in deal.out if points_of[c]]
    omniscient = Omniscient(
        stock=cards_str(deal.stock), pile=cards_str(deal.pile), kitty=cards_str(deal.kitty),
        widows=[cards_str(w) for w in deal.widows] if deal.profile.widow else None,
        rob_stock=rob_stock, rob_taken=rob_taken, out_points=out_points,
        sides=list(deal.side_of) if deal.profile.sides == "called" and deal.side_of else None,
    )
    return Frame(deal.index, len(deal.events), text, False, shared, seats, table, omniscient)


def _info(deal: Deal, name: _Namer) -> str:
    """The deal's line: dealer, maker and bid, trump (all public once known)."""
    parts = [f"dealer {name(deal.dealer)}"]
    if deal.redeal:
        parts.append("void: everyone passed")
    elif deal.maker is not None and deal.phase not in ("bid", "dark"):
        dark = deal.profile.dark_bid
        parts.append(f"maker {name(deal.maker)} at {deal.high}" + (f" in the dark (worth {dark})" if deal.in_dark else ""))
    if deal.trump is not None:
        parts.append(f"trump {SUIT_NAME[SUITS[deal.trump]]}")
    if deal.alone:
        parts.append("the maker goes alone")
    elif deal.called is not None:
        parts.append(f"called {card_str(deal.called)}" + (
            f": partner {name(deal.partner)}" if deal.revealed and deal.partner is not None else
            ": nobody held it, the maker plays alone" if deal.done and deal.partner is None else ""))
    return f"Deal {deal.index + 1}: " + "; ".join(parts) + "."


def _points_text(deal: Deal, name: "_Namer") -> str:
    """The deal's points by side: two pairs (side 0, side 1), the maker's side and the rest at a called
    partner, every seat at cut-throat (the engine's ``points`` are per side, docs/rules.md 14)."""
    pts = deal.points or (0, 0)
    if deal.profile.sides == "called":
        return f"maker's side {pts[0]}, the rest {pts[1]}"
    if deal.profile.sides == "each":
        return ", ".join(f"{name(s)} {pts[s]}" for s in range(deal.n))
    return f"{pts[0]} - {pts[1]}"


def _result(deal: Deal, name: "_Namer") -> str:
    if deal.redeal:
        return "Everyone passed: a void deal, dealt again by the next dealer."
    lost = f" ({deal.lost} out of play, for nobody)" if deal.lost else ""
    who = "bidders" if deal.profile.sides == "pairs" else "maker's side" if deal.profile.sides == "called" else "maker"
    return f"Points {_points_text(deal, name)}{lost}; {who} {'made it' if deal.made else 'set'}."


@dataclass
class _Teller:
    """The step's sentences, as the decision kinds tell their events into them (``Narrator``)."""

    deal: Deal
    name: _Namer
    out: list[str]
    bids_before: int
    dark_events: int
    plays_before: int
    trick_ends: dict[int, int]

    def say(self, text: str) -> None:
        self.out.append(text)


def _describe(deal: Deal, events: list[EventForm], start: bool, name: _Namer, phase_before: str,
              plays: list[int]) -> str:
    """What happened in ``events`` (the step's, in record form) of ``deal``, in public terms; ``start``:
    the step opens the deal; ``plays``: how many cards of the deal were played before (updated)."""
    out: list[str] = []
    if start:
        first = next((e["seat"] for e in events if e.get("seat") is not None), deal.to_act)
        if deal.profile.dark_bid is not None:
            out.append(f"Deal {deal.index + 1}: before {name(deal.dealer)} deals, each seat may bid "
                       f"{deal.profile.deal_points} in the dark (worth {deal.profile.dark_bid}); {name(first)} first.")
        else:
            out.append(f"Deal {deal.index + 1}: {name(deal.dealer)} deals {len(deal.dealt[0])} cards each"
                       + (f" and {deal.profile.widow} face down before each seat" if deal.profile.widow else "")
                       + (f" and {deal.profile.kitty} face down to the kitty" if deal.profile.kitty else "")
                       + f"; {name(first)} bids first.")
    dark_events = len(deal.dark) if deal.profile.dark_bid is not None else 0
    # which trick each play belongs to, and where tricks end
    ends: dict[int, int] = {}
    k = 0
    for i, t in enumerate(deal.tricks):
        k += len(t.plays)
        ends[k] = i
    kinds = [event_kind(e["type"]) for e in events]
    bids = sum(1 for kind in kinds if kind is not None and kind.bidding)
    teller = _Teller(deal, name, out, len(deal.bids) + (len(deal.dark) if dark_events else 0) - bids, dark_events,
                     plays[0], ends)
    for e, kind in zip(events, kinds):
        if kind is not None:  # each decision kind tells its own events (arena.engine.kinds)
            kind.narrate(e, teller)
        elif e["type"] == "reshuffle":  # the one event no seat chooses
            out.append("The discard pile is reshuffled into the stock.")
    plays[0] = teller.plays_before
    if phase_before in AUCTION_PHASES and deal.phase not in AUCTION_PHASES \
            and deal.maker is not None:
        out.append(f"{name(deal.maker)} makes it at {deal.high}.")
        for s in deal.left_widows:  # the bidding is over: a widow left is turned face up (rules 12.14)
            out.append(f"{name(s)}'s widow is turned face up, out of play: {' '.join(cards_str(deal.widows_dealt[s]))}.")
    if deal.done:
        if deal.redeal:
            out.append("Everyone passed: the deal is void, no score, and the next dealer deals again.")
        else:
            after = deal.scores_after or (0, 0)
            who = "bidders" if deal.profile.sides == "pairs" else "maker's side" if deal.profile.sides == "called" else "maker"
            out.append(f"Deal over: points {_points_text(deal, name)}" + (f" ({deal.lost} out of play, for nobody)" if deal.lost else "")
                       + f"; the {who} {'made' if deal.made else 'are set at' if who != 'maker' else 'is set at'} {deal.high};"
                       f" scores {' - '.join(map(str, after))}.")
    elif deal.phase == "play" and phase_before != "play":
        out.append(f"{name(deal.to_act)} leads.")
    return " ".join(out)


def _events(deal: Deal, start: int) -> list[EventForm]:
    """The deal's events from ``start`` on, in their record form (docs/records.md: the engine's)."""
    out: list[EventForm] = []
    for ev in deal.events[start:]:
        if ev[0] == "act":
            d = cast(EventForm, action_to_dict(ev[2]))  # a fresh action form, to which the event adds its seat
            d["seat"], d["forced"] = ev[1], ev[3]
            out.append(d)
        else:
            out.append({"type": "reshuffle"})
    return out


def replay_steps(record: JsonObject, names: Sequence[str] = ()) -> Replayed:
    """Replay ``record`` decision by decision through the engine and take a frame at every step.

    The record is checked as ``replay`` checks it (any difference from the
    engine's game is a warning); a record that does not load has no frames.
    """
    out = Replayed(None)
    try:
        checked: Game | None = replay(record)
    except ReplayMismatch as e:
        out.warnings.append(str(e))
        checked = None
    except ValueError as e:
        return Replayed(None, warnings=[f"the record does not load: {e}"])
    if checked is not None:  # the same game again, step by step, from the checked game's own chance and actions
        source: DeckSource = RecordedSource(
            checked.first_dealer, [list(d.deck) for d in checked.deals],
            {(d.index, ev[1]): list(ev[2]) for d in checked.deals for ev in d.events if ev[0] == "reshuffle"},
            [d.origin for d in checked.deals], checked.key, [d.reshuffle_key for d in checked.deals])
        decisions = [ev[2] for d in checked.deals for ev in d.events if ev[0] == "act" and not ev[3]]
        game = Game(checked.profile, source=source, max_deals=checked.max_deals, fixed_deals=checked.fixed_deals)
    else:  # an edited record: the steps its decisions make, up to one the rules refuse
        rec = load_record(record)
        decisions = [a for _, a in recorded_decisions(rec)]
        game = Game(rec.profile, source=recorded_source(rec), max_deals=rec.max_deals, fixed_deals=rec.fixed_deals)
    out.game = game
    name = _Namer(names, game.profile.players)
    at = _Cursor()

    def snap() -> None:
        first = at.deal
        for k in range(first, len(game.deals)):
            deal = game.deals[k]
            if len(at.done) < k:
                at.done.extend(_summary(game.deals[j]) for j in range(len(at.done), k))
                at.previous = at.done[:k]
            if k != first or not at.phase:  # the step opens deal k
                at.events, at.phase, at.plays[0] = 0, "", 0
            text = _describe(deal, _events(deal, at.events), at.events == 0, name, at.phase, at.plays)
            frame = _frame(deal, at.previous, at.previous + [_summary(deal)] if deal.done else at.previous, name, text)
            out.steps.append(_Step(k, len(deal.events), frame))
            at.deal, at.events, at.phase = k, len(deal.events), deal.phase

    snap()
    for action in decisions:
        try:
            game.apply(action)
        except (ValueError, RuntimeError) as e:
            out.warnings.append(f"the record does not replay: {e}")
            break
        snap()
    return out


def _final(game: Game, last: Frame, name: _Namer, forfeit_by: int | None) -> Frame:
    """The last step's frame once more, with every deal played, the final scores and how the game ended."""
    deals = [_summary(d) for d in game.deals if d.done]
    if forfeit_by is not None:
        text = f"Game over: {name(forfeit_by)} forfeited (a fault)."
    elif not game.over:
        text = "The record ends here (the game was saved before it ended)."
    else:
        why = END_TEXT.get(game.end_reason or "")
        rows = score_rows(game.profile.players, game.profile.sides)
        who = ("no winner" if game.winner is None else
               f"{name(game.winner)} wins" if game.profile.sides != "pairs" else f"side {rows[game.winner].label} wins")
        if game.profile.sides != "pairs" and why:
            why = why.replace("a side reached", "a seat reached")
        text = f"Game over: {who}" + (f" ({why})" if why else "") + "."
    return replace(last, final=True, text=text + f" Final scores {' - '.join(map(str, game.scores))}.",
                   table=replace(last.table, deals=deals, final_scores=list(game.scores)))


def viewer_data(record: JsonObject, *, id: str, names: Sequence[str] = (), twin: str | None = None,
                forfeit_by: int | None = None, title: str | None = None, twins: Sequence[str] = ()) -> JsonObject:
    """What the viewer shows of one game: its rules line, warnings and frames (first and patches)."""
    return game_data(record, id=id, names=names, twin=twin, forfeit_by=forfeit_by, title=title, twins=twins)[0]


def game_data(record: JsonObject, *, id: str, names: Sequence[str] = (), twin: str | None = None,
              forfeit_by: int | None = None, title: str | None = None,
              twins: Sequence[str] = ()) -> tuple[JsonObject, Game | None]:
    """``viewer_data`` and the engine's replayed game when the record replayed as recorded (None
    otherwise), for the statistics to read the same replay. ``twins``: every other game of the
    block (the duplicate twin, or a table's other rotations); ``twin`` the first of them."""
    r = replay_steps(record, names)
    twins = list(twins) or ([twin] if twin else [])
    out: JsonObject = {"id": id, "twin": twin if twin is not None else (twins[0] if twins else None),
                       "twins": list[JsonValue](twins), "names": list[JsonValue](names), "title": title,
                       "warnings": list[JsonValue](r.warnings)}
    if r.game is None or not r.steps:
        out.update(rules=None, frames=None)
        return out, None
    prof = r.game.profile
    out.update(seat_names=list(seat_names(prof.players)),
               score_rows=[row.to_json() for row in score_rows(prof.players, prof.sides)], sides=prof.sides)
    name = _Namer(names, prof.players)
    steps = [s.frame for s in r.steps]
    frames = [f.to_json() for f in [*steps, _final(r.game, steps[-1], name, forfeit_by)]]
    patches = []
    for a, b in zip(frames, frames[1:]):
        d = diff(a, b)
        patches.append({} if d is _SAME else d)
    out.update(rules=rules_line(r.game.profile), frames={"first": frames[0], "patches": patches})
    return out, (r.game if not r.warnings else None)


def replay_file(games: list[StoredGame], only: str | None = None) -> JsonObject:
    """The file ``arena site frames`` writes for the "open a game" page: every game of a file
    (``match.stored.read_games``), or game ``only`` and its duplicate twin when the file holds it."""
    if only is not None:
        ids = {g.id for g in games}
        if only not in ids:
            raise ValueError(f"no game {only!r} in the file (it holds {', '.join(sorted(ids)[:5])}"
                             f"{', ...' if len(ids) > 5 else ''})")
        mine = next(g for g in games if g.id == only)
        block = {only, *mine.twins} | ({mine.twin} if mine.twin else set())
        games = sorted((g for g in games if g.id in block), key=lambda g: g.id != only)
    return {"format": REPLAY_FORMAT, "version": REPLAY_VERSION,
            "games": [viewer_data(g.record, id=g.id, names=g.names, twin=g.twin, forfeit_by=g.forfeit_by, title=g.title,
                                  twins=g.twins) for g in games]}


def replay_js(data: JsonObject) -> str:
    """replays/<id>.js: what the viewer shows of one game (``viewer_data``), as one call."""
    return f"cinchGame({json.dumps(data['id'])}, {json.dumps(data, separators=(',', ':'))});\n"
