"""Games for people to read: ``arena play``, ``arena replay``, ``arena export-deals``.

Everything is rendered from the record alone (the same renderer serves a
game just played and one loaded from disk), and ``replay`` re-runs the
record through the engine first, so what is shown is what the rules give.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..engine import DealFile, replay

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


def render_game(record: dict[str, Any], names: list[str] | None = None) -> str:
    parts = [render_deal(d, names) for d in record["deals"]]
    end = record.get("end")
    winner = record.get("winner")
    who = "nobody" if winner is None else ("N/S" if winner == 0 else "E/W")
    parts.append(f"=== game over ({end}): {who} wins, {record['scores'][0]} : {record['scores'][1]}")
    return "\n".join(parts)


def main_play(argv: list[str]) -> int:
    from ..players import load_entry
    from ..players.process import ProcessPlayer
    from .block import bot_seed
    from .game import play_game
    from .settings import MatchSettings

    root = Path(__file__).resolve().parents[2] / "bots"
    ap = argparse.ArgumentParser(prog="arena play", description="Play one game and show it deal by deal.")
    ap.add_argument("bots", nargs="*", help="2 bots (N/S, E/W partnerships) or 4 (seats N E S W); default heuristic vs random")
    ap.add_argument("--key", default="play", help="deal key (same key, same cards)")
    ap.add_argument("--sandbox", default="bwrap", choices=["bwrap", "rlimit", "none"])
    ap.add_argument("--format", default="game", choices=["game", "deals"])
    ap.add_argument("--deals", type=int, default=8)
    ap.add_argument("--save", help="write the game record (JSON) here")
    args = ap.parse_args(argv)
    paths = args.bots or [str(root / "heuristic"), str(root / "random")]
    if len(paths) == 2:
        paths = [paths[0], paths[1], paths[0], paths[1]]
    if len(paths) != 4:
        ap.error("give 2 or 4 bots")
    entries = [load_entry(p) for p in paths]
    settings = MatchSettings.model_validate({"sandbox": args.sandbox, "format": args.format, "deals": args.deals})
    players = [ProcessPlayer(e, bot_seed(args.key, 0, s), settings) for s, e in enumerate(entries)]
    try:
        result = play_game(players, settings, args.key)
    finally:
        for p in players:
            p.close()
    names = [e.name for e in entries]
    print(render_game(result.record, names))
    for f in result.faults:
        print(f"fault: seat {f.seat} ({f.bot}) {f.fault.kind}: {f.fault.message}")
    if args.save:
        Path(args.save).write_text(json.dumps(result.record) + "\n")
    return 0


def _load_records(path: Path, block: str | None, game: int | None) -> list[tuple[dict[str, Any], list[str] | None]]:
    text = path.read_text()
    try:
        data = json.loads(text)
        return [(data, None)]
    except json.JSONDecodeError:
        pass
    out: list[tuple[dict[str, Any], list[str] | None]] = []
    for line in text.splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn last line
        if block is not None and row.get("block_key") != block and str(row.get("block")) != block:
            continue
        for h, g in enumerate(row.get("games", [])):
            if game is None or game == h:
                out.append((g["record"], [s["bot"] for s in g["seats"]]))
    return out


def main_replay(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="arena replay", description="Show a stored game again from its record alone.")
    ap.add_argument("record", help="a game record (JSON) or a results.jsonl")
    ap.add_argument("--block", help="in a results file: block key or block index")
    ap.add_argument("--game", type=int, choices=[0, 1], help="in a results file: which game of the block")
    args = ap.parse_args(argv)
    records = _load_records(Path(args.record), args.block, args.game)
    if not records:
        print("arena replay: no matching game found", file=sys.stderr)
        return 1
    for record, names in records:
        replay(record)  # raises if the record does not replay to the same result
        print(render_game(record, names))
    return 0


def main_export_deals(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="arena export-deals", description="Write a deal file from a key's seeded stream.")
    ap.add_argument("key")
    ap.add_argument("out")
    ap.add_argument("--deals", type=int, default=30)
    args = ap.parse_args(argv)
    DealFile.from_key(args.key, args.deals).save(args.out)
    print(f"wrote {args.deals} deals of key {args.key!r} to {args.out}")
    return 0


