"""Versions of one bot in one set of results: which one is ranked, which are history, which are retired.

A bot that changed (``arena run --new-version``) has several digests under
one name. Every version's games count in the fit (they are evidence about
its opponents too), but only each name's **latest** version is ranked; the
earlier ones are shown as history, linked to the version that replaced
them. Latest means the version whose first game comes last in the results
(results are appended in the order they are played). A **retired** version
(the config's ``retire:`` list, ``--retire NAME@VERSION``) is left out of
the ratings altogether: every block it played in is dropped, so its games
move no one's rating, and the leaderboard lists it as retired.

``NAME@VERSION`` names a version by the manifest's ``version`` or by a
prefix (6 or more hex digits) of its digest; a spec that names no version in
the results is an error, so a typo never passes unnoticed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from ..results import ResultLine
from .board import BotRow, Leaderboard, RetiredRow
from .provenance import RunFacts, entry_versions
from .load import _ref

Ref = tuple[str, str]  # (name, digest)


class RetireError(ValueError):
    """A ``retire`` spec that names no version of the results."""


@dataclass
class Versions:
    order: dict[str, list[str]]  # name -> digests, oldest first (by first game)
    labels: dict[Ref, str | None]  # manifest version, when the run's files say
    retired: set[Ref]

    def latest(self, name: str) -> str | None:
        """The digest ranked for ``name``: its newest version that is not retired."""
        live = [d for d in self.order.get(name, []) if (name, d) not in self.retired]
        return live[-1] if live else None

    def keeps(self, line: ResultLine) -> bool:
        """False for a block a retired version played in."""
        return not any(_ref(s) in self.retired for g in line.games for s in g.seats)


def find_versions(lines: Sequence[ResultLine], *, specs: Iterable[str] = (),
                  sources: Iterable[RunFacts | None] = (), strict: bool = True) -> Versions:
    """The versions of every bot in ``lines`` and the set the ``specs`` retire.

    ``strict`` False (a run's first blocks) skips a spec naming a version
    that has not played yet; the final rating refuses it.
    """
    order: dict[str, list[str]] = {}
    done: set[int] = set()  # seats seen (a site's lines share their seat objects), alive in ``lines``
    for line in lines:
        for g in line.games:
            for s in g.seats:
                if id(s) in done:
                    continue
                done.add(id(s))
                name, digest = _ref(s)
                seen = order.setdefault(name, [])
                if digest not in seen:
                    seen.append(digest)
    known = entry_versions(sources)
    labels: dict[Ref, str | None] = {(n, d): known.get((n, d)) for n, ds in order.items() for d in ds}
    retired: set[Ref] = set()
    for spec in dict.fromkeys(specs):
        try:
            retired |= _resolve(spec, order, labels)
        except RetireError:
            if strict:
                raise
    return Versions(order, labels, retired)


def _resolve(spec: str, order: dict[str, list[str]], labels: dict[Ref, str | None]) -> set[Ref]:
    name, sep, which = str(spec).partition("@")
    if not sep or not name or not which:
        raise RetireError(f"retire: {spec!r} is not NAME@VERSION (the manifest's version or a digest prefix)")
    if name not in order:
        raise RetireError(f"retire: {spec!r}: no bot {name!r} in these results (bots: {', '.join(sorted(order))})")
    by_label = {(name, d) for d in order[name] if labels.get((name, d)) == which}
    by_digest = ({(name, d) for d in order[name] if d.startswith(which.lower())}
                 if re.fullmatch(r"[0-9a-fA-F]{6,64}", which) else set())
    found = by_label or by_digest
    if not found:
        have = ", ".join(f"{labels.get((name, d)) or '?'} (digest {d[:12]})" for d in order[name])
        raise RetireError(f"retire: {spec!r} names no version of {name} in these results (versions: {have})")
    return found


def mark(doc: Leaderboard, versions: Versions) -> None:
    """Rank each name's latest version alone; earlier versions follow, unranked, linked to the latest.

    Sets on every row ``latest`` and ``superseded_by`` (the ranked version's
    id, or None), and on the document ``retired`` (versions left out).
    """
    rows = doc.bots
    id_of = {(r.name, r.digest): r.bot for r in rows}
    top: list[BotRow] = []
    older: list[BotRow] = []
    for r in rows:
        newest = versions.latest(r.name)
        r.latest = r.digest == newest
        r.superseded_by = None if r.latest else id_of.get((r.name, newest or ""))
        (top if r.latest else older).append(r)
    for i, r in enumerate(top, 1):
        r.rank = i
    age = {(n, d): i for n, ds in versions.order.items() for i, d in enumerate(ds)}
    older.sort(key=lambda r: (r.name, age.get((r.name, r.digest or ""), 0)))
    for r in older:
        r.rank = None
    doc.bots = top + older
    doc.retired = [RetiredRow(name=n, digest=d, version=versions.labels.get((n, d)))
                   for n, d in sorted(versions.retired, key=lambda x: (x[0], age.get(x, 0)))]
