"""A person at a seat: the seat's view printed on a terminal, a choice typed back.

``arena play --human SEAT`` puts one in a game. It sees exactly the
``decide`` and notices a bot would read (so only what its seat may know),
shown as text, and answers in a short form:

* bid: ``pass`` or an amount (``9``; ``9H`` where bids name their suit)
* trump: a suit (``H``)
* play: a card (``KC``); a long hand's first card with its under cards
  after it (``KH 3H 4H``)
* rob, discard: the cards, separated by spaces (``-`` for none)
* a decision that lists its answers (``take_widow``): the answer's number
  or its name (``1``, ``leave_widow``)
* a decision whose legal choice names one legal action (the kinds a rule
  profile adds: ``take_widow``, ``discard``, ``call``, ...): ``any`` for it
* any decision: ``?`` (the choice again)

A reply that is not legal is explained and asked again: a person is never
faulted for a typo. End of input resigns the game (a ``crash`` fault, as
for a bot that exits).
"""

from __future__ import annotations

from typing import Callable, TextIO, TypedDict, cast

from ..engine import action_from_dict, decision_kind
from ..engine import cards_text as _cards
from .._json import JsonObject
from ..engine.forms import ActionForm, LegalForm, ViewForm
from .base import Decision, Fault, Player

SEATS = ("N", "E", "S", "W")


def _seats(players: object) -> tuple[str, ...]:
    """Seat names: N E S W at four, P1 ... Pn at other tables (as arena play writes them); ``players``
    as a view or a profile names it (none: four)."""
    n = int(players) if isinstance(players, (int, str)) and players else 4
    return SEATS if n == 4 else tuple(f"P{s + 1}" for s in range(n))


class _Notice(TypedDict, total=False):
    """The fields of the notices a person is told (``protocol.wire``: game, deal, deal_end, game_end)."""

    type: str
    profile: JsonObject  # game
    index: int  # deal, deal_end
    dealer: int
    hand: list[str]
    maker: int | None  # deal_end
    bid: int
    made: bool | None
    points: list[int]
    scores: list[int]  # deal_end, game_end
    winner: int | None  # game_end
    reason: str


def show_view(view: ViewForm) -> list[str]:
    """The seat's view as a few lines of text."""
    me = view["seat"]
    SEATS = _seats(view.get("players"))  # (the seat names of this view's table, for the lines below)
    partner, maker = view["partner"], view["maker"]
    mate = f" (partner {SEATS[partner]})" if partner is not None else ""  # (always, at two pairs)
    if view.get("sides") is None:
        out = [f"you are {SEATS[me]}{mate}; dealer {SEATS[view['dealer']]}; "
               f"deal {view['deal_index'] + 1}, scores us {view['scores'][me % 2]} : them {view['scores'][1 - me % 2]}"]
    else:  # each seat's own score; a called partner once this seat may know it
        scores = ", ".join(f"{SEATS[s]} {v}" for s, v in enumerate(view["scores"]))
        out = [f"you are {SEATS[me]}{mate}; dealer {SEATS[view['dealer']]}; deal {view['deal_index'] + 1}, scores {scores}"]
        if "called" in view:
            out.append("the maker goes alone" if view.get("alone") else f"the maker called {view['called']}")
    out.append(f"your hand: {_cards(view.get('hand'))}")
    if view.get("received"):
        out.append(f"you received: {_cards(view['received'])}")
    dark = view.get("dark") or []
    if dark:
        out.append("in the dark: " + ", ".join(f"{SEATS[b['seat']]} {b['amount'] or 'no'}" for b in dark))
    for s, cards in enumerate(view.get("shown") or []):
        if cards:
            out.append(f"{SEATS[s]} laid face up: {_cards(cards)}")
    bids = view.get("bids") or []
    if bids:
        out.append("bidding: " + ", ".join(f"{SEATS[b['seat']]} {b['amount'] or 'pass'}{b.get('suit') or ''}" for b in bids))
    if view.get("trump") and maker is not None:  # (a trump named: a maker)
        out.append(f"{SEATS[maker]} made it at {view['bid']}, trumps {view['trump']}")
    tricks = view.get("tricks") or []
    for t in tricks[-2:]:
        plays = ", ".join(f"{SEATS[p['seat']]} {p['card']}" + (f" (under: {_cards(p['under'])})" if p.get("under") else "")
                          for p in t["plays"])
        w = t["winner"]
        won = f"; won by {SEATS[w]}" if w is not None else ""
        out.append(f"trick led by {SEATS[t['leader']]}: {plays or 'you lead'}{won}")
    return out


