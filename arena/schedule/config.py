"""Tournament configs: one YAML file, validated before anything runs.

Every problem is reported at once, each as ``FILE:LINE: dotted.field:
message`` (with a suggestion for a misspelt key), so the author sees exactly
which lines to fix. Relative paths in the file (entries, deal files,
``out``) are resolved against the config file's own folder, so a config
runs the same from any working directory. ``arena sprt`` builds its
tournament from the same model (``build_tournament``), so it is validated,
hashed and run exactly like a file's.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Sequence, TypedDict, cast

import yaml
from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, ValidationError, field_validator, model_serializer,
                      model_validator)

from .._json import JsonObject
from ..engine import DealFile
from ..match import MatchSettings
from ..match.keys import Seed, seed_text
from ..players import BotEntry, ManifestError, ProfileRefused, load_entry, require_profile
from ..sandbox import LimitsError
from ..players.yamlerrors import describe
from .pairings import Pairing, plan_pairings
from .tables import Table, plan_problem, table_plan

CONFIG_HASH_VERSION = 1


class ConfigOverrides(TypedDict, total=False):
    """What the command line gives over a config's top-level fields (``load_config``; None: not given)."""

    workers: int | None
    blocks: int | None
    seed: str | None
    out: str | None
    backend: str | None
    ray_address: str | None
    leaderboard: str | None
    site: str | None
    retire: list[str] | None  # joins the config's retire: list
    time: JsonObject | None  # replaces the config's match.time fields it names


