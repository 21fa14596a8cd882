"""Errors in a YAML file a person wrote (a bot's ``bot.yaml``, a tournament
config) that they can act on: every problem at once, with file, line and a
suggestion.

pydantic reports *where* in the data a value is wrong; this module turns
that into the line of the YAML file it came from, and for a misspelt key
("entires", "comand") suggests the field that was meant.
"""

from __future__ import annotations

import difflib
from typing import Any, Sequence

import yaml
from pydantic import BaseModel, ValidationError
from .._json import JsonObject

#: Deepest nesting of a YAML document read from a person (a manifest nests three levels): the composer
#: recurses per level, so a deeper document is refused before it can exhaust the stack.
MAX_DEPTH = 20


class StrictLoader(yaml.SafeLoader):  # type: ignore[misc]
    """``yaml.SafeLoader`` for hostile text: no aliases (``*name``: one alias bomb of a few hundred bytes
    expands to gigabytes) and at most ``MAX_DEPTH`` levels of nesting. The pure-Python loader, not libyaml:
    these checks live in its composer."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not accepted", mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(None, None, f"nested more than {MAX_DEPTH} levels deep",
                                                  self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_yaml(text: str) -> object:
    """The data of a YAML document a person wrote, loaded as hostile input (``StrictLoader``)."""
    return yaml.load(text, Loader=StrictLoader)  # noqa: S506 - a SafeLoader subclass


def yaml_problem(e: BaseException) -> str:
    """One line for a failure to load YAML: the parser's problem and where (line), or the error's text."""
    if isinstance(e, yaml.MarkedYAMLError) and e.problem:
        mark = e.problem_mark
        return f"{e.problem} (line {mark.line + 1}, column {mark.column + 1})" if mark else e.problem
    return (str(e).splitlines() or [type(e).__name__])[0][:200]


def yaml_lines(text: str) -> dict[tuple[str | int, ...], int]:
    """1-based line of every key path of a YAML document (keys and list items)."""
    out: dict[tuple[str | int, ...], int] = {}
    try:
        root = yaml.compose(text, Loader=StrictLoader)
    except yaml.YAMLError:
        return out

    def walk(node: Any, path: tuple[str | int, ...]) -> None:
        out.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                key = k.value
                out[path + (key,)] = k.start_mark.line + 1
                walk(v, path + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                walk(v, path + (i,))

    if root is not None:
        walk(root, ())
    return out


def _fields_at(model: type[BaseModel], loc: Sequence[str | int]) -> list[str]:
    """Field names (and aliases) of the model that holds the value at ``loc``."""
    current: Any = model
    for part in loc:
        if not (isinstance(current, type) and issubclass(current, BaseModel)) or not isinstance(part, str):
            return []
        f = current.model_fields.get(part)
        if f is None:
            return []
        ann = f.annotation
        current = next((a for a in getattr(ann, "__args__", (ann,)) if isinstance(a, type) and issubclass(a, BaseModel)), None)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [f.alias or n for n, f in current.model_fields.items()]
    return []


def describe(e: ValidationError, model: type[BaseModel], source: str, text: str | None,
             data: JsonObject | None = None) -> list[str]:
    """One line per problem: ``FILE:LINE: field: message (did you mean ...?)``."""
    lines = yaml_lines(text) if text else {}
    unknown: dict[tuple[str | int, ...], list[str]] = {}
    for err in e.errors():
        if err["type"] == "extra_forbidden":
            loc = tuple(err["loc"])
            unknown.setdefault(loc[:-1], []).append(str(loc[-1]))
    out: list[str] = []
    for err in e.errors():
        loc = tuple(err["loc"])
        where = ".".join(str(x) for x in loc) or "(top level)"
        line = None if err["type"] == "missing" else _line_of(lines, loc)  # a missing key has no line
        msg = err["msg"]
        parent = loc[:-1]
        known = _fields_at(model, [p for p in parent if isinstance(p, str)]) if all(isinstance(p, str) for p in parent) else []
        if err["type"] == "extra_forbidden":
            close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
            msg = "unknown field" + (f" (did you mean {close[0]!r}?)" if close else
                                     (f"; known fields: {', '.join(known)}" if known else ""))
        elif err["type"] == "missing":
            typo = difflib.get_close_matches(str(loc[-1]), unknown.get(parent, []), n=1, cutoff=0.6)
            if typo:
                msg += f" ({typo[0]!r} is written instead?)"
        elif "input" in err and not isinstance(err["input"], (dict, list)):
            msg += f" (got {err['input']!r})"
        out.append(f"{source}{f':{line}' if line else ''}: {where}: {msg}")
    return out


def _line_of(lines: dict[tuple[str | int, ...], int], loc: tuple[Any, ...]) -> int | None:
    for n in range(len(loc), -1, -1):
        if loc[:n] in lines:
            return lines[loc[:n]]
    return None
