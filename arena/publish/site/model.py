"""Everything the pages show, computed once from a ``Competition``.

Ratings come from the same code as ``arena rate`` (``rate_loaded``): the
final leaderboard over all lines, and one fit per run over the lines that
run had (the ladder's history). Bot vs bot results, average opponent, draw
share, the Cinch statistics and time use are computed here; pages only
format them.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, Sequence

from ...match.show import seat_names
from ...results import LoadedResults
from ..load import game_outcome, table_game
from ..rate import rate_loaded
from .collect import Competition, GameRef
from .stats import BotStats, TimeUse, add_time_use, cinch_stats


@dataclass
class Cell:
    """The row bot's games against the column bot (opposite sides of the table; at a table of n seats,
    every game they played together, scored by where the row bot finished against the column bot)."""

    games: list[str] = field(default_factory=list)
    score: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def pct(self) -> float | None:
        return self.score / len(self.games) if self.games else None


@dataclass
class FaultRow:
    game: str
    seat: int
    kind: str
    message: str
    decision: Any
    deal: Any
    request: Any
    reply: Any
    stderr: str | None
    command: str | None
    seat_name: str = "?"  # how the game names the seat (N E S W, or P1 ... Pn at a table of n seats)


@dataclass
class SiteModel:
    comp: Competition
    doc: dict[str, Any]  # the leaderboard document (docs/leaderboards.md)
    history: list[dict[str, dict[str, Any]]]  # per run: final bot id -> its row in that run's leaderboard
    history_bootstrap: int
    slugs: dict[str, str]
    matrix: dict[tuple[str, str], Cell]
    avg_opponent: dict[str, float | None]
    stats: dict[str, dict[str, BotStats]]  # bot id -> rule profile name -> its statistics under that profile
    time_use: dict[str, TimeUse]
    faults: dict[str, list[FaultRow]]
    entries: dict[str, dict[str, Any]]  # bot id -> tournament.json entry (version, folder, files)
    bank_ms: float | None
    provisional: str | None = None
    private: bool = False  # a host's own copy: bot folders, the host's reproduce commands and stderr tails shown

    @property
    def order(self) -> list[str]:
        """Bot ids in rank order."""
        return [b["bot"] for b in self.doc["bots"]]

    def game_line(self, ref: GameRef) -> dict[str, Any]:
        game: dict[str, Any] = self.comp.lines[ref.line]["games"][ref.half]
        return game


def public_command(cmd: str | None) -> str | None:
    """A reproduce command without the host's paths: the results file becomes ``results.jsonl`` (wherever the
    reader keeps it) and the bot's folder ``BOT_FOLDER``; every other word is kept."""
    if cmd is None:
        return None
    try:
        words = shlex.split(cmd)
    except ValueError:
        return "not published (the host's command did not parse)"
    placeholder = {"reproduce": "results.jsonl", "check-bot": "BOT_FOLDER", "--bot": "BOT_FOLDER"}
    out = [placeholder.get(words[i - 1], w) if i and not w.startswith("-") else w for i, w in enumerate(words)]
    return shlex.join(out)


def slug(text: str, used: set[str]) -> str:
    """A file name for a bot id: readable, and never the same for two ids."""
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:60] or "bot"
    name = base
    if name in used or name.lower() in {u.lower() for u in used}:
        name = f"{base}-{hashlib.blake2b(text.encode(), digest_size=4).hexdigest()}"
    used.add(name)
    return name


def _rate(lines: list[dict[str, Any]], comp: Competition, anchor: tuple[str, float] | None,
          bootstrap: int, early: bool, retire: Sequence[str]) -> dict[str, Any]:
    res = LoadedResults(comp.sources[0], lines, 1 if comp.torn else 0, comp.duplicates)
    doc, _, _ = rate_loaded(res, meta=comp.meta, anchor=anchor, bootstrap=bootstrap, seed=0, early=early,
                            retire=retire)
    return doc


