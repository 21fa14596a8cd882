"""Tournament configs: one YAML file, validated before anything runs.

Every problem is reported as ``FILE: dotted.field: message`` so the author
sees exactly which line to fix. Relative paths in the file (entries, deal
files, ``out``) are resolved against the config file's own folder, so a
config runs the same from any working directory.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..engine import DealFile, get_profile
from ..match import MatchSettings
from ..players import BotEntry, ManifestError, load_entry

CONFIG_HASH_VERSION = 1


class ConfigError(ValueError):
    """A config that cannot run; the message names the file and the field."""


class ScheduleSpec(BaseModel):
    """Who plays whom. See docs/tournaments.md for seats in each game."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["round_robin", "gauntlet", "mixed"] = "round_robin"
    candidate: str | None = Field(None, description="gauntlet: the entry (path, as listed in entries) under test")
    baselines: list[str] | None = Field(None, description="gauntlet: entries it meets; default all other entries")

    @model_validator(mode="after")
    def _gauntlet_needs_candidate(self) -> "ScheduleSpec":
        if self.kind == "gauntlet" and not self.candidate:
            raise ValueError("a gauntlet needs 'candidate'")
        if self.kind != "gauntlet" and (self.candidate or self.baselines):
            raise ValueError(f"'candidate' and 'baselines' only apply to a gauntlet, not to {self.kind!r}")
        return self


class TournamentConfig(BaseModel):
    """What a tournament YAML file holds."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    entries: list[str] = Field(min_length=2, description="bot folders or bot.yaml paths")
    match: MatchSettings = MatchSettings()
    blocks: int = Field(1, ge=1, description="duplicate blocks per pairing")
    seed: str = Field(min_length=1, description="tournament seed: secret while running, published after")
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
    deal_files: list[str] = Field(default_factory=list, description="block i replays deal_files[i]")
    anchor: str | None = Field(None, description="entry whose rating is pinned (for the ratings step)")

    @field_validator("seed", mode="before")
    @classmethod
    def _seed_text(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) and not isinstance(v, bool) else v

    @field_validator("match", mode="before")
    @classmethod
    def _profile_by_name(cls, v: Any) -> Any:
        if isinstance(v, dict) and isinstance(v.get("profile"), str):
            return {**v, "profile": get_profile(v["profile"])}
        return v


@dataclass
class Tournament:
    """A validated config with its entries loaded and paths resolved."""

    config: TournamentConfig
    path: Path
    entries: list[BotEntry]
    by_ref: dict[str, BotEntry]  # entry as written in the config -> loaded entry
    deal_files: list[DealFile] = field(default_factory=list)
    deal_digests: list[str] = field(default_factory=list)
    candidate: BotEntry | None = None  # gauntlet only
    baselines: list[BotEntry] = field(default_factory=list)  # gauntlet only

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
            "match": self.config.match.model_dump(mode="json"),
            "deal_files": self.deal_digests,
        }
        text = json.dumps(facts, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:32]


def _where(loc: tuple[Any, ...]) -> str:
    return ".".join(str(x) for x in loc) or "(top level)"


def _fail(path: Path, where: str, msg: str) -> ConfigError:
    return ConfigError(f"{path}: {where}: {msg}")


def _resolve(base: Path, p: str) -> Path:
    q = Path(os.path.expanduser(p))
    return (q if q.is_absolute() else base / q).resolve()


def load_config(path: str | os.PathLike[str], overrides: dict[str, Any] | None = None) -> Tournament:
    """Read, validate and resolve a config; raises ``ConfigError`` naming the field.

    ``overrides`` (from the command line) replace top-level fields before
    validation, so they are checked the same way; a relative ``out`` given
    there is taken relative to the working directory.
    """
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{p}: no such config file")
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as e:
        raise ConfigError(f"{p}: not valid YAML: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: (top level): expected a mapping of fields")
    base = p.parent.resolve()
    for k in ("out", "leaderboard"):
        if data.get(k) is not None:
            data[k] = str(_resolve(base, str(data[k])))
    for k, v in (overrides or {}).items():
        if v is not None:
            data[k] = str(Path(v).resolve()) if k in ("out", "leaderboard") else v
    try:
        cfg = TournamentConfig.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        raise _fail(p, _where(err["loc"]), err["msg"]) from None
    if "out" not in data:
        cfg.out = str(base / cfg.out)

    entries: list[BotEntry] = []
    by_ref: dict[str, BotEntry] = {}
    seen: dict[str, int] = {}
    for i, ref in enumerate(cfg.entries):
        target = _resolve(base, ref)
        if not target.exists():
            raise _fail(p, f"entries.{i}", f"no bot folder or manifest at {target}")
        try:
            entry = load_entry(target)
        except ManifestError as e:
            raise _fail(p, f"entries.{i}", str(e)) from None
        if entry.name in seen:
            raise _fail(p, f"entries.{i}", f"bot name {entry.name!r} is already used by entries.{seen[entry.name]}")
        seen[entry.name] = i
        entries.append(entry)
        by_ref[ref] = entry

    def lookup(ref: str, where: str) -> BotEntry:
        if ref in by_ref:
            return by_ref[ref]
        named = [e for e in entries if e.name == ref]
        if named:
            return named[0]
        raise _fail(p, where, f"{ref!r} is neither one of the entries nor the name of one")

    sched = cfg.schedule
    cand: BotEntry | None = None
    baselines: list[BotEntry] = []
    if sched.kind == "gauntlet":
        cand = lookup(sched.candidate or "", "schedule.candidate")
        if sched.baselines is None:
            baselines = [e for e in entries if e != cand]
        for j, b in enumerate(sched.baselines or []):
            base_entry = lookup(b, f"schedule.baselines.{j}")
            if base_entry == cand:
                raise _fail(p, f"schedule.baselines.{j}", "the candidate cannot be its own baseline")
            baselines.append(base_entry)
    if sched.kind == "mixed" and len(entries) < 4:
        raise _fail(p, "entries", f"mixed partnerships need at least 4 entries, got {len(entries)}")
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
            raise _fail(p, f"deal_files.{i}", f"cannot read {target}: {e.strerror}") from None
        except ValidationError as e:
            err = e.errors()[0]
            raise _fail(p, f"deal_files.{i}", f"{target}: {_where(err['loc'])}: {err['msg']}") from None
        except ValueError as e:
            raise _fail(p, f"deal_files.{i}", f"{target}: not JSON: {e}") from None
        digests.append(hashlib.sha256(deal_files[-1].model_dump_json().encode()).hexdigest()[:32])
    return Tournament(cfg, p, entries, by_ref, deal_files, digests, cand, baselines)
