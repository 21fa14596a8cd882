"""The JSON Schema of protocol v1, generated from the message models.

One root schema, so any validator takes it as it is: a line is valid when it
is a message of either direction; ``#/$defs/to_bot`` (the harness's
messages) and ``#/$defs/from_bot`` (the bot's replies) check one direction.
Every model is a definition of the root, under the name of its model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from .messages import FromBot, ToBot

#: Shipped inside the package, so an installed harness (and its bot authors) always have it.
SCHEMA_PATH = Path(__file__).resolve().parent / "protocol.schema.json"
DIRECTIONS: dict[str, TypeAdapter[Any]] = {"to_bot": TypeAdapter(ToBot), "from_bot": TypeAdapter(FromBot)}


def protocol_schema() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for direction, adapter in DIRECTIONS.items():
        one = adapter.json_schema()
        for name, sub in one.pop("$defs", {}).items():
            if defs.setdefault(name, sub) != sub:
                raise ValueError(f"two protocol models are both called {name}")  # a definition would be lost
        defs[direction] = one
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "cinch-arena bot protocol v1",
        "description": "One JSON Lines message, of either direction; #/$defs/to_bot is what the harness writes to"
                       " a bot's stdin, #/$defs/from_bot what a bot writes to its stdout.",
        "anyOf": [{"$ref": f"#/$defs/{d}"} for d in DIRECTIONS],
        "$defs": defs,
    }


def render() -> str:
    return json.dumps(protocol_schema(), indent=1, sort_keys=True) + "\n"


def write(path: Path = SCHEMA_PATH) -> None:
    path.write_text(render())
