"""What makes a leaderboard reproducible, gathered from what the run recorded.

Sources, most trusted first:

1. ``tournament.json`` next to the results (written by ``arena run``): name,
   config hash, seed (published once the tournament is complete), match
   settings (profile, format, time control, sandbox, fault policy), schedule,
   blocks per pairing, entries, anchor.
2. A config file given with ``--config`` (the same facts, from the YAML).
3. The results lines themselves: config hashes, bots and digests, and the
   rule profile and deal limits stored in every game record.

A fact none of them holds stays ``None`` (shown as "unknown"); nothing is
guessed. ``rated_with`` is the version of the harness that *rated* the
results, which is a fact about this leaderboard, not about the games.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Sequence

from pydantic import BaseModel, ConfigDict

from .. import __version__
from ..engine import RuleProfile
from ..results import JsonObject, ResultLine
from .load import BotInfo

META_NAME = "tournament.json"


class _Facts(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BotProvenance(_Facts):
    id: str
    name: str
    version: str | None
    digest: str


class MatchFormat(_Facts):
    """How long a game lasts: to the target (``game``, capped at ``max_deals``) or a fixed number of deals."""

    format: str  # "game" or "deals"
    deals: int | None
    max_deals: int | None


class Provenance(_Facts):
    """Reproducibility facts of one leaderboard (``None`` = unknown): the document's ``provenance``.

    The settings are kept as the run's files wrote them (``JsonObject``): a leaderboard prints them as
    found, and an older run's files may hold fields this harness no longer knows.
    """

    config_name: str | None = None
    config_hashes: list[str] = []
    tournament_seed: str | None = None
    complete: bool | None = None
    rule_profile: JsonObject | None = None
    mixed_profiles: list[str] = []  # the profiles' names when the records name several
    match_format: MatchFormat | None = None
    time_control: JsonObject | None = None
    sandbox: str | None = None
    fault_policy: JsonObject | None = None
    schedule: JsonObject | None = None
    blocks: int = 0  # blocks in the results file
    blocks_per_pairing: int | None = None
    pairings: int = 0
    deal_files: list[str] | None = None
    bots: list[BotProvenance] = []
    harness_version: str | None = None  # the harness that played the games
    rated_with: str = __version__
    sources: list[str] = []


def read_meta(results_path: Path) -> dict[str, Any] | None:
    """``tournament.json`` from the results' folder, if present and readable."""
    folder = results_path if results_path.is_dir() else results_path.parent
    p = folder / META_NAME
    try:
        obj = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def read_config(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A tournament config as the same kind of dict ``tournament.json`` holds.

    Uses the schedule layer's validator so defaults are filled in exactly as
    the runner would; the seed is included because the user handed us the
    config (it is the user's to publish).
    """
    from ..schedule.config import load_config

    t = load_config(path)
    c = t.config
    return {
        "name": c.name,
        "config_hash": t.config_hash(),
        "seed": c.seed,
        "match": c.match.model_dump(mode="json"),
        "schedule": c.schedule.model_dump(mode="json"),
        "blocks": c.blocks,
        "entries": [{"name": e.name, "digest": e.digest, "version": e.manifest.version} for e in t.entries],
        "deal_files": t.deal_digests,
        "anchor": (t.by_ref[c.anchor].name if c.anchor in t.by_ref else c.anchor) if c.anchor else None,
    }


def _from_records(lines: Sequence[ResultLine]) -> tuple[list[dict[str, Any]], MatchFormat | None]:
    """Every distinct rule profile the game records carry, and their deal limits (None if they disagree)."""
    profiles: dict[str, dict[str, Any]] = {}
    formats: dict[str, MatchFormat] = {}
    for ln in lines:
        for g in ln.games:
            rec = g.record
            if isinstance(rec.get("profile"), dict):
                profiles[json.dumps(rec["profile"], sort_keys=True)] = rec["profile"]
            if "max_deals" in rec or "fixed_deals" in rec:
                fixed = rec.get("fixed_deals")
                fm = MatchFormat(format="deals" if fixed else "game", deals=fixed, max_deals=rec.get("max_deals"))
                formats[fm.model_dump_json()] = fm
    fmt = next(iter(formats.values())) if len(formats) == 1 else None
    return list(profiles.values()), fmt


def _in_full(profile: dict[str, Any] | None) -> dict[str, Any] | None:
    """Every parameter of a profile: records leave out later fields at their
    defaults, a leaderboard spells them out (one it cannot parse stays as found)."""
    if profile is None:
        return None
    try:
        return RuleProfile.model_validate(profile).model_dump(mode="json")
    except ValueError:
        return profile


def gather(lines: Sequence[ResultLine], bots: dict[str, BotInfo], *, meta: dict[str, Any] | None = None,
           config: dict[str, Any] | None = None) -> Provenance:
    """Merge the sources (see module docstring) into one ``Provenance``."""
    pv = Provenance()
    srcs = [s for s in (meta, config) if s]
    pv.sources = (["tournament.json"] if meta else []) + (["config"] if config else []) + ["results"]

    def first(key: str) -> Any:
        for s in srcs:
            if s.get(key) is not None:
                return s[key]
        return None

    pv.config_name = first("name")
    pv.config_hashes = sorted({ln.config_hash for ln in lines if ln.config_hash})
    seed = first("seed")
    pv.tournament_seed = None if seed is None else str(seed)
    pv.complete = meta.get("complete") if meta else None
    match = first("match") or {}
    found, rec_format = _from_records(lines)
    pv.rule_profile = _in_full(match.get("profile") or (found[0] if len(found) == 1 else None))
    if pv.rule_profile is None and len(found) > 1:  # results of several rule sets in one file: say which, do not pick one
        pv.mixed_profiles = sorted({str(p.get("name")) for p in found})
    if match.get("format"):
        pv.match_format = MatchFormat(format=match["format"], deals=match.get("deals") if match["format"] == "deals"
                                      else None, max_deals=match.get("max_deals"))
    else:
        pv.match_format = rec_format
    pv.time_control = match.get("time")
    pv.sandbox = match.get("sandbox")
    pv.fault_policy = match.get("faults")
    pv.schedule = first("schedule")
    pv.blocks = len(lines)
    pv.blocks_per_pairing = first("blocks")
    pv.pairings = len({ln.pairing for ln in lines})
    pv.deal_files = first("deal_files")
    pv.harness_version = first("harness_version") or first("harness")
    versions: dict[tuple[str, str], str] = {}
    for s in srcs:
        for e in s.get("entries") or []:
            if isinstance(e, dict) and e.get("version") is not None:
                versions.setdefault((str(e.get("name", e.get("bot"))), str(e.get("digest"))), str(e["version"]))
    pv.bots = [BotProvenance(id=b.id, name=b.name, version=versions.get((b.name, b.digest)), digest=b.digest)
               for b in sorted(bots.values(), key=lambda b: b.id)]
    return pv
