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
from typing import Annotated, Iterable, Mapping, Sequence, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict

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


def _text(v: object) -> str | None:
    return None if v is None else str(v)


#: a fact the run's files may give as a string or a number; read as its text
Text = Annotated[str | None, BeforeValidator(_text)]


def _objects(v: object) -> object:
    """The entries of ``v`` and its JSON objects (another kind of item cannot be read as an entry)."""
    return [e for e in v if isinstance(e, (dict, EntryFacts))] if isinstance(v, list) else []


class EntryFacts(BaseModel):
    """An entry of ``tournament.json``: the bot's name, digest, manifest version, folder, files, manifest."""

    name: Text = None
    bot: Text = None  # the name, in files written before entries had one
    digest: Text = None
    version: Text = None
    dir: Text = None
    files: dict[str, str] = {}  # relative path -> SHA-256
    manifest: JsonObject | None = None

    @property
    def label(self) -> str:
        """The name the entry goes by."""
        return str(self.name if self.name is not None else self.bot)


class MatchFacts(BaseModel):
    """The match settings a run recorded (``match``): as found, they are printed, not interpreted."""

    profile: JsonObject | None = None
    format: Text = None
    deals: int | None = None
    max_deals: int | None = None
    time: JsonObject | None = None
    sandbox: Text = None
    faults: JsonObject | None = None


class RunFacts(BaseModel):
    """What ``tournament.json`` (or a config read with ``--config``) says of a tournament: only the facts
    a leaderboard and a site read; others in the file are left out."""

    name: Text = None
    config_hash: Text = None
    seed: Text = None
    complete: bool | None = None
    match: MatchFacts | None = None
    schedule: JsonObject | None = None
    blocks: int | None = None
    entries: Annotated[list[EntryFacts], BeforeValidator(_objects)] = []
    deal_files: list[str] | None = None
    anchor: Text = None
    harness_version: Text = None
    harness: Text = None
    retired: list[str] = []  # versions the run retired (NAME@VERSION)
    retire: list[str] = []  # the same, in a config

    @classmethod
    def of(cls, obj: RunFacts | Mapping[str, object] | None) -> RunFacts | None:
        """The facts of a JSON object (None for a file this code cannot read as one, as for no file)."""
        if obj is None or isinstance(obj, RunFacts):
            return obj
        try:
            return cls.model_validate(obj)
        except ValueError:
            return None


def read_meta(results_path: Path) -> JsonObject | None:
    """``tournament.json`` from the results' folder, if present and readable."""
    folder = results_path if results_path.is_dir() else results_path.parent
    p = folder / META_NAME
    try:
        obj = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return obj if isinstance(obj, dict) else None


def read_facts(results_path: Path) -> RunFacts | None:
    """``read_meta``'s file as ``RunFacts``."""
    return RunFacts.of(read_meta(results_path))


def read_config(path: str | os.PathLike[str]) -> RunFacts:
    """A tournament config as the same facts ``tournament.json`` holds.

    Uses the schedule layer's validator so defaults are filled in exactly as
    the runner would; the seed is included because the user handed us the
    config (it is the user's to publish).
    """
    from ..schedule.config import load_config

    t = load_config(path)
    c = t.config
    return RunFacts(
        name=c.name, config_hash=t.config_hash(), seed=str(c.seed),
        match=MatchFacts.model_validate(c.match.model_dump(mode="json")),
        schedule=c.schedule.model_dump(mode="json"), blocks=c.blocks,
        entries=[EntryFacts(name=e.name, digest=e.digest, version=e.manifest.version) for e in t.entries],
        deal_files=t.deal_digests,
        anchor=(t.by_ref[c.anchor].name if c.anchor in t.by_ref else c.anchor) if c.anchor else None)