def build_model(comp: Competition, *, anchor: tuple[str, float] | None = None, bootstrap: int = 1000,
                history_bootstrap: int = 200, provisional: str | None = None,
                retire: Sequence[str] = (), private: bool = False, with_stats: bool = True) -> SiteModel:
    """Every page's numbers. Public (the default): no bot folder, no stderr, reproduce commands without the
    host's paths; ``private`` keeps them, for the host's own copy. ``with_stats=False``: leave ``stats`` empty
    (the leaderboard alone needs none; ``write_site`` fills them from the replays it makes for the viewer)."""
    # a provisional page is a run's first blocks, as the live table is: the anchor may not have played yet
    doc = _rate(comp.lines, comp, anchor, bootstrap, early=provisional is not None, retire=retire)
    by_ref = {(b.name, b.digest): b.id for b in comp.bots.values()}
    history: list[dict[str, dict[str, Any]]] = []
    for i, run in enumerate(comp.runs):
        if i == len(comp.runs) - 1 and run.end == len(comp.lines):
            rows = doc["bots"]
        else:
            # an early run the anchor had not entered yet is fitted against the mean
            rows = _rate(comp.lines[:run.end], comp, anchor, history_bootstrap, early=True, retire=retire)["bots"]
        history.append({by_ref[(r["name"], r["digest"])]: r for r in rows if (r["name"], r["digest"]) in by_ref})
    used: set[str] = set()
    slugs = {b: slug(b, used) for b in sorted(comp.bots[k].id for k in comp.bots)}
    rating = {b["bot"]: b["rating"] for b in doc["bots"]}
    matrix: dict[tuple[str, str], Cell] = {}
    opp_sum: dict[str, float] = {}
    opp_n: dict[str, int] = {}
    games_for_stats = []
    time_use: dict[str, TimeUse] = {}
    faults: dict[str, list[FaultRow]] = {}
    bank = ((comp.meta or {}).get("match") or {}).get("time", {}) or {}
    bank_ms = float(bank["bank_ms"]) if isinstance(bank.get("bank_ms"), (int, float)) else None
    # a retired version's games are left out of what the ratings show (crosstable, average opponent), as
    # the leaderboard leaves them out; its own page still lists its statistics, time use and faults
    retired = {by_ref[(r["name"], r["digest"])] for r in doc.get("retired") or [] if (r["name"], r["digest"]) in by_ref}
    def count(row: str, col: str, sc: float, gid: str) -> None:
        c = matrix.setdefault((row, col), Cell())
        c.games.append(gid)
        c.score += sc
        c.wins += sc == 1.0
        c.draws += sc == 0.5
        c.losses += sc == 0.0

    def opponents(b: str, opp: list[float | None]) -> None:
        if opp and all(r is not None for r in opp):
            opp_sum[b] = opp_sum.get(b, 0.0) + sum(opp) / len(opp)  # type: ignore[arg-type]
            opp_n[b] = opp_n.get(b, 0) + 1

    for ref in comp.games:
        line = comp.lines[ref.line]
        g = line["games"][ref.half]
        if ref.table:  # a table of n seats: every other seat is an opponent, results by finish
            tg = table_game(g, comp.bots, ref.id)
            if not retired & set(ref.bots):
                for i, x in enumerate(tg.seats):
                    opponents(x, [rating.get(y) for j, y in enumerate(tg.seats) if j != i])
                    for j, y in enumerate(tg.seats):
                        if x != y:
                            count(x, y, tg.finish(i, j), ref.id)
        else:
            out = game_outcome(g, comp.bots, ref.id)
            sides = [sorted(set(out.side_a)), sorted(set(out.side_b))] if not retired & set(ref.bots) else [[], []]
            for s in (0, 1):
                for b in sides[s]:
                    opponents(b, [rating.get(o) for o in (out.side_a if s == 1 else out.side_b)])
            for x in sides[0]:
                for y in sides[1]:
                    if x != y:
                        count(x, y, out.score_a, ref.id)
                        count(y, x, 1.0 - out.score_a, ref.id)
        games_for_stats.append((g.get("record") or {}, ref.bots))
        run_games = (line.get("run") or {}).get("games") or []
        if ref.half < len(run_games) and isinstance(run_games[ref.half], dict):
            add_time_use(run_games[ref.half], ref.bots, bank_ms, time_use)
        repro = [r for r in (line.get("run") or {}).get("reproduce") or [] if r.get("game") == ref.half]
        tails = {(f.get("seat"), f.get("decision")): f.get("stderr")
                 for f in (run_games[ref.half].get("faults") or [] if ref.half < len(run_games) else [])}
        for f in g.get("faults") or []:
            seat = f.get("seat")
            bot = ref.bots[seat] if isinstance(seat, int) and 0 <= seat < len(ref.bots) else str(f.get("bot"))
            cmd = next((r.get("command") for r in repro if r.get("seat") == seat and r.get("kind") == f.get("kind")), None)
            stderr = tails.get((seat, f.get("decision")))
            if stderr is None:
                stderr = next((r.get("stderr") for r in repro if r.get("seat") == seat), None)
            if not private:
                stderr, cmd = None, public_command(cmd)
            where = seat_names(len(ref.bots))
            faults.setdefault(bot, []).append(FaultRow(ref.id, seat if isinstance(seat, int) else -1,
                                                       str(f.get("kind")), str(f.get("message", "")),
                                                       f.get("decision"), f.get("deal"), f.get("request"),
                                                       f.get("reply"), stderr, cmd,
                                                       where[seat] if isinstance(seat, int) and 0 <= seat < len(where) else "?"))
    entries: dict[str, dict[str, Any]] = {}
    for m in comp.metas:
        for e in (m or {}).get("entries") or []:
            bid = by_ref.get((str(e.get("name")), str(e.get("digest"))))
            if bid and bid not in entries:
                entries[bid] = e if private else {k: v for k, v in e.items() if k != "dir"}
    return SiteModel(comp, doc, history, history_bootstrap, slugs, matrix,
                     {b: (opp_sum[b] / opp_n[b] if opp_n.get(b) else None) for b in slugs},
                     cinch_stats(games_for_stats) if with_stats else {}, time_use, faults, entries, bank_ms,
                     provisional, private)
