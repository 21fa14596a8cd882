"""A misbehaving bot for fault tests. MODE (env) picks the misbehaviour; AT
(env, default 3) is the decision at which it starts."""
import json
import os
import sys
import time

MODE = os.environ.get("MODE", "good")
AT = int(os.environ.get("AT", "3"))


def legal_first(kind, legal):
    if kind == "bid":
        return {"type": "pass"} if legal["pass"] else {"type": "bid", "amount": legal["bids"][0]}
    if kind == "trump":
        return {"type": "trump", "suit": "H"}
    if kind == "rob":
        return {"type": "rob", "take": legal["from"][: legal["take"]]}
    top = legal["cards"][0]
    under = [c for c in legal["under_from"] if c != top][: legal["under"]]
    return {"type": "play", "card": top, **({"under": under} if under else {})}


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


n = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        if MODE == "no_hello":
            time.sleep(60)
        say({"type": "hello", "protocol": 99 if MODE == "bad_version" else 1, "name": "hostile", "version": MODE})
        continue
    if msg["type"] == "bye":
        break
    if msg["type"] != "decide":
        continue
    n += 1
    act = legal_first(msg["kind"], msg["legal"])
    if n >= AT:
        if MODE == "crash":
            sys.exit(3)
        if MODE == "hang":
            time.sleep(60)
        if MODE == "spin":
            while True:
                pass
        if MODE == "slow_cpu":  # uses about 2x the decision limit of CPU, then answers
            end = time.process_time() + 2 * msg["decision_ms"] / 1000
            while time.process_time() < end:
                pass
        if MODE == "malformed":
            sys.stdout.write("{this is not json\n")
            sys.stdout.flush()
            continue
        if MODE == "wrong_id":
            say({"type": "action", "id": msg["id"] + 1000, "action": act})
            continue
        if MODE == "illegal":
            held = set(msg["view"]["hand"])
            bad = next(c for c in ("2C", "3C", "4C", "5C", "6C", "7C", "8C") if c not in held)
            act = {"type": "play", "card": bad} if msg["kind"] == "play" else {"type": "bid", "amount": 99}
        if MODE == "flood":
            sys.stdout.write("x" * (3 * 1024 * 1024) + "\n")
            sys.stdout.flush()
            continue
        if MODE == "stderr_flood":
            sys.stderr.write("noise " * 400000)
            sys.stderr.flush()
    say({"type": "action", "id": msg["id"], "action": act})
