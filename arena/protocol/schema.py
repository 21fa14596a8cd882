"""The JSON Schema of protocol v1, generated from the message models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from .messages import FromBot, ToBot

#: Shipped inside the package, so an installed harness (and its bot authors) always have it.
SCHEMA_PATH = Path(__file__).resolve().parent / "protocol.schema.json"


def protocol_schema() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "cinch-arena bot protocol v1",
        "description": "JSON Lines over the bot's stdin (to_bot) and stdout (from_bot).",
        "to_bot": TypeAdapter(ToBot).json_schema(),
        "from_bot": TypeAdapter(FromBot).json_schema(),
    }


def render() -> str:
    return json.dumps(protocol_schema(), indent=1, sort_keys=True) + "\n"


def write(path: Path = SCHEMA_PATH) -> None:
    path.write_text(render())
