"""A Python bot that needs a package the harness does not provide.

The package is installed into ``vendor/`` inside the bot folder before the
bot is entered (``pip install --target vendor -r requirements.txt``): bots
run without network access, in a read-only copy of their folder, so nothing
can be installed at run time. ``bot.yaml`` puts ``vendor`` on PYTHONPATH.
The bot plays the first legal option and logs each hand as a table on
stderr, which the harness keeps per game.
"""

import json
import sys

from tabulate import tabulate  # from vendor/


def action(kind: str, legal: dict) -> dict:
    if kind == "bid":
        return {"type": "pass"} if legal["pass"] else {"type": "bid", "amount": legal["bids"][0]}
    if kind == "trump":
        return {"type": "trump", "suit": legal["suits"][0]}
    if kind == "rob":
        return {"type": "rob", "take": legal["from"][: legal["take"]]}
    top = legal["cards"][0]
    under = [c for c in legal["under_from"] if c != top][: legal["under"]]
    return {"type": "play", "card": top, "under": under}


def say(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        say({"type": "hello", "protocol": 1, "name": "py-vendored", "version": "1"})
    elif msg["type"] == "deal":
        print(tabulate([msg["hand"]], tablefmt="plain"), file=sys.stderr)
    elif msg["type"] == "decide":
        say({"type": "action", "id": msg["id"], "action": action(msg["kind"], msg["legal"])})
    elif msg["type"] == "bye":
        break
