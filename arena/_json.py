"""The one type of a JSON value, as ``json.loads`` returns it, below every floor (as ``_lazy.py``).

The engine and the results, independent floors, both carry JSON whose shape is truly open (a
profile's parameters, a registered kind's wire form, a run's recorded options): this is the one
alias they name, pydantic's ``JsonValue`` (which pydantic validates as JSON and mypy reads as the
recursive union). Data with a shape gets a class instead: a ``TypedDict`` where it travels as a dict
(``engine.forms``), a dataclass or a model elsewhere. The engine imports this only for the type
checker: a bot's sandbox mounts the engine package alone.
"""

from __future__ import annotations

from typing import TypeAlias

from pydantic import JsonValue

#: A JSON value: null, a bool, a number, a string, a list of values or an object of values.
Json: TypeAlias = JsonValue
#: A JSON object kept as it was written.
JsonObject: TypeAlias = dict[str, Json]

__all__ = ["Json", "JsonObject"]
