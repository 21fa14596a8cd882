"""An honest bot that thinks hard: on every decision it computes BURN_LOOPS rounds of a fixed
sum (work: the host's CPU for it is the same at every level), or else burns BURN_MS of CPU by its
own clock (inside gVisor that clock is the Sentry's, which runs on while the bot waits for a core),
then plays the first legal option. Beside CPU hogs its answers come late for want of a core.
SLEEP_MS (a hostile variant): it then sleeps that long on move, past any slot."""
import json
import os
import sys
import time

BURN = int(os.environ.get("BURN_MS", "80")) / 1000
LOOPS = int(os.environ.get("BURN_LOOPS", "0"))
SLEEP = int(os.environ.get("SLEEP_MS", "0")) / 1000


def work(n):
    """The same sum the test times on the host to choose n."""
    x = 0
    for i in range(n):
        x += i * i % 7
    return x


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
        if LOOPS:
            work(LOOPS)
        else:
            t0 = time.process_time()
            while time.process_time() - t0 < BURN:
                pass
        if SLEEP:
            time.sleep(SLEEP)
        print(json.dumps({"type": "action", "id": msg["id"], "action": first(msg["kind"], msg["legal"])}), flush=True)
    elif msg["type"] == "bye":
        break