class ConfigError(ValueError):
    """A config that cannot run; the message names the file and the field. ``problems``: each problem as
    (dotted field, message), for a caller that acts on one field's problems (the ladder retires the entry
    they name) without reading the text."""

    def __init__(self, message: str, problems: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.problems: list[tuple[str, str]] = list(problems)


Matchup = Literal["pair", "mixed"]


def _all_matchups() -> list[Matchup]:
    return ["pair", "mixed"]


class ScheduleSpec(BaseModel):
    """Who plays whom. See docs/tournaments.md for seats in each game."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["round_robin", "gauntlet", "mixed", "sprt"] = "round_robin"
    candidate: str | None = Field(None, description="gauntlet, sprt: the entry (path, as listed in entries) under test")
    baselines: list[str] | None = Field(None, description="gauntlet: entries it meets (default all others); sprt: the one baseline")
    matchups: list[Matchup] = Field(
        default_factory=_all_matchups,
        description="sprt: pair = candidate+candidate vs baseline+baseline; mixed = candidate+baseline vs baseline+baseline",
    )
    tables: int | Literal["all"] = Field(
        "all", description="at a table of other than two pairs: 'all' (every combination of entrants each block)"
        " or T, a balanced design of T tables per block (docs/tournaments.md)")

    @field_validator("tables")
    @classmethod
    def _tables_positive(cls, v: Any) -> Any:
        if isinstance(v, int) and v < 1:
            raise ValueError("tables must be 'all' or at least 1")
        return v

    @model_serializer(mode="wrap")
    def _without_default_tables(self, handler: Any) -> Any:
        """``tables: all`` (the default) is left out of the dump: a folder's tournament.json written before
        the field existed describes the same schedule, so its tournament still resumes."""
        d = handler(self)
        if isinstance(d, dict) and d.get("tables") == "all":
            d.pop("tables")
        return d

    @model_validator(mode="after")
    def _needs_candidate(self) -> "ScheduleSpec":
        if self.kind in ("gauntlet", "sprt") and not self.candidate:
            raise ValueError(f"a {self.kind} needs 'candidate'")
        if self.kind not in ("gauntlet", "sprt") and (self.candidate or self.baselines):
            raise ValueError(f"'candidate' and 'baselines' only apply to a gauntlet or an sprt, not to {self.kind!r}")
        if self.kind == "sprt" and (not self.baselines or len(self.baselines) != 1):
            raise ValueError("an sprt needs exactly one entry in 'baselines'")
        if not self.matchups or len(set(self.matchups)) != len(self.matchups):
            raise ValueError("'matchups' takes pair and/or mixed, each once")
        return self


class SPRTSpec(BaseModel):
    """The stopping rule of an SPRT tournament (``arena sprt``); see docs/ratings.md."""

    model_config = ConfigDict(extra="forbid")

    elo0: float = Field(0.0, description="H0: the candidate is this much better, per-bot logistic Elo")
    elo1: float = Field(10.0, description="H1: the candidate is this much better, per-bot logistic Elo")
    alpha: float = Field(0.05, gt=0, lt=1, description="false-pass rate of the whole run")
    beta: float = Field(0.05, gt=0, lt=1, description="false-fail rate of the whole run")
    mode: Literal["pentanomial", "points"] = Field("pentanomial", description="points: score blocks by the points difference (deals format)")
    points0: float = Field(0.0, description="points mode, H0: the candidate gains this many points per block, per bot")
    points1: float = Field(5.0, description="points mode, H1: the candidate gains this many points per block, per bot")
    min_blocks: int = Field(10, ge=1, description="blocks per matchup before any decision")

    @model_validator(mode="after")
    def _bounds(self) -> "SPRTSpec":
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")
        if not self.points0 < self.points1:
            raise ValueError(f"points0 ({self.points0:g}) must be below points1 ({self.points1:g})")
        return self


class TournamentConfig(BaseModel):
    """What a tournament YAML file holds."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    entries: list[str] = Field(min_length=1, description="bot folders or bot.yaml paths (at least 2, but for an sprt)")
    match: MatchSettings = MatchSettings()
    blocks: int = Field(1, ge=1, description="duplicate blocks per pairing")
    seed: Annotated[Seed, BeforeValidator(seed_text)] = Field(
        min_length=1, description="tournament seed: secret while running, published after (an integer is its decimal text)")
    schedule: ScheduleSpec = ScheduleSpec()
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=1)
    ray_address: str | None = None
    backend: Literal["ray", "serial"] = "ray"
    nice: int | None = Field(
        -5, ge=-20, le=19,
        description="priority the match workers (and their bots) run at; below 0 keeps host load from eating bots' wall-clock allowance (needs root; null leaves it)",
    )
    retries: int = Field(3, ge=1, description="attempts per block before it is reported as a harness failure")
    out: str = Field("runs/tournament", min_length=1)
    leaderboard: str | None = Field(
        None, description="where the run's leaderboard goes (default: <out>/leaderboard)"
    )
    site: str | None = Field(
        None, description="write the static site here at the end (and provisional standings while it runs)"
    )
    deal_files: list[str] = Field(default_factory=list, description="block i replays deal_files[i]")
    anchor: str | None = Field(None, description="entry whose rating is pinned (for the ratings step)")
    retire: list[Annotated[str, StringConstraints(pattern=r"^[^@\s]+@\S+$")]] = Field(
        default_factory=list, description="bot versions left out of the ratings: NAME@VERSION (the manifest's version"
        " or a digest prefix); each bot's latest version is ranked, earlier ones shown as history")
    sprt: SPRTSpec | None = Field(None, description="stop early when an SPRT decides (needs schedule kind sprt)")

    @model_validator(mode="after")
    def _sprt_pairs(self) -> "TournamentConfig":
        if self.schedule.kind != "sprt" and len(self.entries) < 2:
            raise ValueError("a tournament needs at least 2 entries")
        if (self.sprt is None) != (self.schedule.kind != "sprt"):
            raise ValueError("'sprt' settings and schedule kind 'sprt' go together")
        if self.sprt is not None and self.sprt.mode == "points" and self.match.format != "deals":
            raise ValueError("an SPRT in points mode needs match.format: deals")
        return self

    @property
    def at_tables(self) -> bool:
        """Whether the games are at tables of n seats without fixed pairs (played by rotation)."""
        return self.match.profile.sides != "pairs"


