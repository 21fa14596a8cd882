"""Decision kinds that describe themselves: words, prompt, typed answer, replay line.

Legality lives on the ``Choice`` classes (``actions``); everything a person
reads or types about a decision lives here, once per kind, so that the
human seat, the text replay, check-bot and the site viewer never branch on a
kind's name: they look the kind up (``decision_kind``, or ``event_kind`` for
a record's event) and ask it. A kind nobody registered still works through
the defaults: its legal choice lists ``options`` (or carries ``any``), it is
typed by number or name, and its events are told as "seat type".

The prompt and the parser read the legal choice in its wire form (the dict of
``arena.protocol.choice_to_dict``), which is all a seat is ever shown.
Adding a decision kind is registering one ``DecisionKind`` (``register_kind``):
besides its words it names its action's class and JSON form
(``action_type``, ``action_to_dict``, ``action_from_dict``: records, replies
and ``action_from_dict`` then read it) and, for a kind the deal machine does
not ask itself, where deals ask it (``asked_in``, ``ask``, ``take``: the
deal's ``Stage``). docs/architecture.md says what that leaves unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Protocol

from .actions import register_action, unregister_action
from .cards import JOKER, card_str, cards_str
from .deal import STAGES
from .forms import ActionForm, EventForm, LegalForm
from .info import deal_facts, profile_info
from .profile import RuleProfile

if TYPE_CHECKING:
    from .actions import Choice
    from .deal import Deal

#: Suits as the site's sentences write them.
SUIT_NAME = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
#: The deal's phases of the auction (before the maker is known): its bids, in the dark or not, and the widows.
AUCTION_PHASES = frozenset({"dark", "bid", "take_widow"})


def cards_text(cards: list[str] | None) -> str:
    """Cards as typed and shown: space separated, ``-`` for none."""
    return " ".join(cards) if cards else "-"


def option_text(option: ActionForm) -> str:
    """A listed option as it is typed: its type, then its other values ("take_widow")."""
    return " ".join([str(option.get("type")), *(str(v) for k, v in option.items() if k != "type")])


class ReplayWriter(Protocol):
    """Where a kind writes its events in a text replay (``arena.match.show``)."""

    def label(self, seat: int) -> str:
        """The seat as ``N name``."""
        ...

    def seat_name(self, seat: int) -> str:
        """The seat as ``N``."""
        ...

    def bid(self, text: str) -> None:
        """One entry of the bidding line."""
        ...

    def note(self, text: str) -> None:
        """Appended to the last entry of the bidding line (if any)."""
        ...

    def line(self, text: str, flush: bool = True) -> None:
        """A line of its own, indented by the writer (``flush``: the bidding line is written first)."""
        ...


class Narrator(Protocol):
    """Where a kind tells its events in the site viewer's sentences (``arena.publish.site.frames``):
    the deal as it stands after the step, and the step's running counts."""

    deal: "Deal"
    bids_before: int  # bid events of the deal before this one, the round in the dark included
    dark_events: int  # bid events of the round in the dark (0 without one)
    plays_before: int  # cards of the deal played before this one
    trick_ends: dict[int, int]  # cards played when each trick ended -> its index

    def name(self, seat: int) -> str:
        """The seat as the site writes it (``N (name)``)."""
        ...

    def say(self, text: str) -> None:
        """One sentence of the step's text."""
        ...


