"""JSON text as the harness writes it to bots.

``dumps`` gives the bytes of the standard library's ``json.dumps(obj,
separators=(",", ":"))`` (ASCII, compact), through orjson where it gives
the same bytes: for values without floats (which the two write
differently), with only ASCII and no DEL in the result (the standard
library escapes the rest), and no int beyond 64 bits (orjson refuses it).
The views and requests of play are built from parts encoded here, so the
pieces and a whole message encoded at once are the same bytes
(tests/protocol/test_encoding.py).
"""

from __future__ import annotations

import importlib
import json
from typing import Any, Callable

_std = json.JSONEncoder(separators=(",", ":")).encode
_fast: Callable[[Any], bytes] | None = None
_loads: Callable[[bytes], Any] = json.loads
try:  # a dependency; an environment made before it was one writes the same bytes, slower
    _orjson = importlib.import_module("orjson")
    _fast, _loads = _orjson.dumps, _orjson.loads
except ImportError:
    pass


def dumps(obj: object) -> bytes:
    """Compact ASCII JSON, the standard library's bytes (for data without floats)."""
    if _fast is not None:
        try:
            text = _fast(obj)
        except TypeError:
            pass
        else:
            if text.isascii() and b"\x7f" not in text:
                return text
    return _std(obj).encode()


def loads(data: bytes) -> Any:
    """The value of a JSON text (orjson where installed: a text ``dumps`` wrote reads back the same)."""
    return _loads(data)