def _from_records(lines: Sequence[ResultLine]) -> tuple[list[JsonObject], MatchFormat | None]:
    """Every distinct rule profile the game records carry, and their deal limits (None if they disagree)."""
    profiles: dict[str, JsonObject] = {}
    formats: dict[str, MatchFormat] = {}
    seen: dict[int, JsonObject] = {}  # each profile object once (a site's lines share them), kept alive here
    limits: set[tuple[object, ...]] = set()  # each (fixed deals, max deals) once, by value and type
    for ln in lines:
        for g in ln.games:
            rec = g.record
            p = rec.get("profile")
            if isinstance(p, dict) and id(p) not in seen:
                seen[id(p)] = p
                profiles[json.dumps(p, sort_keys=True)] = p
            if "max_deals" in rec or "fixed_deals" in rec:
                fixed, most = rec.get("fixed_deals"), rec.get("max_deals")
                k = (type(fixed), fixed, type(most), most)
                if isinstance(fixed, (int, float, type(None))) and isinstance(most, (int, float, type(None))):
                    if k in limits:
                        continue
                    limits.add(k)
                fm = MatchFormat(format="deals" if fixed else "game", deals=fixed, max_deals=most)
                formats[fm.model_dump_json()] = fm
    fmt = next(iter(formats.values())) if len(formats) == 1 else None
    return list(profiles.values()), fmt


def _in_full(profile: JsonObject | None) -> JsonObject | None:
    """Every parameter of a profile: records leave out later fields at their
    defaults, a leaderboard spells them out (one it cannot parse stays as found)."""
    if profile is None:
        return None
    try:
        return RuleProfile.model_validate(profile).model_dump(mode="json")
    except ValueError:
        return profile


def gather(lines: Sequence[ResultLine], bots: dict[str, BotInfo], *, meta: RunFacts | None = None,
           config: RunFacts | None = None) -> Provenance:
    """Merge the sources (see module docstring) into one ``Provenance``: of each fact, the first source's
    that has it."""
    srcs = [s for s in (meta, config) if s]
    match = next((s.match for s in srcs if s.match is not None), MatchFacts())
    found, rec_format = _from_records(lines)
    rule_profile = _in_full(match.profile or (found[0] if len(found) == 1 else None))
    if match.format:
        match_format: MatchFormat | None = MatchFormat(format=match.format, deals=match.deals if match.format == "deals"
                                                        else None, max_deals=match.max_deals)
    else:
        match_format = rec_format
    seed = first(s.seed for s in srcs)
    versions = entry_versions(srcs)
    return Provenance(
        config_name=first(s.name for s in srcs),
        config_hashes=sorted({ln.config_hash for ln in lines if ln.config_hash}),
        tournament_seed=seed,
        complete=meta.complete if meta else None,
        rule_profile=rule_profile,
        # results of several rule sets in one file: say which, do not pick one
        mixed_profiles=sorted({str(p.get("name")) for p in found}) if rule_profile is None and len(found) > 1 else [],
        match_format=match_format,
        time_control=match.time,
        sandbox=match.sandbox,
        fault_policy=match.faults,
        schedule=first(s.schedule for s in srcs),
        blocks=len(lines),
        blocks_per_pairing=first(s.blocks for s in srcs),
        pairings=len({ln.pairing for ln in lines}),
        deal_files=first(s.deal_files for s in srcs),
        bots=[BotProvenance(id=b.id, name=b.name, version=versions.get((b.name, b.digest)), digest=b.digest)
              for b in sorted(bots.values(), key=lambda b: b.id)],
        harness_version=first(s.harness_version for s in srcs) or first(s.harness for s in srcs),
        sources=(["tournament.json"] if meta else []) + (["config"] if config else []) + ["results"])


def entry_versions(sources: Iterable[RunFacts | None]) -> dict[tuple[str, str], str]:
    """(name, digest) -> manifest version, from tournament.json-like ``entries`` lists."""
    out: dict[tuple[str, str], str] = {}
    for s in sources:
        for e in s.entries if s else []:
            if e.version is not None:
                out.setdefault((e.label, str(e.digest)), e.version)
    return out


T = TypeVar("T")


def first(values: Iterable[T | None]) -> T | None:
    """The first value that is not None."""
    return next((v for v in values if v is not None), None)