def show_legal(kind: str, legal: LegalForm) -> str:
    """What may be answered, and how to type it (the kind says: ``arena.engine.kinds``)."""
    return decision_kind(kind).prompt(legal)


def parse_reply(kind: str, legal: LegalForm, text: str) -> ActionForm:
    """The typed reply as a protocol action; ValueError says why it is not legal."""
    upper = [w.upper() for w in text.replace(",", " ").split()]
    if upper == ["ANY"]:
        any_ = legal.get("any")
        if any_ is None:
            raise ValueError("this decision names no 'any': type a choice (? shows it again)")
        return any_.copy()
    if not upper:
        raise ValueError("type a choice (? shows it again)")
    return decision_kind(kind).parse(legal, upper)


class HumanPlayer(Player):
    """One seat played by a person through two text streams (a terminal's stdin and stdout)."""

    def __init__(self, read: Callable[[], str], out: TextIO, name: str = "you") -> None:
        self.readline = read  # returns "" at end of input, as TextIO.readline does
        self.out = out
        self.name = name
        self.seats: tuple[str, ...] = SEATS  # seat names of the game's table (from the game message)
        self.pairs = True

    def _say(self, *lines: str) -> None:
        print(*lines, sep="\n", file=self.out, flush=True)

    def notify(self, msg: JsonObject) -> Fault | None:
        m = cast(_Notice, msg)  # a notice of the harness's own
        t = m["type"]
        seats = self.seats
        if t == "game":
            profile = m.get("profile") or {}
            self.seats = _seats(profile.get("players"))
            self.pairs = profile.get("sides", "pairs") == "pairs"
        elif t == "deal":
            self._say("", f"=== deal {m['index'] + 1}: {seats[m['dealer']]} deals; your cards: {_cards(m['hand'])}")
        elif t == "deal_end":
            pts = m.get("points") or [0, 0]
            maker = m.get("maker")
            made = "" if maker is None else f"{seats[maker]} bid {m.get('bid')} and {'made' if m.get('made') else 'was set'}; "
            if self.pairs:
                self._say(f"deal over: {made}points N-S {pts[0]}, E-W {pts[1]}; scores N-S {m['scores'][0]}, E-W {m['scores'][1]}")
            else:
                scores = ", ".join(f"{seats[s]} {v}" for s, v in enumerate(m["scores"]))
                self._say(f"deal over: {made}points by side {' : '.join(map(str, pts))}; scores {scores}")
        elif t == "game_end":
            w = m.get("winner")
            who = ("N-S" if w == 0 else "E-W") if self.pairs and w is not None else seats[w] if w is not None else "no winner"
            self._say(f"game over: {who} ({' : '.join(map(str, m['scores']))}, {m.get('reason')})")
        return None

    def decide(self, request: JsonObject) -> Decision:
        kind, legal = str(request["kind"]), cast(LegalForm, request["legal"])
        view = cast(ViewForm, request["view"])
        self._say("", *show_view(view), show_legal(kind, legal))
        while True:
            print("> ", end="", file=self.out, flush=True)
            line = self.readline()
            if not line:
                return Decision(None, Fault("crash", "the person at this seat stopped (end of input)", request))
            if line.strip() == "?":
                self._say(*show_view(view), show_legal(kind, legal))
                continue
            try:
                raw = parse_reply(kind, legal, line)
                return Decision(action_from_dict(raw), raw=line.strip())
            except ValueError as e:
                self._say(f"not legal: {e}")
