"""The games a user's file holds, read once for every command that shows them.

``arena replay`` (text) and ``arena site frames`` (the viewer's data) both
take a results file (or the folder holding one), one results line, a file
from ``arena play --save`` or a bare game record; this is the one reader of
all four. It lives on the match floor because that is the lowest that knows
all three formats: results lines (``arena.results``), records
(``arena.engine``) and saved games (``match.show``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._json import JsonObject
from ..engine.record import RECORD_FORMAT
from ..results import ResultLine, ResultsError, game_id, read_results
from .show import SAVED_GAME

KINDS = "a game record, a file from arena play --save, or a results.jsonl"


class StoredGamesError(ValueError):
    """The file holds no game this reader knows; the message names the file and why."""


@dataclass(frozen=True)
class StoredGame:
    """One game of a file: its record and what the file says about it."""

    record: JsonObject  # the game record as the file holds it (read when replayed)
    id: str
    names: list[str] = field(default_factory=list)  # the bot (or player) at each seat; empty: unknown
    twin: str | None = None  # the other game of its duplicate block, when the file holds it (a table's: the next rotation)
    forfeit_by: int | None = None
    title: str | None = None
    label: str = ""  # how a listing names it
    twins: tuple[str, ...] = ()  # every other game of its block: the twin, or a table's other rotations


def line_games(line: ResultLine) -> list[StoredGame]:
    """The games of one (read) results line."""
    ids = [str(g.id or game_id(line.pairing, line.block, h)) for h, g in enumerate(line.games)]
    return [StoredGame(g.record, ids[h], [s.bot or "?" for s in g.seats],
                       ids[(h + 1) % len(ids)] if len(ids) > 1 else None, g.forfeit_by,
                       label=f"game {ids[h]}: {line.pairing} block {line.block}",
                       twins=tuple(ids[(h + k) % len(ids)] for k in range(1, len(ids))))
            for h, g in enumerate(line.games)]


def games_of(data: Any) -> list[StoredGame]:
    """The games a parsed file holds: results lines (each a block of two games), one results line, a
    saved game or a record. Raises ``ValueError`` for anything else."""
    if isinstance(data, list):
        return [g for x in data for g in games_of(x)]
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if isinstance(data.get("games"), list):
        pairing, block = str(data.get("pairing")), int(data.get("block", 0))
        ids = [str(g.get("id") or game_id(pairing, block, h)) for h, g in enumerate(data["games"])]
        return [StoredGame(g["record"], ids[h], [s.get("bot") or s.get("name") or "?" for s in g.get("seats") or []],
                           ids[(h + 1) % len(ids)] if len(ids) > 1 else None, g.get("forfeit_by"),
                           label=f"game {ids[h]}: {pairing} block {block}",
                           twins=tuple(ids[(h + k) % len(ids)] for k in range(1, len(ids))))
                for h, g in enumerate(data["games"])]
    if data.get("format") == SAVED_GAME:
        return [StoredGame(data["record"], "saved game", list(data.get("players") or []), title="A saved game")]
    if data.get("format") == RECORD_FORMAT:
        return [StoredGame(data, "record", title="A game record")]
    if "record" in data and "seats" in data:
        gid = str(data.get("id") or "game")
        return [StoredGame(data["record"], gid, [s.get("bot") or s.get("name") or "?" for s in data.get("seats") or []],
                           None, data.get("forfeit_by"), label=f"game {gid}")]
    raise ValueError("not a game record, a results line or an `arena play --save` file")


def read_games(path: str | os.PathLike[str]) -> list[StoredGame]:
    """The games of the file (or results folder) at ``path`` (``games_of``); ``StoredGamesError`` with
    one sentence naming the file when it holds none."""
    p = Path(path)
    try:
        if p.is_dir():
            games = [g for ln in read_results(p).lines for g in line_games(ln)]
        else:
            try:
                text = p.read_text()
            except FileNotFoundError:
                raise StoredGamesError(f"{p}: no such file (give {KINDS})") from None
            except OSError as e:
                raise StoredGamesError(f"{p}: cannot read it: {e.strerror}") from None
            try:
                doc = json.loads(text)
            except json.JSONDecodeError:  # JSON lines: a results file, checked as one
                games = [g for ln in read_results(p).lines for g in line_games(ln)]
            else:
                games = games_of(doc)
    except ResultsError as e:
        raise StoredGamesError(f"{p}: neither a game record nor a results file ({e})") from None
    except (ValueError, KeyError, TypeError) as e:
        if isinstance(e, StoredGamesError):
            raise
        raise StoredGamesError(f"{p}: neither a game record nor a results file ({e})") from None
    if not games:
        raise StoredGamesError(f"{p}: holds no game: neither a game record nor a results file with finished blocks")
    return games
