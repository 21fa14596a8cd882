"""Test bot for fair timing: spends about BUSY_MS of CPU on every decision, then plays the first legal option."""
import json
import os
import sys
import time

BUSY_S = int(os.environ.get("BUSY_MS", "50")) / 1000


def burn():
    end = time.process_time() + BUSY_S
    x = 0
    while time.process_time() < end:
        x += 1
    return x


def action(kind, legal):
    if kind == "bid":
        return {"type": "pass"} if legal["pass"] else {"type": "bid", "amount": legal["bids"][0]}
    if kind == "trump":
        return {"type": "trump", "suit": legal["suits"][0]}
    if kind == "rob":
        return {"type": "rob", "take": legal["from"][: legal["take"]]}
    card = legal["cards"][0]
    under = [c for c in legal["under_from"] if c != card][: legal["under"]]
    return {"type": "play", "card": card, **({"under": under} if under else {})}


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "busy", "version": "1"}), flush=True)
    elif msg["type"] == "decide":
        burn()
        print(json.dumps({"type": "action", "id": msg["id"], "action": action(msg["kind"], msg["legal"])}), flush=True)
    elif msg["type"] == "bye":
        break