class DecisionKind:
    """One kind of decision as people meet it. The defaults serve any kind whose legal
    choice lists its ``options`` (or carries ``any``): a kind needs no subclass to work."""

    bidding = False  # its events are entries of the auction (counted as bids)

    def __init__(self, name: str, events: tuple[str, ...] = (), description: str = "") -> None:
        self.name = name
        self.events = events or (name,)  # the record's event types its actions are written as
        self.description = description or f"a {name} decision"

    #: Probes of check-bot that stand for this kind's plain one as well (``probe name -> kind name``).
    probe_aliases: dict[str, str] = {}

    #: A kind the engine's core does not know: the class of its actions (whose JSON form its
    #: ``action_to_dict`` and ``action_from_dict`` write and read, one ``type`` per event type).
    action_type: type | None = None

    def action_to_dict(self, action: Any) -> ActionForm:
        """The JSON form of one of the kind's actions (``action_type``), as records and bots have it."""
        raise NotImplementedError(f"the {self.name} kind names no action_type")

    def action_from_dict(self, d: Mapping[str, object]) -> Any:
        """The action of a JSON form whose ``type`` is one of the kind's events; ValueError says why not."""
        raise NotImplementedError(f"the {self.name} kind names no action_type")

    def asked_in(self, profile: RuleProfile) -> bool:
        """Whether deals under ``profile`` ask this kind themselves through ``ask`` (a kind registered at
        run time; the engine's own kinds are asked by the deal machine: False)."""
        return False

    def ask(self, deal: "Deal") -> "Choice | None":
        """The decision of this kind a deal that has it asks now, before its own next one (None: none now)."""
        return None

    def take(self, deal: "Deal", seat: int, action: Any, forced: bool) -> None:
        """Apply a legal answer to ``deal`` (the event is recorded already): by default nothing more."""

    def most(self, profile: RuleProfile) -> int:
        """The most decisions of this kind one deal under ``profile`` asks (with ``asked_in``)."""
        return 0

    def situation(self, choice: "Choice", deal: "Deal") -> str:
        """The check-bot probe a position of this kind stands for: an edge case's name, else the kind's."""
        return self.name

    def probes(self, profile: RuleProfile) -> set[str]:
        """The probes whose positions the rules of ``profile`` make often enough for a scan to meet
        (the kind is one of the profile's ``decision_kinds``)."""
        return {self.name}

    def prompt(self, legal: LegalForm) -> str:
        """What may be answered, and how to type it."""
        options = legal.get("options")
        if options:  # listed answers: by number or by name
            listed = ", ".join(f"{i} {option_text(o)}" for i, o in enumerate(options, 1))
            return f"{self.name}: type one of {listed}"
        return f"{self.name}: type any (one legal choice)"

    def parse(self, legal: LegalForm, upper: list[str]) -> ActionForm:
        """The typed words (upper case, at least one) as a protocol action; ValueError says why not."""
        options = legal.get("options")
        if options:
            typed = " ".join(upper)
            for i, o in enumerate(options, 1):
                if typed in (str(i), option_text(o).upper()):
                    return o.copy()
            raise ValueError(f"type one of {', '.join(f'{i} {option_text(o)}' for i, o in enumerate(options, 1))}")
        raise ValueError("type any")

    def replay(self, event: EventForm, out: ReplayWriter) -> None:
        """Write one of the kind's events (record form) into a text replay."""
        forced = " (forced)" if event.get("forced") else ""
        out.line(f"{out.label(event['seat'])} {event['type']}{forced}")

    def narrate(self, event: EventForm, out: Narrator) -> None:
        """Tell one of the kind's events as a sentence of the site viewer: the event in record form
        (``EventForm``'s keys), as the viewer builds it from the engine's events."""
        out.say(f"{_who(event, out)} {event['type']}{_forced(event)}.")


def _forced(event: Mapping[str, object]) -> str:
    """(An event in either of its forms: a record's, typed, or the site viewer's dict.)"""
    return " (forced)" if event.get("forced") else ""


def _who(event: Mapping[str, object], out: Narrator) -> str:
    seat = event.get("seat")
    return out.name(seat) if isinstance(seat, int) else ""


