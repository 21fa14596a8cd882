"""Everything the pages show, computed once from a ``Competition``.

Ratings come from the same code as ``arena rate`` (``rate_loaded``): the
final leaderboard over all lines, and one fit per run shown over the lines
that run had (the ladder's history, kept in the state once fitted). Bot vs
bot results, average opponents, the Cinch statistics and time use come from
the state's folds (``ledger``), keyed by bot version and named here by the
ids of this build; pages only format them.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Sequence

from ...ratings.memo import ResampleMemo
from ...results import GameLine, Seating
from ..load import _ref
from ..board import BotRow, Leaderboard
from ..leaderboard import PairWords, words
from ..provenance import EntryFacts, RunFacts
from ..rate import NothingToRate, rate_loaded
from .collect import Competition, GameRef, SlimResults
from .ledger import FaultRow as FaultRow
from .ledger import SiteState, refkey
from .ledger import public_command as public_command
from .stats import BotStats, TimeSummary


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
class SiteModel:
    comp: Competition
    doc: Leaderboard  # the leaderboard document (docs/leaderboards.md)
    history: list[dict[str, BotRow]]  # per run shown: final bot id -> its row in that run's leaderboard
    history_bootstrap: int
    slugs: dict[str, str]
    matrix: dict[tuple[str, str], Cell]
    avg_opponent: dict[str, float | None]
    stats: dict[str, dict[str, BotStats]]  # bot id -> rule profile name -> its statistics under that profile
    time_use: dict[str, TimeSummary]  # bot id -> ``TimeUse.summary()``
    faults: dict[str, list[FaultRow]]
    entries: dict[str, EntryFacts]  # bot id -> tournament.json entry (version, folder, files, manifest)
    bank_ms: float | None
    provisional: str | None = None
    private: bool = False  # a host's own copy: bot folders, the host's reproduce commands and stderr tails shown
    history_runs: list[int] = field(default_factory=list)  # the run (1-based) of each entry of ``history``
    blocks: dict[str, int] = field(default_factory=dict)  # partnership A's score over a block (repr) -> blocks
    game_faults: dict[str, list[FaultRow]] = field(default_factory=dict)  # game id -> its faults

    @cached_property
    def words(self) -> PairWords:
        """The leaderboard's words, chosen once (two pairs or tables of n seats): every page asks them."""
        return words(self.doc)

    @property
    def order(self) -> list[str]:
        """Bot ids in rank order."""
        return [b.bot for b in self.doc.bots]

    def game_line(self, ref: GameRef) -> GameLine:
        """The game as the site keeps it (``ledger.slim_game``: its record without the deals)."""
        return self.comp.lines[ref.line].games[ref.half]

    def seating(self, ref: GameRef) -> Seating:
        """The game's ``Seating`` (who sat where, the sides, each one's result)."""
        return self.comp.lines[ref.line].seating(ref.half)


def slug(text: str, used: set[str]) -> str:
    """A file name for a bot id: readable, and never the same for two ids."""
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", text)[:60] or "bot"
    name = base
    if name in used or name.lower() in {u.lower() for u in used}:
        name = f"{base}-{hashlib.blake2b(text.encode(), digest_size=4).hexdigest()}"
    used.add(name)
    return name


def rate_doc(res: SlimResults, comp: Competition, anchor: tuple[str, float] | None, bootstrap: int, early: bool,
             retire: Sequence[str], memo: ResampleMemo | None = None) -> Leaderboard:
    doc, _, _ = rate_loaded(res, meta=comp.meta, anchor=anchor, bootstrap=bootstrap, seed=0, early=early,
                            retire=retire, memo=memo, ids=res.ids, made=res.blocks)
    return doc


#: the history shows at most this many runs: every run up to it, then every 2**k-th (k the smallest that keeps
#: them within it), with the first and the last; a run shown stays shown until k grows, so its fit is kept
HISTORY_RUNS = 12


def history_runs(n: int) -> list[int]:
    """The runs (1-based) the history shows out of ``n``."""
    if n <= HISTORY_RUNS:
        return list(range(1, n + 1))
    step = 1
    while n // step > HISTORY_RUNS - 2:
        step *= 2
    return sorted({1, *range(step, n + 1, step), n})


def history_key(comp: Competition, anchor: tuple[str, float] | None, history_bootstrap: int,
                retire: Sequence[str]) -> str:
    """What an earlier run's fit depends on beyond its lines (and the code, which the state's key names)."""
    meta = comp.meta or RunFacts()
    specs = sorted({*meta.retired, *map(str, retire)})
    labels = [[e.name, e.digest, e.version] for m in comp.metas for e in (m.entries if m else [])
              if isinstance(e, dict)] if specs else None
    return json.dumps([anchor, specs, history_bootstrap, meta.anchor, labels], sort_keys=True)


def _as_history(rows: Sequence[BotRow], bootstrap: int, history_bootstrap: int) -> list[BotRow] | None:
    """This build's rows as a history run over the same lines would have them, or None when that needs a fit
    of its own. The fit of the ratings does not depend on the resamples, so with ``history_bootstrap`` 0 they
    are the rows without their intervals (and with the same resamples, the rows themselves). A history run is
    rated as early results, the leaderboard not: the same rows, since a leaderboard whose anchor had not played
    or whose retired version was missing would have been refused."""
    if history_bootstrap == bootstrap:
        return list(rows)
    if history_bootstrap:
        return None
    return [r.model_copy(update={"ci_low": None, "ci_high": None, "interval_df": None, "interval_withheld": None})
            for r in rows]


