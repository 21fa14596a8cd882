"""Test bot: plays the first legal option of every choice; no randomness."""
import json
import os
import sys

PICK = os.environ.get("PICK", "first")


def pick(options):
    return options[0] if PICK == "first" else options[-1]


def action(kind, legal):
    if kind == "bid":
        if legal["pass"] and (PICK == "first" or not legal["bids"]):
            return {"type": "pass"}
        return {"type": "bid", "amount": pick(legal["bids"])}
    if kind == "trump":
        return {"type": "trump", "suit": pick(legal["suits"])}
    if kind == "rob":
        return {"type": "rob", "take": legal["from"][: legal["take"]]}
    card = pick(legal["cards"])
    under = [c for c in legal["under_from"] if c != card][: legal["under"]]
    return {"type": "play", "card": card, **({"under": under} if under else {})}


def main():
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            print(json.dumps({"type": "hello", "protocol": 1, "name": PICK, "version": "1"}), flush=True)
        elif kind == "decide":
            if msg["view"].get("deal_index", 0) == 0 and msg["id"] < 4 and os.environ.get("NOISY"):
                print(f"thinking about decision {msg['id']}", file=sys.stderr)
            print(json.dumps({"type": "action", "id": msg["id"], "action": action(msg["kind"], msg["legal"])}), flush=True)
        elif kind == "bye":
            break


main()
