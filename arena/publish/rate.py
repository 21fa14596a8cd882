"""Rating a results file into leaderboards: the library call behind ``arena rate``.

Commands parse arguments and print; this module reads, rates and writes,
and raises ``PublishError`` (one line, naming the file and the fix) for
anything the user must change.
"""

from __future__ import annotations

import json

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..ratings import RatingFitError, RatingReport, rate
from ..ratings.memo import ResampleMemo
from ..results import LoadedResults, ResultsError, read_results
from . import leaderboard
from .board import Leaderboard
from .load import Block, BotInfo, bot_ids, convert
from .provenance import Provenance, RunFacts, gather, read_config, read_facts
from .tempo import TEMPO_FILE, TempoAudit
from .tempo import audit as tempo_audit
from .versions import RetireError, find_versions, mark


class PublishError(ValueError):
    """Results that cannot be rated or written as asked."""


class NothingToRate(PublishError):
    """No block is left to rate (none finished, or every one has a retired version in it)."""


@dataclass
class Published:
    doc: Leaderboard
    report: RatingReport
    results: LoadedResults
    out: Path
    tempo: TempoAudit | None = None  # the host's tempo audit (``arena.publish.tempo``), written as tempo.json


def parse_anchor(text: str) -> tuple[str, float]:
    """``NAME`` or ``NAME=RATING`` (rating 0 by default)."""
    name, sep, value = text.partition("=")
    if not name:
        raise PublishError("--anchor needs a bot name")
    if not sep:
        return name, 0.0
    try:
        return name, float(value)
    except ValueError:
        raise PublishError(f"--anchor: rating {value!r} is not a number") from None


def safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "results"


def rate_results(
    results: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    anchor: tuple[str, float] | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    config: str | os.PathLike[str] | None = None,
    prior: bool = True,
    retire: Sequence[str] = (),
) -> Published:
    """Rate ``results`` and write leaderboard.{md,json,html} to ``out``, and the host's tempo audit
    (run timings, not part of the leaderboard: ``arena.publish.tempo``) as tempo.json beside them."""
    if bootstrap < 0:
        raise PublishError("--bootstrap must be >= 0")
    try:
        res = read_results(results)
    except ResultsError as e:
        raise PublishError(str(e)) from None
    cfg = None
    if config:
        try:
            cfg = read_config(config)
        except Exception as e:  # noqa: BLE001 - ConfigError and whatever loading a bot folder raises
            raise PublishError(str(e)) from None
    meta = read_facts(res.path)
    doc, report, prov = rate_loaded(res, meta=meta, config=cfg, anchor=anchor, bootstrap=bootstrap, seed=seed,
                                    prior=prior, retire=retire)
    name = prov.config_name or safe_name(res.path.resolve().parent.name)
    dest = Path(out) if out else Path("leaderboards") / safe_name(name)
    audit = tempo_audit(res.lines)
    try:
        write_leaderboard(doc, dest)
        write_atomic(dest / TEMPO_FILE, audit.to_json())
    except OSError as e:
        raise PublishError(f"cannot write {dest}: {e.strerror}") from None
    return Published(doc, report, res, dest, audit)


def rate_loaded(res: LoadedResults, *, meta: RunFacts | Mapping[str, object] | None = None,
                config: RunFacts | None = None,
                anchor: tuple[str, float] | None = None, bootstrap: int = 1000, seed: int = 0,
                prior: bool = True, early: bool = False, retire: Sequence[str] = (),
                memo: ResampleMemo | None = None, ids: dict[tuple[str, str], BotInfo] | None = None,
                made: Sequence[Block] | None = None) -> tuple[Leaderboard, RatingReport, Provenance]:
    """Rate loaded results into the leaderboard document (``arena rate``, the site and the live table share this).

    ``early``: the results are a run's first blocks (live standings, the
    provisional site, a ladder's earlier runs), where the anchor may not have
    played yet; the fit is then relative to the mean of the bots, and
    ``rating.anchor_pending`` names the anchor. Finished results with an
    anchor that is not among their bots are refused.

    Versions (``arena.publish.versions``): each name's latest version is
    ranked, earlier ones follow unranked; ``retire`` (with the run's
    ``retired`` and the config's ``retire``) leaves versions out of the fit. ``memo``: the bootstrap's sums
    of the last rating of these results, before they grew (``ratings.memo``: the same numbers, less work).
    ``ids`` (``load.bot_ids`` of ``res.lines``) and ``made`` (each line's block, ``load.Inputs``): what a
    caller that keeps them has already worked out of the lines.
    """
    meta = RunFacts.of(meta)  # ``meta``: tournament.json (read as ``RunFacts`` if it is its JSON)
    specs = [*(meta.retired if meta else []), *(config.retire if config else []), *retire]
    try:
        versions = find_versions(res.lines, specs=specs, sources=(meta, config), strict=not early)
    except (RetireError, ResultsError) as e:
        raise PublishError(str(e)) from None
    lines = [ln for ln in res.lines if versions.keeps(ln)] if versions.retired else res.lines
    if made is not None and versions.retired:
        made = [b for ln, b in zip(res.lines, made) if versions.keeps(ln)]
    try:
        # ids over every line: a version keeps its name@digest
        conv = convert(lines, bot_ids(res.lines) if ids is None else ids, made, own=not versions.retired)
    except ResultsError as e:
        raise PublishError(str(e)) from None
    if not conv.blocks:
        raise NothingToRate(f"{res.path}: no finished blocks to rate" + (" (once the retired versions' blocks are"
                                                                       " left out)" if versions.retired else ""))
    prov = gather(lines, conv.bots, meta=meta, config=config)
    named = (meta.anchor if meta else None) or (config.anchor if config else None)
    if anchor is None and named:
        anchor = (named, 0.0)
    pending: str | None = None
    if anchor is not None and anchor[0] not in conv.bots:
        # a name stands for its ranked (latest) version
        by_name = [b.id for b in conv.bots.values() if b.name == anchor[0] and b.digest == versions.latest(b.name)]
        if len(by_name) == 1:
            anchor = (by_name[0], anchor[1])
        elif early and not by_name:
            pending, anchor = anchor[0], None
        else:
            raise PublishError(f"anchor {anchor[0]!r} is not a bot in these results (bots: {', '.join(sorted(conv.bots))})")
    try:
        report = rate(conv.blocks, anchor=anchor, prior=prior, bootstrap=bootstrap, seed=seed, memo=memo)
    except RatingFitError as e:
        raise PublishError(f"cannot fit ratings: {e}") from None
    doc = leaderboard.build(report, prov, res, anchor=anchor)
    mark(doc, versions)
    if pending is not None:
        doc.rating.anchor_pending = pending
        doc.rating.anchor_text = f"{doc.rating.anchor_text} (the anchor {pending} has no games yet)"
    return doc, report, prov


def write_leaderboard(doc: Leaderboard, out: Path) -> None:
    """Write the three files; each is replaced atomically."""
    out.mkdir(parents=True, exist_ok=True)
    for fname, text in (("leaderboard.json", doc.to_json()),
                        ("leaderboard.md", leaderboard.render_markdown(doc)),
                        ("leaderboard.html", leaderboard.render_html(doc))):
        write_atomic(out / fname, text)


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)
