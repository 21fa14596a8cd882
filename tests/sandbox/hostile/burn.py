"""An honest bot that thinks hard: it burns BURN_MS of CPU on every decision (below its limit),
then plays the first legal option. Beside CPU hogs its answers come late for want of a core."""
import json
import os
import sys
import time

BURN = int(os.environ.get("BURN_MS", "80")) / 1000


def first(kind, legal):
    if kind == "bid":
        return {"type": "pass"} if legal["pass"] else {"type": "bid", "amount": legal["bids"][0]}
    if kind == "trump":
        return {"type": "trump", "suit": legal["suits"][0]}
    if kind == "rob":
        return {"type": "rob", "take": legal["from"][: legal["take"]]}
    if kind == "play":
        top = legal["cards"][0]
        under = [c for c in legal["under_from"] if c != top][: legal["under"]]
        return {"type": "play", "card": top, **({"under": under} if under else {})}
    return legal["any"]


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "burn", "version": "1"}), flush=True)
    elif msg["type"] == "decide":
        t0 = time.process_time()
        while time.process_time() - t0 < BURN:
            pass
        print(json.dumps({"type": "action", "id": msg["id"], "action": first(msg["kind"], msg["legal"])}), flush=True)
    elif msg["type"] == "bye":
        break