class _Bid(DecisionKind):
    bidding = True

    def situation(self, choice: "Choice", deal: "Deal") -> str:
        if deal.phase == "dark":  # a bid before the cards are dealt: the view shows no hand
            return "dark_bid"
        if getattr(choice, "can_pass", False) and len(getattr(choice, "amounts", ())) == 1:
            return "top_bid"
        return self.name

    def probes(self, profile: RuleProfile) -> set[str]:
        return {self.name, "top_bid"} | ({"dark_bid"} if profile_info(profile).dark_bid else set())

    def prompt(self, legal: LegalForm) -> str:
        amounts = [f"{b['amount']}{b['suit']}" for b in legal.get("suited") or []] or [str(b) for b in legal["bids"]]
        return f"bid: {' '.join(amounts)}" + (" or pass" if legal["pass"] else "")

    def parse(self, legal: LegalForm, upper: list[str]) -> ActionForm:
        if upper == ["PASS"] or upper == ["P"]:
            if not legal["pass"]:
                raise ValueError("you may not pass here")
            return {"type": "pass"}
        if len(upper) != 1:
            raise ValueError("one bid: an amount, or pass")
        w = upper[0]
        suited = legal.get("suited")
        if suited:
            for b in suited:
                if w == f"{b['amount']}{b['suit']}":
                    return {"type": "bid", "amount": b["amount"], "suit": b["suit"]}
            raise ValueError(f"not a legal bid: {w} (amount and suit, e.g. {suited[0]['amount']}{suited[0]['suit']})")
        if w.isdigit() and int(w) in legal["bids"]:
            return {"type": "bid", "amount": int(w)}
        raise ValueError(f"not a legal bid: {w}")

    def replay(self, event: EventForm, out: ReplayWriter) -> None:
        amount = f"{event['amount']}{event.get('suit', '')}" if event["type"] == self.events[0] else "pass"
        out.bid(f"{out.seat_name(event['seat'])} {amount}{_forced(event)}")

    def narrate(self, event: EventForm, out: Narrator) -> None:
        who, forced, bid, deal = _who(event, out), _forced(event), event["type"] == self.events[0], out.deal
        out.bids_before += 1
        if out.bids_before <= out.dark_events:
            out.say(f"{who} bids {event['amount']} in the dark, before seeing a card{forced}." if bid
                    else f"{who} does not bid in the dark{forced}.")
            if out.bids_before == out.dark_events and deal.phase != "dark":
                out.say(f"{out.name(deal.dealer)} deals." if not bid or not deal.in_dark else
                        f"{out.name(deal.dealer)} deals; {who} makes it at {event['amount']} and names the trump.")
        else:
            suit = f" {SUIT_NAME[event['suit']]}" if event.get("suit") else ""
            out.say(f"{who} bids {event['amount']}{suit}{forced}." if bid else f"{who} passes{forced}.")


class _Trump(DecisionKind):
    def situation(self, choice: "Choice", deal: "Deal") -> str:
        bid = deal_facts(deal).dealer_bid
        if bid is not None and bid[2]:  # the engine bid for the dealer: "forced" in the history
            return "forced_bid_history"
        if profile_info(deal.profile).widow:  # the maker has taken up its widow, or left it
            return "trump_with_widow"
        return self.name

    def probes(self, profile: RuleProfile) -> set[str]:
        info = profile_info(profile)
        # every trump decision follows the widows where there are some
        return {"trump_with_widow" if info.widow else self.name} | (
            {"forced_bid_history"} if info.forced_dealer_bid else set())
    def prompt(self, legal: LegalForm) -> str:
        return f"name trumps: {' '.join(legal['suits'])}"

    def parse(self, legal: LegalForm, upper: list[str]) -> ActionForm:
        if len(upper) == 1 and upper[0] in legal["suits"]:
            return {"type": "trump", "suit": upper[0]}
        raise ValueError(f"name one of {' '.join(legal['suits'])}")

    def replay(self, event: EventForm, out: ReplayWriter) -> None:
        out.line(f"{out.label(event['seat'])} names {event['suit']} trumps")

    def narrate(self, event: EventForm, out: Narrator) -> None:
        out.say(f"{_who(event, out)} names {SUIT_NAME[event['suit']]} trump{_forced(event)}.")


