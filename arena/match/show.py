"""Games for people to read, rendered from the record alone.

The same renderer serves a game just played (``arena play``) and one
loaded from disk (``arena replay``, which re-runs the record through the
engine first, so what is shown is what the rules give). ``saved_game`` is
the file ``arena play --save`` writes: the record with the players' names.
"""

from __future__ import annotations

from typing import cast

from .._json import Json, JsonObject
from ..engine import Deal, Game, card_str, cards_str, event_kind, replay
from ..engine.forms import DealForm, GameRecordForm

SEAT_NAMES = ("N", "E", "S", "W")


def seat_names(players: int) -> tuple[str, ...]:
    """How seats are written: N E S W at four, else P1 ... Pn (docs/rules.md 14)."""
    return SEAT_NAMES if players == 4 else tuple(f"P{s + 1}" for s in range(players))


def _scores(scores: list[int]) -> str:
    return " : ".join(map(str, scores))


def _hand(cards: list[str]) -> str:
    return " ".join(cards) if cards else "-"


class _ReplayLines:
    """The text replay's lines, as the decision kinds write their events into them (``ReplayWriter``)."""

    def __init__(self, out: list[str], short: tuple[str, ...], label: list[str]) -> None:
        self.out, self.short, self.labels = out, short, label
        self.bids: list[str] = []  # the bidding line being gathered

    def label(self, seat: int) -> str:
        return self.labels[seat]

    def seat_name(self, seat: int) -> str:
        return self.short[seat]

    def bid(self, text: str) -> None:
        self.bids.append(text)

    def note(self, text: str) -> None:
        if self.bids:
            self.bids[-1] += text

    def line(self, text: str, flush: bool = True) -> None:
        if flush:
            self.flush()
        self.out.append("  " + text)

    def flush(self) -> None:
        if self.bids:
            self.out.append("  bidding: " + ", ".join(self.bids))
            self.bids.clear()


def render_deal(d: DealForm, deal: Deal, names: list[str] | None = None) -> str:
    """One deal as text: hands (and kitty), bidding, discards, fill and rob, tricks, points.

    ``d`` is the deal's record, ``deal`` the engine's replay of it: the hands
    as the profile dealt them and the tricks as its play rules formed them
    (a seat sitting out makes a trick of fewer than four cards).
    """
    n = deal.n
    sn = seat_names(n)
    names = names or [f"seat {s}" for s in range(n)]
    label = [f"{sn[s]} {names[s]}" for s in range(n)]
    out = [f"--- deal {d['index'] + 1}: {label[d['dealer']]} deals; scores {_scores(d['scores_before'])}"]
    for s, hand in enumerate(deal.dealt):
        out.append(f"  {label[s]:<18} {_hand(cards_str(hand))}")
    if deal.kitty:
        out.append(f"  {'kitty':<18} {_hand(cards_str(deal.kitty))}")
    if deal.profile.widow:  # face down before each seat until it has bid; then taken up, or left (face up after the bidding)
        left = set(deal.left_widows)
        for s in range(n):
            widow = deal.widows_dealt[s] if deal.widows_dealt else ()
            note = " (left: face up, out of play, once the bidding is over)" if s in left else ""
            out.append(f"  {'widow ' + sn[s]:<18} {_hand(cards_str(widow))}{note}")
    in_dark = len(deal.dark)  # the first events: the round in the dark, before the deal
    if in_dark:
        round_ = [f"{sn[seat]} {amount or 'no'}" for seat, amount in deal.dark]
        out.insert(1, "  in the dark, before the deal: " + ", ".join(round_))
    writer = _ReplayLines(out, sn, label)
    for e in d["events"][in_dark:]:
        kind = event_kind(e["type"])
        if kind is not None:  # each decision kind tells its own events (arena.engine.kinds)
            kind.replay(e, writer)
        elif e["type"] == "reshuffle":  # the one event no seat chooses
            out.append(f"  the stock ran out: discard pile reshuffled (reshuffle {e['j']})")
    writer.flush()
    for n, trick in enumerate(deal.tricks):
        plays = [f"{sn[seat]} {card_str(card)}" + (f" (+{' '.join(cards_str(under))} under)" if under else "")
                 for seat, card, under in trick.plays]
        won = f" -> {sn[trick.winner]}" if trick.winner is not None else " (unfinished)"
        out.append(f"  trick {n + 1}: {', '.join(plays)}{won}")
    if deal.profile.rob == "none" and deal.stock and deal.trump is not None and not deal.profile.widow:
        # sixty-three-joker's undealt card (a widow left face down is told with the widows above)
        out.append(f"  left undealt, face down, seen by nobody: {_hand(cards_str(deal.stock))}")
    if d.get("redeal"):
        out.append(f"  every seat passed: no trump, no play, the deal is void; scores {_scores(d['scores_after'])}")
    elif d.get("points") is not None:
        made = "made" if d["made"] else "SET"
        dark = f" in the dark (worth {deal.profile.dark_bid})" if d.get("dark") else ""
        if deal.profile.sides == "called":  # who was with the maker (public once the deal is over)
            mate = "alone" if deal.partner is None else f"with {label[deal.partner]}"
            dark += f" ({mate})"
        out.append(
            f"  bid {d['bid']}{dark} by {label[d['maker']]}: {made}; points {_scores(d['points'])};"
            f" scores {_scores(d['scores_after'])}"
        )
    return "\n".join(out)


def profile_params(profile: JsonObject, prefix: str = "") -> list[tuple[str, Json]]:
    """Every parameter of a profile's JSON form but its name, nested ones dotted (``points.jack``)."""
    out: list[tuple[str, Json]] = []
    for k, v in profile.items():
        if not prefix and k == "name":
            continue
        if isinstance(v, dict):
            out += profile_params(v, f"{prefix}{k}.")
        else:
            out.append((prefix + k, v))
    return out


def profile_text(profile: JsonObject | None) -> str:
    """A profile as one line: its name, then all its parameters (``unknown`` without one)."""
    if not profile:
        return "unknown"
    params = ", ".join(f"{k}={'none' if v is None else v}" for k, v in profile_params(profile))
    return f"{profile.get('name', 'unnamed')} ({params})" if params else str(profile.get("name", "unnamed"))


def render_game(record: JsonObject | GameRecordForm, names: list[str] | None = None, game: Game | None = None) -> str:
    """A whole game as text, from the engine's replay of its record (``replay``
    raises ReplayMismatch if it was edited; pass ``game`` if already replayed)."""
    game = game or replay(record)
    record = cast(GameRecordForm, record)  # a record the engine replayed: of its form
    parts = [f"=== rule profile {profile_text(record.get('profile'))}"] if record.get("profile") else []
    parts += [render_deal(d, deal, names) for d, deal in zip(record["deals"], game.deals)]
    end = record.get("end")
    winner = record.get("winner")
    if winner is None:
        who = "nobody"
    elif game.profile.sides == "pairs":
        who = "N/S" if winner == 0 else "E/W"
    else:
        who = f"{seat_names(game.profile.players)[winner]} {(names or [f'seat {winner}'] * (winner + 1))[winner]}"
    parts.append(f"=== game over ({end}): {who} wins, {_scores(record['scores'])}")
    return "\n".join(parts)


SAVED_GAME = "cinch-saved-game"


def saved_game(record: JsonObject, names: list[str]) -> JsonObject:
    """A game as ``arena play --save`` writes it: its record and who sat where."""
    return {"format": SAVED_GAME, "version": 1, "players": list[Json](names), "record": record}