@dataclass
class Tournament:
    """A validated config with its entries loaded and paths resolved."""

    config: TournamentConfig
    path: Path
    entries: list[BotEntry]
    by_ref: dict[str, BotEntry]  # entry as written in the config -> loaded entry
    deal_files: list[DealFile] = field(default_factory=list)
    deal_digests: list[str] = field(default_factory=list)
    candidate: BotEntry | None = None  # gauntlet and sprt
    baselines: list[BotEntry] = field(default_factory=list)  # gauntlet and sprt

    @property
    def pairings(self) -> list[Pairing]:
        s = self.config.schedule
        return plan_pairings(s.kind, self.entries, self.candidate, self.baselines, s.matchups)

    def tables(self) -> list[list[Table]]:
        """At a table of n seats: the tables of each block (``arena.schedule.tables``)."""
        s = self.config.schedule
        return table_plan(s.kind, self.entries, self.settings.profile.players, self.config.blocks,
                          None if s.tables == "all" else s.tables, self.candidate, self.baselines)

    @property
    def out(self) -> Path:
        return Path(self.config.out)

    @property
    def settings(self) -> MatchSettings:
        return self.config.match

    def config_hash(self) -> str:
        """Hash of everything that shapes a block's result.

        Entries and block count are left out on purpose (extending a
        tournament is allowed), and so are workers, backend, Ray address and
        output folder (they change how it runs, not what it produces).
        """
        facts = {
            "v": CONFIG_HASH_VERSION,
            "seed": self.config.seed,
            "match": self.config.match.hash_facts(),
            "deal_files": self.deal_digests,
        }
        text = json.dumps(facts, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:32]


def _resolve(base: Path, p: str) -> Path:
    q = Path(os.path.expanduser(p))
    return (q if q.is_absolute() else base / q).resolve()


def load_config(path: str | os.PathLike[str], overrides: ConfigOverrides | None = None) -> Tournament:
    """Read, validate and resolve a config file; ``ConfigError`` lists every problem.

    ``overrides`` (from the command line) replace top-level fields before
    validation, so they are checked the same way; a relative ``out`` given
    there is taken relative to the working directory.
    """
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such config file") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read: {e.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{p}{where}: not valid YAML: {getattr(e, 'problem', None) or e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: (top level): expected a mapping of fields")
    base = p.parent.resolve()
    for k in ("out", "leaderboard", "site"):
        if data.get(k) is not None:
            data[k] = str(_resolve(base, str(data[k])))
    for k, v in (overrides or {}).items():
        if v is None:
            continue
        if k == "time":  # match settings: the fields given replace the config's match.time fields
            match = data.setdefault("match", {}) if isinstance(data.get("match", {}), dict) else {}
            if isinstance(match.setdefault("time", {}), dict):
                match["time"].update(cast(JsonObject, v))
        elif k == "retire":  # the command line's versions join the config's
            data[k] = [*(data.get(k) or []), *cast(list[str], v)] if isinstance(data.get(k) or [], list) else data.get(k)
        else:
            data[k] = str(Path(cast(str, v)).resolve()) if k in ("out", "leaderboard", "site") else v
    return build_tournament(data, base, str(p), text)


