"""Results are typed lines read by attribute (issue 42): the counts that say so may not grow back.

The source is parsed (as tests/engine/test_kinds.py does for decision kinds): a string-key lookup is
``x["key"]`` or ``x.get("key")``; one "on result data" is keyed by a field that a results line, game or
run has and other records do not (``LINE_KEYS``: ``seats``, ``winner``, ``side_a``, ``table``...; the
words every record uses, ``id``, ``bot``, ``games``, ``kind``..., are left out), which is how a reader of a
line as a dict looked a line up. The ceilings are the counts when the lines became typed: lower them as
the lookups go, never raise them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from arena.results import BotRef, Fault, GameLine, PairsLine, Reproduce, RunInfo, TableLine

ARENA = Path(__file__).resolve().parents[1] / "arena"
#: every key a results line, game, seat, fault or run holds
RESULT_KEYS = {f.alias or name for m in (BotRef, Fault, GameLine, PairsLine, Reproduce, RunInfo, TableLine)
               for name, f in m.model_fields.items()}
#: the keys other records use too (a leaderboard's rows, the database's, the viewer's frames)
GENERIC = {"id", "bot", "digest", "games", "kind", "message", "seat", "deal", "decision", "request", "reply", "end",
           "backend", "host", "pid", "attempt", "wall_s", "finished_at", "command", "stderr", "game", "game_id",
           "substituted"}
LINE_KEYS = RESULT_KEYS - GENERIC
#: lookups keyed by a results line's own fields, per package (106 in publish and 23 in serve with dict lines)
CEILINGS = {"publish": 8, "serve": 1}
#: ``dict[str, Any]`` in arena/ (533 before)
DICT_ANY_CEILING = 108
#: the fields that only one shape of line has, and the shapes' classes: only the results package and the
#: one translation of lines into the ratings' two kinds of block (``publish/load.py``) may name them
SHAPE_WORDS = {"side_a", "side_b", "score_a", "PairsLine", "TableLine"}
SHAPE_ALLOWED = {ARENA / "publish" / "load.py"}


def lookups(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, key) of every string-key lookup: ``x["key"]``, ``x.get("key", ...)``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            out.append((node.lineno, node.slice.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            out.append((node.lineno, node.args[0].value))
    return out


def shape_uses(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, word) of every use of a shape's field or class: an attribute, a name or a string key."""
    out = []
    for node in ast.walk(tree):
        word = (node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else
                node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None)
        if word in SHAPE_WORDS:
            out.append((node.lineno, str(word)))
    return out


def modules(package: str) -> list[Path]:
    return sorted((ARENA / package).rglob("*.py"))


def result_lookups(package: str) -> dict[str, list[tuple[int, str]]]:
    found = {}
    for p in modules(package):
        hits = [(n, k) for n, k in lookups(ast.parse(p.read_text())) if k in LINE_KEYS]
        if hits:
            found[str(p.relative_to(ARENA))] = hits
    return found


def test_result_data_is_read_by_attribute_in_publish_and_serve() -> None:
    for package, ceiling in CEILINGS.items():
        found = result_lookups(package)
        total = sum(len(v) for v in found.values())
        assert total <= ceiling, (f"{total} string-key lookups on result data in arena/{package} (at most"
                                  f" {ceiling}): read the typed line's attributes instead", found)


def test_dict_str_any_does_not_grow() -> None:
    count = sum(p.read_text().count("dict[str, Any]") for p in ARENA.rglob("*.py"))
    assert count <= DICT_ANY_CEILING, f"{count} dict[str, Any] in arena/ (at most {DICT_ANY_CEILING}): type the data"


def test_no_module_of_publish_or_serve_branches_on_a_line_s_shape() -> None:
    found = {str(p.relative_to(ARENA)): hits for package in ("publish", "serve") for p in modules(package)
             if p not in SHAPE_ALLOWED and (hits := shape_uses(ast.parse(p.read_text())))}
    assert not found, f"ask the line's Seating (arena/results/schema.py), not its shape: {found}"


def test_the_counters_see_what_they_count() -> None:
    """The parsers find a lookup, a shape's field and a shape's class where there is one (else the
    tests above would pass on anything)."""
    tree = ast.parse("a['games'][0].get('winner'); b = line.side_a; isinstance(x, TableLine); y['score_a']")
    assert [k for _, k in lookups(tree)] == ["score_a", "games", "winner"] or \
        sorted(k for _, k in lookups(tree)) == ["games", "score_a", "winner"]
    assert sorted(w for _, w in shape_uses(tree)) == ["TableLine", "score_a", "side_a"]
    assert {"games", "seats", "winner", "side_a", "table", "schema", "faults", "bot", "digest"} <= RESULT_KEYS
    assert {"seats", "winner", "side_a", "table", "record", "run"} <= LINE_KEYS and not {"bot", "games"} & LINE_KEYS