class _Play(DecisionKind):
    def situation(self, choice: "Choice", deal: "Deal") -> str:
        if getattr(choice, "under_count", 0) > 0:
            return "extra_cards"
        if JOKER in getattr(choice, "cards", ()):  # the joker's text, JK, among the legal cards
            return "joker_play"
        if deal.profile.sides == "called":  # after the call: the three ways the partnership stands
            if deal.alone or deal.partner is None:
                return "play_maker_alone"
            return "play_partner_known" if deal.revealed else "play_partner_hidden"
        return self.name

    def probes(self, profile: RuleProfile) -> set[str]:
        info = profile_info(profile)
        out = {"play_partner_hidden", "play_partner_known"} if info.sides == "called" else {self.name}
        if info.sides == "called" and profile.call_alone:
            out.add("play_maker_alone")
        if info.long_hands:
            out.add("extra_cards")  # a hand of more than six plays its first card with extras under it
        if info.joker:
            out.add("joker_play")
        return out
    def prompt(self, legal: LegalForm) -> str:
        under = (f"; with {legal['under']} under it from {cards_text(legal['under_from'])} (type the top card first)"
                 if legal.get("under") else "")
        return f"play one of: {cards_text(legal['cards'])}{under}"

    def parse(self, legal: LegalForm, upper: list[str]) -> ActionForm:
        top, under = upper[0], upper[1:]
        if top not in legal["cards"]:
            raise ValueError(f"{top} is not a card you may play")
        need = legal.get("under") or 0
        if len(under) != need or len(set(under)) != need or top in under or not set(under) <= set(legal["under_from"]):
            raise ValueError(f"put exactly {need} distinct cards of {cards_text(legal['under_from'])} under it" if need
                             else "play one card")
        return {"type": "play", "card": top, "under": under}

    def replay(self, event: EventForm, out: ReplayWriter) -> None:
        """Nothing: a replay shows the tricks as the engine formed them, after the events."""

    def narrate(self, event: EventForm, out: Narrator) -> None:
        who, deal = _who(event, out), out.deal
        under = event.get("under") or []
        out.say(f"{who} plays {event['card']}" + (f" with {' '.join(under)} under it" if under else "") + f"{_forced(event)}.")
        if (deal.called is not None and event["card"] == card_str(deal.called) and deal.partner is not None
                and deal.maker is not None):
            out.say(f"{who} is {out.name(deal.maker)}'s partner.")  # the called card played: now public
        out.plays_before += 1
        if out.plays_before in out.trick_ends:
            i = out.trick_ends[out.plays_before]
            w = deal.tricks[i].winner
            if w is not None:
                out.say(f"{out.name(w)} wins trick {i + 1}.")


def _card_set(upper: list[str]) -> list[str]:
    return [] if upper == ["-"] else upper


class _Rob(DecisionKind):
    probe_aliases = {"rob_after_reshuffle": "rob"}

    def situation(self, choice: "Choice", deal: "Deal") -> str:
        return "rob_after_reshuffle" if deal.reshuffles > 0 else self.name

    def probes(self, profile: RuleProfile) -> set[str]:
        # at four seats a rob with a choice is common; at two or three the dealer nearly always robs six
        # trumps or more, and at five or six the stock has nearly always run out before the rob
        n = profile_info(profile).players
        return {self.name} if n == 4 else {"rob_after_reshuffle"} if n >= 5 else set()
    def prompt(self, legal: LegalForm) -> str:
        return f"take {legal['take']} of: {cards_text(legal['from'])} (you get {cards_text(legal.get('automatic'))} anyway)"

    def parse(self, legal: LegalForm, upper: list[str]) -> ActionForm:
        cards = _card_set(upper)
        if len(cards) != legal["take"] or len(set(cards)) != len(cards) or not set(cards) <= set(legal["from"]):
            raise ValueError(f"take exactly {legal['take']} distinct cards of {cards_text(legal['from'])}")
        return {"type": "rob", "take": cards}

    def replay(self, event: EventForm, out: ReplayWriter) -> None:
        out.line(f"dealer robs the pack, choosing [{cards_text(event['take'])}]{_forced(event)}", flush=False)

    def narrate(self, event: EventForm, out: Narrator) -> None:
        deal = out.deal
        got = len(deal.rob_taken) + len(deal.blind)
        out.say(f"{_who(event, out)} robs and takes {got} card{'s' if got != 1 else ''}{_forced(event)}"
                + (f", {len(deal.blind)} of them blind from the reshuffled discards" if deal.blind else "") + ".")


class _Discard(DecisionKind):
    def prompt(self, legal: LegalForm) -> str:
        return f"discard {legal['least']} to {legal['most']} of: {cards_text(legal['from'])} (- for none)"

    def parse(self, legal: LegalForm, upper: list[str]) -> ActionForm:
        cards = _card_set(upper)
        if not legal["least"] <= len(cards) <= legal["most"] or len(set(cards)) != len(cards) \
                or not set(cards) <= set(legal["from"]):
            raise ValueError(f"discard {legal['least']} to {legal['most']} distinct cards of {cards_text(legal['from'])}")
        return {"type": "discard", "cards": cards}

    def replay(self, event: EventForm, out: ReplayWriter) -> None:
        out.line(f"{out.label(event['seat'])} discards [{cards_text(event['cards'])}]{_forced(event)}")

    def narrate(self, event: EventForm, out: Narrator) -> None:
        cards, deal = event["cards"], out.deal
        public = set(cards) <= set(cards_str(deal.shown[event["seat"]])) if deal.profile.may_lose_points else False
        out.say(f"{_who(event, out)} discards {len(cards)} card{'s' if len(cards) != 1 else ''}"
                + (f" face up: {' '.join(cards)}" if public else "") + f"{_forced(event)}.")


