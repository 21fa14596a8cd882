"""Live standings: the final leaderboard's ratings table, from the blocks stored so far.

``arena run`` shows this below its progress line while the games go on. It
goes through the same fit and the same table code as ``arena rate`` (see
:func:`arena.publish.rate.rate_loaded` and
:func:`arena.publish.leaderboard.main_table`), only without the bootstrap:
intervals take most of the rating time, so the live table says
"at the end" in their column instead of printing a misleading interval.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping, Sequence

from ..results import LoadedResults, ResultLine
from . import leaderboard
from .provenance import RunFacts, read_facts
from .rate import PublishError, rate_loaded

LATER = "at the end"


class _InMemory(LoadedResults):
    """The stored lines as the runner holds them. No digest: the table never shows it, and hashing
    every game record was most of a live render's time (a 1,200-block run: 0.55 s of 0.72 s)."""

    @property
    def sha256(self) -> str:
        return "not computed (live standings)"


def live_table(lines: Sequence[ResultLine], *, path: Path = Path("results.jsonl"),
               meta: RunFacts | Mapping[str, object] | None = None, entrants: Sequence[str] = ()) -> str:
    """The provisional ratings table of ``lines`` (plain text, several lines).

    ``meta`` is the run's tournament.json (its anchor pins the same bot the
    final leaderboard pins).
    ``entrants`` are the bot names the tournament expects; those without a
    game yet are named under the table rather than ranked. Input the fit
    cannot take yet is said in one line, never raised: the games go on.
    """
    if not lines:
        return "(no blocks finished yet)"
    res = _InMemory(path=path, lines=list(lines))
    try:
        doc, _, _ = rate_loaded(res, meta=meta, bootstrap=0, early=True)
    except PublishError as e:
        return f"(no ratings yet: {e})"
    pending = doc.rating.anchor_pending
    note = f"\nratings relative to the mean of these bots: the anchor {pending} has no games yet" if pending else ""
    out = leaderboard.main_table(doc, "simple", missing_interval=LATER) + note
    seen = {b.name for b in doc.bots} | {b.bot for b in doc.bots}
    waiting = [n for n in dict.fromkeys(entrants) if n not in seen]
    if waiting:
        out += f"\nno games yet: {', '.join(waiting)}"
    return out


def live_renderer(results: Path, *, entrants: Sequence[str] = ()) -> Callable[[list[ResultLine]], str]:
    """``live_table`` bound to one tournament's results folder, in the shape ``Progress`` takes."""
    return lambda lines: live_table(lines, path=results, meta=read_facts(results), entrants=entrants)