def build_tournament(data: JsonObject, base: Path, source: str, text: str | None = None) -> Tournament:
    """Validate config data and load its entries; ``ConfigError`` lists every problem at once."""
    problems: list[tuple[str, str]] = []
    try:
        cfg = TournamentConfig.model_validate(data)
    except ValidationError as e:
        raise ConfigError("\n".join(describe(e, TournamentConfig, source, text, data)),
                          [(".".join(str(x) for x in err["loc"]), err["msg"]) for err in e.errors()]) from None
    if "out" not in data:
        cfg.out = str(base / cfg.out)

    def fail(where: str, msg: str) -> None:
        problems.append((where, msg))

    entries: list[BotEntry] = []
    by_ref: dict[str, BotEntry] = {}
    seen: dict[str, int] = {}
    for i, ref in enumerate(cfg.entries):
        target = _resolve(base, ref)
        if not target.exists():
            fail(f"entries.{i}", f"no bot folder or manifest at {target}")
            continue
        try:
            entry = load_entry(target)
        except ManifestError as e:
            for problem in str(e).splitlines():  # a manifest lists each of its mistakes on a line
                fail(f"entries.{i}", problem)
            continue
        if entry.name in seen and cfg.schedule.kind != "sprt":  # an sprt may test a bot against its own copy
            fail(f"entries.{i}", f"bot name {entry.name!r} is already used by entries.{seen[entry.name]}")
            continue
        by_ref[ref] = entry
        if any(e.ident == entry.ident for e in entries):
            continue
        try:
            require_profile(entry, cfg.match.profile.name)
        except ProfileRefused as e:
            fail(f"entries.{i}", f"{e}: this tournament plays match.profile {cfg.match.profile.name!r}")
            continue
        try:
            cfg.match.limits_for(entry.manifest.limits)  # a manifest may only ask for less than the competition
        except LimitsError as e:
            fail(f"entries.{i}", f"{entry.dir}/bot.yaml: {e}")
            continue
        seen[entry.name] = i
        entries.append(entry)

    def lookup(ref: str, where: str) -> BotEntry | None:
        if ref in by_ref:
            return by_ref[ref]
        named = [e for e in entries if e.name == ref]
        if named:
            return named[0]
        fail(where, f"{ref!r} is neither one of the entries nor the name of one")
        return None

    sched = cfg.schedule
    cand: BotEntry | None = None
    baselines: list[BotEntry] = []
    if sched.kind in ("gauntlet", "sprt"):
        cand = lookup(sched.candidate or "", "schedule.candidate")
        if sched.baselines is None:
            baselines = [e for e in entries if e != cand]
        for j, b in enumerate(sched.baselines or []):
            base_entry = lookup(b, f"schedule.baselines.{j}")
            if base_entry is None:
                continue
            if base_entry == cand and sched.kind == "gauntlet":
                fail(f"schedule.baselines.{j}", "the candidate cannot be its own baseline")
            baselines.append(base_entry)
    if sched.kind == "mixed" and len(entries) < 4:
        fail("entries", f"mixed partnerships need at least 4 entries, got {len(entries)}")
    prof = cfg.match.profile
    if prof.sides != "pairs":  # a table of n seats: its own schedules (arena.schedule.tables)
        n = prof.players
        if sched.kind not in ("round_robin", "gauntlet"):
            fail("schedule.kind", f"{sched.kind} is a schedule of two pairs; match.profile {prof.name} (a table of {n}"
                                  " without fixed pairs) plays round_robin or gauntlet")
        elif sched.kind == "round_robin" and len(entries) < n:
            fail("entries", f"match.profile {prof.name} seats {n} players: a round robin needs at least {n} entries,"
                            f" got {len(entries)}")
        elif sched.kind == "gauntlet" and cand is not None and len(baselines) < n - 1:
            fail("schedule.baselines", f"match.profile {prof.name} seats {n} players: a gauntlet needs at least {n - 1}"
                                       f" baselines beside the candidate, got {len(baselines)}")
        else:
            pool = len(entries) if sched.kind == "round_robin" else len(baselines) + 1
            why = plan_problem(sched.kind, pool, n, None if sched.tables == "all" else sched.tables)
            if why:
                fail("schedule.tables", why)
    elif sched.tables != "all":
        fail("schedule.tables", f"a number of tables is for a table of other than two pairs; match.profile"
                                f" {prof.name} plays pairings")
    if cfg.anchor is not None:
        lookup(cfg.anchor, "anchor")

    deal_files: list[DealFile] = []
    digests: list[str] = []
    for i, df in enumerate(cfg.deal_files):
        target = _resolve(base, df)
        try:
            raw = target.read_bytes()
            deal_files.append(DealFile.model_validate(json.loads(raw)))
        except OSError as e:
            fail(f"deal_files.{i}", f"cannot read {target}: {e.strerror}")
            continue
        except ValidationError as e:
            err = e.errors()[0]
            fail(f"deal_files.{i}", f"{target}: {'.'.join(str(x) for x in err['loc'])}: {err['msg']}")
            continue
        except ValueError as e:
            fail(f"deal_files.{i}", f"{target}: not JSON: {e}")
            continue
        try:
            deal_files[-1].check_profile(cfg.match.profile)
        except ValueError as e:
            fail(f"deal_files.{i}", f"{target}: {e}")
            deal_files.pop()
            continue
        digests.append(hashlib.sha256(deal_files[-1].model_dump_json().encode()).hexdigest()[:32])
    if problems:
        raise ConfigError("\n".join(f"{source}: {where}: {msg}" for where, msg in problems), problems)
    return Tournament(cfg, Path(source), entries, by_ref, deal_files, digests, cand, baselines)
