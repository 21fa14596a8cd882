"""FOLDER/competition.yaml: the match settings games and validation use, plus the competition's rules."""

from __future__ import annotations

from pathlib import Path

import yaml
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..match import MatchSettings
from ..results import JsonObject
from ..players.yamlerrors import describe
from ..sandbox import Level
from ..sandbox.files import MAX_DEPTH


class Competition(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "competition"
    submissions_per_day: int = Field(5, ge=1, description="uploads a team may make in 24 hours")
    max_archive_bytes: int = Field(50 << 20, ge=1, description="size limit of an uploaded archive")
    max_files: int = Field(2000, ge=1, description="files and folders an archive may hold, each one counted")
    max_unpacked_bytes: int = Field(200 << 20, ge=1, description="total bytes an archive may unpack to")
    max_depth: int = Field(MAX_DEPTH, ge=1, le=MAX_DEPTH, description="names in the path of an archive's entry")
    validation_memory_bytes: int = Field(
        2 << 30, ge=64 << 20, description="the validation child's memory (RLIMIT_DATA); a bot at level none or "
        "rlimit inherits it, so it is raised to the bots' own memory limit if that is higher")
    header_timeout_s: float = Field(10.0, gt=0, description="a request's headers must arrive within this")
    body_idle_timeout_s: float = Field(30.0, gt=0, description="a request body pausing longer is cut off")
    body_timeout_s: float = Field(600.0, gt=0, description="a request body must arrive whole within this")
    check_games: int = Field(1, ge=0, description="full games in the validation, after the probes")
    check_timeout_s: float = Field(300.0, gt=0, description="a validation running longer is a rejection")
    seed: str = Field("competition", min_length=1, description="the ladder's seed: keep it secret while it runs")
    ladder_blocks: int = Field(4, ge=1, description="blocks the ladder plays per batch for each worker (a batch is "
                               "ladder_blocks x workers), before rebuilding the site")
    ladder_pairing_blocks: int = Field(2, ge=1, description="duplicate blocks each pairing of ranked versions gets")
    site_bootstrap: int = Field(200, ge=0, description="bootstrap resamples for the public site's intervals")
    workers: int = Field(1, ge=1, description="ladder blocks at once: 1 plays in the server's process, more on an "
                         "embedded Ray instance of this many CPUs (on a cluster: at most this many at once)")
    ray_address: str | None = Field(None, description="play ladder blocks on this Ray cluster (docs/cluster.md)")
    final_blocks: int = Field(4, ge=1, description="blocks of each pairing in the final evaluation, after the freeze")
    closes_at: AwareDatetime | None = Field(None, description="when the competition freezes by itself (ISO 8601, with "
                                       "its time zone): uploads stop and the final evaluation plays")


#: An open competition's default sandbox: a kernel of its own per seat (docs/sandbox.md, "Levels").
SERVE_SANDBOX = Level.GVISOR
#: ... and its default tempo: answers released a slot after their request, so no seat signals by how
#: long it takes (docs/sandbox.md, "Tempo"; docs/server.md says what each format and mode closes).
SERVE_TEMPO = "fixed"
#: A fixed-tempo competition's CPU limit a decision, unless the host sets one. Every decision then
#: costs a whole slot of wall time, so the limit is what bots need, not a generous ceiling: the
#: baseline bots' worst decision took 168 ms of CPU at gvisor (montecarlo; pimc 71, heuristic 2), and
#: a game (about 170 decisions) takes about a minute, not the nine `arena run`'s 1,000 ms would give
#: (docs/server.md, "Time mode and format"). With tempo free a decision takes what the bot uses, and
#: the limit stays `arena run`'s.
SERVE_DECISION_MS = 250
#: ... and the fixed tempo's slot above it, unless the host sets ``slot_ms``: the CPU limit plus this.
#: Waiting for a core is not the bot's time (a late answer lands a slot later, unfaulted), so the margin
#: covers only what no accounting sees: the baselines' time on move beyond CPU and waiting was at most
#: 15 ms at gvisor under load.
SERVE_SLOT_MARGIN_MS = 150


def competition_match(v: JsonObject) -> JsonObject:
    """``match`` of competition.yaml with the open competition's defaults where the host set none:
    sandbox gvisor (bwrap in `arena run`); time.tempo fixed (free in `arena run`) but at level none,
    where nothing is contained and bots are trusted (nor frozen off move: a fixed tempo there would
    only slow the games); with a fixed tempo, time.decision_ms SERVE_DECISION_MS and time.slot_ms the
    decision limit plus SERVE_SLOT_MARGIN_MS (`arena run`'s, 1,000 ms and three times that plus 50 ms,
    would hold a ladder game for nine minutes)."""
    v = {**v, "sandbox": v.get("sandbox", SERVE_SANDBOX.value)}
    t = v.get("time", {})
    if not isinstance(t, dict):
        return v  # validation names the field
    t = {**t}
    if "tempo" not in t and v["sandbox"] != Level.NONE.value:
        t["tempo"] = SERVE_TEMPO
    if t.get("tempo") == "fixed":
        t.setdefault("decision_ms", SERVE_DECISION_MS)
        if t.get("slot_ms") is None and isinstance(t["decision_ms"], int):
            t["slot_ms"] = t["decision_ms"] + SERVE_SLOT_MARGIN_MS
    return {**v, "time": t}


class CompetitionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    competition: Competition = Competition()
    match: MatchSettings = Field(
        default_factory=lambda: MatchSettings.model_validate(competition_match({})),
        description="how games and validations are played; match.sandbox defaults to gvisor here "
                    "(entrants are strangers), set it to bwrap where runsc cannot run; match.time.tempo to fixed, "
                    f"and then decision_ms to {SERVE_DECISION_MS}, slot_ms to decision_ms + {SERVE_SLOT_MARGIN_MS}")

    @field_validator("match", mode="before")
    @classmethod
    def _open_competition_default(cls, v: Any) -> Any:
        """The open competition's defaults where the host set none (``competition_match``)."""
        return competition_match(v) if isinstance(v, dict) else v


def time_line(match: MatchSettings) -> str:
    """The games' time control in one sentence, for the front page: entrants must know whether their
    timing is seen, and what each decision may take."""
    t = match.time
    if t.fixed:
        return (f"tempo fixed: every answer is released {t.slot_s * 1000:.0f} ms after its request, so no seat can"
                f" signal by how long it takes; a decision may use {t.decision_ms} ms of CPU (a bot idle on move"
                " past its slot is faulted)")
    return (f"tempo free: answers go to the game as they come, so every seat sees how long the others take;"
            f" a decision may use {t.decision_ms} ms of CPU")


class CompetitionConfigError(ValueError):
    """competition.yaml is missing or wrong; the message names the field."""


def load(folder: Path, competition: JsonObject | None = None) -> CompetitionConfig:
    """FOLDER/competition.yaml; ``competition`` (the command line's) replaces keys of its ``competition``."""
    path = folder / "competition.yaml"
    text = None
    try:
        text = path.read_text()
        raw = yaml.safe_load(text) or {}
        if competition:
            if not isinstance(raw, dict) or not isinstance(raw.get("competition", {}), dict):
                raise CompetitionConfigError(f"{path}: competition: not a mapping")
            raw = {**raw, "competition": {**(raw.get("competition") or {}), **competition}}
        return CompetitionConfig.model_validate(raw)
    except FileNotFoundError:
        raise CompetitionConfigError(f"{path}: not found; write one (see docs/server.md)") from None
    except ValidationError as e:  # every problem at once, with its line and a did-you-mean (as `arena run`)
        raise CompetitionConfigError("\n".join(describe(e, CompetitionConfig, str(path), text))) from None
    except yaml.YAMLError as e:
        raise CompetitionConfigError(f"{path}: not valid YAML ({e})") from None
