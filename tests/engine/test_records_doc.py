"""docs/records.md is a specification others implement from: its derived-key
description and test vectors must agree with the engine."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from arena.engine import derive_key

DOC = Path(__file__).resolve().parents[2] / "docs" / "records.md"


def _vectors() -> list[tuple[list[str], str, str]]:
    """(parts as written, hashed text, key) from the doc's vector table."""
    text = DOC.read_text()
    block = text.split("<!-- derive-key-vectors -->")[1].split("<!-- /derive-key-vectors -->")[0]
    rows = []
    for line in block.strip().splitlines()[2:]:  # skip the header and the rule
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        parts_cell, hashed, key = cells
        parts = [] if parts_cell == "(none)" else [p.strip() for p in parts_cell.strip("`").split(",")]
        rows.append((parts, hashed.strip("`").replace("\\|", "|"), key.strip("`")))
    return rows


def _as_python(part: str) -> object:
    return part.strip('"') if part.startswith('"') else int(part)


def test_doc_vectors_follow_the_doc_description_and_the_engine():
    rows = _vectors()
    assert len(rows) >= 4
    for parts, hashed, key in rows:
        values = [_as_python(p) for p in parts]
        # the description: prefix, parts as text joined with "|", BLAKE2b with a 12-byte digest
        text = "cinch/v1|key|" + "|".join(str(v) for v in values)
        assert text == hashed
        assert hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest() == key
        assert derive_key(*values) == key
        # the reading the doc warns against gives other keys
        assert hashlib.blake2b(text.encode("utf-8")).hexdigest()[:24] != key
        assert re.fullmatch(r"[0-9a-f]{24}", key)


def test_integer_and_text_parts_are_the_same_key():
    assert derive_key(7, "block", 12) == derive_key("7", "block", "12")
    assert derive_key(7, "block", 12) != derive_key(7, "block", 13)