def _kept_fit(history: dict[str, Any], comp: Competition, end: int) -> bool:
    """The last build's rows (``_as_history``) stand for the run that ends at ``end``: they were rated over
    the same lines (under the same history key: a new key empties ``history``)."""
    last = history.get("last")
    return last is not None and last["end"] == end and last["sha"] == comp.loaded(end).sha256


def build_model(comp: Competition, state: SiteState, *, anchor: tuple[str, float] | None = None,
                bootstrap: int = 1000, history_bootstrap: int = 200, provisional: str | None = None,
                retire: Sequence[str] = (), private: bool = False) -> SiteModel:
    """Every page's numbers, from the competition and the state's folds (which this brings up to date).

    Public (the default): no bot folder, no stderr, reproduce commands without the host's paths; ``private``
    keeps them, for the host's own copy. The history's earlier runs are fitted once and kept in the state.
    """
    # a provisional page is a run's first blocks, as the live table is: the anchor may not have played yet
    doc = rate_doc(comp.loaded(), comp, anchor, bootstrap, early=provisional is not None, retire=retire,
                   memo=state.memo)
    by_ref = {(b.name, b.digest): b.id for b in comp.bots.values()}
    rk = {refkey(k): v for k, v in by_ref.items()}
    shown = history_runs(len(comp.runs))
    hkey = history_key(comp, anchor, history_bootstrap, retire)
    if state.history.get("key") != hkey:
        state.history = {"key": hkey, "runs": {}}
    kept: dict[str, Any] = {}
    history: list[dict[str, BotRow]] = []
    for n in shown:
        run = comp.runs[n - 1]
        if n == len(comp.runs) and run.end == len(comp.lines):
            rows = doc.bots
        else:
            key = str(run.end)
            if key not in state.history["runs"] and _kept_fit(state.history, comp, run.end):
                state.history["runs"][key] = state.history["last"]["rows"]
            if key not in state.history["runs"]:
                # an early run the anchor had not entered yet is fitted against the mean; one whose every
                # block has a retired version in it has no ratings (its bots show as not entered)
                try:
                    state.history["runs"][key] = [r.model_dump() for r in rate_doc(
                        comp.loaded(run.end), comp, anchor, history_bootstrap, early=True, retire=retire).bots]
                except NothingToRate:
                    state.history["runs"][key] = []
            kept[key] = state.history["runs"][key]  # the state keeps the rows as JSON
            rows = [BotRow.model_validate(r) for r in kept[key]]
        history.append({by_ref[(r.name, r.digest)]: r for r in rows if r.digest is not None
                        and (r.name, r.digest) in by_ref})
    state.history["runs"] = kept  # a run no longer shown is never shown again (see history_runs)
    last = _as_history(doc.bots, bootstrap, history_bootstrap)
    if last is not None:
        state.history["last"] = {"end": len(comp.lines), "sha": comp.loaded().sha256,
                                 "rows": [r.model_dump() for r in last]}
    else:
        state.history.pop("last", None)
    used: set[str] = set()
    slugs = {b: slug(b, used) for b in sorted(comp.bots[k].id for k in comp.bots)}
    rating = {b.bot: b.rating for b in doc.bots}
    # a retired version's games are left out of what the ratings show (crosstable, average opponent), as
    # the leaderboard leaves them out; its own page still lists its statistics, time use and faults
    retired = {refkey((r.name, r.digest)) for r in doc.retired}
    state.fold(retired)
    matrix = {(rk[a], rk[b]): Cell(list(v[0]), v[1], v[2], v[3], v[4]) for (a, b), v in state.cells.items()}
    opp_sum: dict[str, float] = {}
    opp_n: dict[str, int] = {}
    for (b, opp), count in state.opp.items():
        rs = [rating.get(rk[o]) for o in opp]
        if rs and all(r is not None for r in rs):
            opp_sum[rk[b]] = opp_sum.get(rk[b], 0.0) + count * (sum(rs) / len(rs))  # type: ignore[arg-type]
            opp_n[rk[b]] = opp_n.get(rk[b], 0) + count
    stats: dict[str, dict[str, BotStats]] = {}
    for (r, name), (_, st) in state.stats.items():
        if r in rk:
            stats.setdefault(rk[r], {})[name] = st
    time_use = {rk[r]: s for r, s in state.time_use().items() if r in rk}
    faults: dict[str, list[FaultRow]] = {}
    game_faults: dict[str, list[FaultRow]] = {}
    for i in comp.entry_of:
        e = state.entries[i]
        assert e.line is not None
        for h, rows_ in enumerate(e.faults):
            if not rows_:
                continue
            seats = [by_ref[_ref(s)] for s in e.line.games[h].seats]
            for f in rows_:
                bot = seats[f.at] if f.at is not None else f.bot
                row = replace(f, bot=bot)  # the ledger's row names the fault's bot; the pages, its id here
                faults.setdefault(bot, []).append(row)
                game_faults.setdefault(f.game, []).append(row)
    match = comp.meta.match if comp.meta else None
    bank = ((match.time if match else None) or {}).get("bank_ms")
    bank_ms = float(bank) if isinstance(bank, (int, float)) else None
    entries: dict[str, EntryFacts] = {}
    for m in comp.metas:
        for e_ in m.entries if m else []:
            bid = by_ref.get((str(e_.name), str(e_.digest)))
            if bid and bid not in entries:
                entries[bid] = e_ if private else e_.model_copy(update={"dir": None})
    return SiteModel(comp, doc, history, history_bootstrap, slugs, matrix,
                     {b: (opp_sum[b] / opp_n[b] if opp_n.get(b) else None) for b in slugs},
                     stats, time_use, faults, entries, bank_ms, provisional, private,
                     history_runs=shown, blocks=dict(state.blocks), game_faults=game_faults)
