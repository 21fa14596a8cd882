"""A minimal protocol bot (always the first legal option): the reference for
benchmarks and harness tests, and the smallest example of the protocol."""
import json
import sys


def action(kind, legal):
    if "any" in legal:  # a decision kind a rule profile adds: it names one legal action
        return legal["any"]
    if kind == "bid":
        if legal["pass"]:
            return {"type": "pass"}
        if legal.get("suited"):  # bids that name their trump: the first one listed
            return {"type": "bid", **legal["suited"][0]}
        return {"type": "bid", "amount": legal["bids"][0]}
    if kind == "trump":
        return {"type": "trump", "suit": legal["suits"][0]}
    if kind == "rob":
        return {"type": "rob", "take": legal["from"][: legal["take"]]}
    top = legal["cards"][0]
    under = [c for c in legal["under_from"] if c != top][: legal["under"]]
    return {"type": "play", "card": top, **({"under": under} if under else {})}


def say(obj):
    # One write per line: print() may write the text and the newline separately.
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        say({"type": "hello", "protocol": 1, "name": "minimal", "version": "1"})
    elif msg["type"] == "decide":
        say({"type": "action", "id": msg["id"], "action": action(msg["kind"], msg["legal"])})
    elif msg["type"] == "bye":
        break
