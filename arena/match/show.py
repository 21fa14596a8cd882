"""Games for people to read, rendered from the record alone.

The same renderer serves a game just played (``arena play``) and one
loaded from disk (``arena replay``, which re-runs the record through the
engine first, so what is shown is what the rules give). ``saved_game`` is
the file ``arena play --save`` writes: the record with the players' names.
"""

from __future__ import annotations

from typing import Any

SEAT_NAMES = ("N", "E", "S", "W")


def _hand(cards: list[str]) -> str:
    return " ".join(cards) if cards else "-"


def _dealt(deck: list[str], dealer: int) -> list[list[str]]:
    hands: list[list[str]] = [[], [], [], []]
    pos = 0
    for _ in range(3):
        for i in range(4):
            hands[(dealer + 1 + i) % 4] += deck[pos : pos + 3]
            pos += 3
    return hands


def render_deal(d: dict[str, Any], names: list[str] | None = None) -> str:
    """One deal as text: hands, bidding, fill and rob, tricks, points."""
    names = names or [f"seat {s}" for s in range(4)]
    label = [f"{SEAT_NAMES[s]} {names[s]}" for s in range(4)]
    out = [f"--- deal {d['index'] + 1}: {label[d['dealer']]} deals; scores {d['scores_before'][0]} : {d['scores_before'][1]}"]
    for s, hand in enumerate(_dealt(d["deck"], d["dealer"])):
        out.append(f"  {label[s]:<18} {_hand(hand)}")
    bids = []
    trick: list[str] = []
    trick_no = 0
    winners = d.get("trick_winners") or []
    for e in d["events"]:
        t = e["type"]
        forced = " (forced)" if e.get("forced") else ""
        if t in ("pass", "bid"):
            bids.append(f"{SEAT_NAMES[e['seat']]} {'pass' if t == 'pass' else e['amount']}{forced}")
        elif t == "trump":
            out.append("  bidding: " + ", ".join(bids))
            out.append(f"  {label[e['seat']]} names {e['suit']} trumps")
        elif t == "reshuffle":
            out.append(f"  the stock ran out: discard pile reshuffled (reshuffle {e['j']})")
        elif t == "rob":
            out.append(f"  dealer robs the pack, choosing [{_hand(e['take'])}]{forced}")
        elif t == "play":
            under = f" (+{' '.join(e['under'])} under)" if e.get("under") else ""
            trick.append(f"{SEAT_NAMES[e['seat']]} {e['card']}{under}")
            if len(trick) == 4:
                won = f" -> {SEAT_NAMES[winners[trick_no]]}" if trick_no < len(winners) else ""
                out.append(f"  trick {trick_no + 1}: {', '.join(trick)}{won}")
                trick, trick_no = [], trick_no + 1
    if d.get("points") is not None:
        made = "made" if d["made"] else "SET"
        out.append(
            f"  bid {d['bid']} by {label[d['maker']]}: {made}; points {d['points'][0]} : {d['points'][1]};"
            f" scores {d['scores_after'][0]} : {d['scores_after'][1]}"
        )
    return "\n".join(out)


def profile_params(profile: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Every parameter of a profile's JSON form but its name, nested ones dotted (``points.jack``)."""
    out: list[tuple[str, Any]] = []
    for k, v in profile.items():
        if not prefix and k == "name":
            continue
        if isinstance(v, dict):
            out += profile_params(v, f"{prefix}{k}.")
        else:
            out.append((prefix + k, v))
    return out


def profile_text(profile: dict[str, Any] | None) -> str:
    """A profile as one line: its name, then all its parameters (``unknown`` without one)."""
    if not profile:
        return "unknown"
    params = ", ".join(f"{k}={'none' if v is None else v}" for k, v in profile_params(profile))
    return f"{profile.get('name', 'unnamed')} ({params})" if params else str(profile.get("name", "unnamed"))


def render_game(record: dict[str, Any], names: list[str] | None = None) -> str:
    parts = [f"=== rule profile {profile_text(record.get('profile'))}"] if record.get("profile") else []
    parts += [render_deal(d, names) for d in record["deals"]]
    end = record.get("end")
    winner = record.get("winner")
    who = "nobody" if winner is None else ("N/S" if winner == 0 else "E/W")
    parts.append(f"=== game over ({end}): {who} wins, {record['scores'][0]} : {record['scores'][1]}")
    return "\n".join(parts)


SAVED_GAME = "cinch-saved-game"


def saved_game(record: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """A game as ``arena play --save`` writes it: its record and who sat where."""
    return {"format": SAVED_GAME, "version": 1, "players": names, "record": record}