class _Call(DecisionKind):
    def prompt(self, legal: LegalForm) -> str:
        return f"call one of: {cards_text(legal['cards'])}" + (" or alone" if legal.get("alone") else "")

    def parse(self, legal: LegalForm, upper: list[str]) -> ActionForm:
        if upper == ["ALONE"] and legal.get("alone"):
            return {"type": "call", "alone": True}
        if len(upper) == 1 and upper[0] in legal["cards"]:
            return {"type": "call", "card": upper[0]}
        raise ValueError("call one card you do not hold" + (", or alone" if legal.get("alone") else ""))

    def replay(self, event: EventForm, out: ReplayWriter) -> None:
        called = "goes alone" if event.get("alone") else f"calls {event['card']}"
        out.line(f"{out.label(event['seat'])} {called}{_forced(event)}", flush=False)

    def narrate(self, event: EventForm, out: Narrator) -> None:
        who, forced = _who(event, out), _forced(event)
        out.say(f"{who} goes alone{forced}." if event.get("alone") else f"{who} calls {event['card']}{forced}.")


class _TakeWidow(DecisionKind):
    """Listed answers (the defaults' prompt and parser); told beside the seat's bid."""

    def replay(self, event: EventForm, out: ReplayWriter) -> None:
        out.note(" (takes its widow)" if event["type"] == self.events[0] else " (leaves its widow)")

    def narrate(self, event: EventForm, out: Narrator) -> None:
        who, forced = _who(event, out), _forced(event)
        out.say(f"{who} takes up its widow{forced}." if event["type"] == self.events[0]
                else f"{who} leaves its widow face down{forced}.")


_KINDS: dict[str, DecisionKind] = {}
_EVENTS: dict[str, DecisionKind] = {}


def register_kind(kind: DecisionKind) -> DecisionKind:
    """Make ``kind`` the one its name and its event types are looked up as (a later one replaces it);
    a kind with an ``action_type`` has its actions' JSON form registered, one ``asked_in`` some profile
    is asked by the deals of those profiles from now on."""
    unregister_kind(kind.name)
    if kind.action_type is not None:
        register_action(kind.action_type, kind.events, kind.action_to_dict, kind.action_from_dict)
    _KINDS[kind.name] = kind
    for e in kind.events:
        _EVENTS[e] = kind
    if type(kind).asked_in is not DecisionKind.asked_in:
        STAGES.append(kind)
    profile_info.cache_clear()  # a profile's decision kinds include the stages it has
    return kind


def unregister_kind(name: str) -> None:
    """Forget a registered kind (a test's toy kind); a core kind is never needed gone."""
    kind = _KINDS.pop(name, None)
    if kind is not None:
        for e in kind.events:
            if _EVENTS.get(e) is kind:
                del _EVENTS[e]
        if kind.action_type is not None:
            unregister_action(kind.action_type, kind.events)
        if kind in STAGES:
            STAGES.remove(kind)
        profile_info.cache_clear()


def decision_kind(name: str) -> DecisionKind:
    """The kind named ``name`` (a request's ``kind``); one nobody registered gets the defaults."""
    return _KINDS.get(name) or DecisionKind(name)


def event_kind(event_type: str) -> DecisionKind | None:
    """The decision kind a record's event type belongs to; None for an event no seat chose (a reshuffle)."""
    return _EVENTS.get(event_type)


for _kind in (
    _Bid("bid", ("bid", "pass"), "a bid of one of the legal amounts, or a pass"),
    _TakeWidow("take_widow", ("take_widow", "leave_widow"), "whether to take up the face-down widow or leave it"),
    _Trump("trump", description="the trump suit, named by the maker"),
    _Discard("discard", description="cards laid away once trump is named"),
    _Rob("rob", description="the cards the dealer takes from the stock"),
    _Call("call", description="the card whose holder is the maker's partner, or going alone"),
    _Play("play", description="a card to the trick (a long hand's first one with extras under it)"),
):
    register_kind(_kind)
