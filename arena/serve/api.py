"""The JSON API (OpenAPI at /openapi.json): uploads, a team's own submissions and faults, the public
leaderboard and live standings.

Authentication is a dependency (``deps.ApiTeam``: a bearer token, checked before an upload's body is
read); every refusal is a 4xx with one sentence. Public: the leaderboard and standings. Private to a
team (or the host's admin token): its submissions' reports, its bots' faults and tempo audit in ladder
games (stderr, reproduce command, the block's results line).
"""

from __future__ import annotations

import json
import logging
import time
from typing import Annotated, Any, Callable

import anyio
from fastapi import APIRouter, HTTPException, Path as PathParam, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, Field

from . import db
from .archive import ArchiveRefused, UnpackFailed
from .deps import ApiTeam, ReaderTeam, ServiceDep, UploadTeam, private_to, refused
from ..publish.tempo import TempoSeat
from .faults import Fault
from .final import frozen
from .ladder import read_ratings
from .service import SameVersion, Service, label
from .upload import UploadRefused, receive_archive

MAX_ID = 2**31 - 1  # a submission id: PostgreSQL's INTEGER (SQLite's is wider); a larger one is a 422, not a 500
MAX_BLOCK = 2**63 - 1  # a block number (never in the database): a larger one is a 422, not an OverflowError
UPLOADS_PER_TEAM = 2  # a team's uploads in flight at once
EXTRA_UPLOADS_AT_ONCE = 8  # teams' uploads in flight beyond their first, all teams together (bodies on disk)
UPLOAD_RETRY_S = 10  # Retry-After of an upload refused for the uploads in flight
UPLOAD_PATHS = frozenset({"/api/submissions", "/team/upload"})
MULTIPART_DOC = {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["archive"],
    "properties": {"archive": {"type": "string", "format": "binary",
                               "description": ".tar.gz or .zip with bot.yaml at its root"}}}}}}}
log = logging.getLogger("arena.serve")
router = APIRouter(prefix="/api")


class Quota(BaseModel):
    """A team's uploads in the daily window, and when the next slot frees."""
    per_day: int
    used: int = Field(description="uploads in the last 24 hours")
    remaining: int = Field(description="uploads left now")
    next_slot_at: float | None = Field(description="unix time the oldest upload in the window leaves it (null: none)")


class Submission(BaseModel):
    """One upload of the team's. ``name``: the version as every page and answer names it (``red v3``)."""
    id: int
    status: str = Field(description="queued, checking, accepted or rejected")
    version: int | None
    name: str | None
    retired: str | None = Field(None, description="why it left the ranking (null: it plays, if it is the latest)")
    same_as: int | None = Field(None, description="an identical re-upload: the version it repeats (nothing queued)")
    detail: str | None = None
    remaining_today: int | None = Field(None, description="uploads the team has left in the daily window")


class SubmissionReport(Submission):
    report: str | None
    attempts: int


class Submissions(BaseModel):
    team: str
    quota: Quota
    submissions: list[SubmissionReport]


class LeaderboardRow(BaseModel):
    """A team's ranked version with the ladder's figures (null until the site's first build rates it)."""
    rank: int | None = Field(description="1 = best by rating; null until rated")
    team: str
    version: int
    name: str = Field(description="the version's name everywhere: 'red v3'")
    rating: float | None = Field(description="Elo scale, relative to the mean")
    ci_low: float | None = Field(description="95% interval's low end (null: withheld, too few blocks)")
    ci_high: float | None
    games: int
    score_pct: float | None = Field(description="score (1 a win, 1/2 a draw) per game")
    faults: int


def when_free(sentence: str, frees_at: float | None) -> str:
    """The daily limit's refusal with when its next slot frees (UTC)."""
    if frees_at is None:
        return sentence
    return f"{sentence}; the next slot frees at {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(frees_at))}"


async def take_upload_slot(svc: Service, team_id: int) -> None:
    """Count the upload against every cap before its body is read, in one step under one lock: the
    team's in-flight cap (429 and Retry-After: its own slots are busy), the shared cap on teams'
    extra uploads (503 and Retry-After), and the daily quota, which counts the team's uploads in flight
    as already made. A team's first upload in flight is never refused for others' uploads: slow
    bodies hold their own team's slots only. Without the lock, uploads arriving together all passed
    the caps while the quota query ran."""
    busy = refused(429, f"your team has {UPLOADS_PER_TEAM} uploads in progress; wait for them", UPLOAD_RETRY_S)
    if svc.uploading.get(team_id, 0) >= UPLOADS_PER_TEAM:  # no wait for the lock to say so
        raise busy
    async with svc.upload_lock:
        mine = svc.uploading.get(team_id, 0)
        if mine >= UPLOADS_PER_TEAM:
            raise busy
        if mine and sum(n - 1 for n in svc.uploading.values()) >= EXTRA_UPLOADS_AT_ONCE:
            raise refused(503, "the server is taking other uploads; try again in a minute", UPLOAD_RETRY_S)
        per_day = svc.config.competition.submissions_per_day
        used, frees_at = await anyio.to_thread.run_sync(db.quota, svc.engine, team_id, per_day)
        if used + mine >= per_day:
            said = (f"the team has made {per_day} submissions in the last 24 hours, its limit"
                    + (f" (counting the {mine} in progress)" if mine else ""))
            if used >= per_day:  # else an upload in progress may yet fail: ask again soon
                raise refused(429, when_free(said, frees_at), db.retry_after(frees_at))
            raise refused(429, said, UPLOAD_RETRY_S)
        svc.uploading[team_id] = mine + 1


async def receive(svc: Service, team: db.Team, request: Request,
                  check_field: Callable[[str], bool] | None = None) -> int:
    """One upload, the token (or session) already checked: the team's limits, the body to a file, then
    the unpacking in a child process off the event loop; the submission's id (SameVersion for an
    identical re-upload). Every refusal a 4xx with one sentence."""
    closed = frozen(svc)
    if closed is not None:
        raise refused(403, f"the competition is closed (frozen at {closed.frozen_at}): uploads have stopped")
    await take_upload_slot(svc, team.id)
    try:
        spool = svc.folder / "submissions"
        spool.mkdir(parents=True, exist_ok=True)
        try:
            path = await receive_archive(request, spool, svc.body_cap, check_field)
        except UploadRefused as e:
            raise refused(e.status, str(e)) from None
        try:
            return await anyio.to_thread.run_sync(svc.submit, team, path, limiter=svc.unpacking)
        except ArchiveRefused as e:
            raise HTTPException(400, str(e)) from None
        except db.RateLimited as e:
            raise refused(429, when_free(str(e), e.frees_at), db.retry_after(e.frees_at)) from None
        except UnpackFailed as e:
            log.error("upload not unpacked: %s", e)
            raise HTTPException(503, "the server could not unpack the upload; try again later") from None
        finally:
            path.unlink(missing_ok=True)
    finally:
        svc.uploading[team.id] -= 1
        if not svc.uploading[team.id]:
            del svc.uploading[team.id]


def quota_of(svc: Service, team_id: int) -> Quota:
    per_day = svc.config.competition.submissions_per_day
    used, frees_at = db.quota(svc.engine, team_id, per_day)
    return Quota(per_day=per_day, used=used, remaining=max(0, per_day - used), next_slot_at=frees_at)


def report(sub: db.Submission, team: str) -> SubmissionReport:
    return SubmissionReport(id=sub.id, status=sub.status, version=sub.version, name=label(team, sub.version),
                            retired=sub.retired, report=sub.report, attempts=sub.attempts)


def leaderboard_rows(svc: Service) -> list[LeaderboardRow]:
    """Each team's ranked (latest accepted, not retired) version, best first by the ladder's rating (as the
    site's last build fitted it), the unrated after by name."""
    latest: dict[str, int] = {}
    for s in db.accepted(svc.engine):
        latest[s.name] = s.version
    rated = read_ratings(svc.folder)
    rows = []
    for t, v in latest.items():
        r = rated.get((t, v), {})
        rows.append(LeaderboardRow(rank=None, team=t, version=v, name=f"{t} v{v}", rating=r.get("rating"),
                                   ci_low=r.get("ci_low"), ci_high=r.get("ci_high"), games=r.get("games", 0),
                                   score_pct=r.get("score_pct"), faults=r.get("faults", 0)))
    rows.sort(key=lambda x: (x.rating is None, -(x.rating or 0.0), x.team))
    for i, row in enumerate(x for x in rows if x.rating is not None):
        row.rank = i + 1
    return rows


@router.post("/submissions", status_code=202, openapi_extra=MULTIPART_DOC,
             responses={200: {"model": Submission, "description": "the same files as an accepted version: "
                                                                  "nothing queued, no upload counted"}})
async def post_submission(svc: ServiceDep, team: UploadTeam, request: Request) -> Response:
    """Upload a bot archive (multipart field ``archive``). The token is checked before the body is read.
    202 queued; 200 when the files are those of an accepted version (``same_as``); 429 with Retry-After
    over the daily limit."""
    try:
        sid = await receive(svc, team, request)
    except SameVersion as e:
        same = e.sub
        left = (await anyio.to_thread.run_sync(quota_of, svc, team.id)).remaining
        return JSONResponse(Submission(id=same.id, status=same.status, version=same.version,
                                       name=label(team.name, same.version), retired=same.retired,
                                       same_as=same.version, detail=str(e), remaining_today=left).model_dump())
    left = (await anyio.to_thread.run_sync(quota_of, svc, team.id)).remaining
    return JSONResponse(Submission(id=sid, status="queued", version=None, name=None, remaining_today=left)
                        .model_dump(), status_code=202)


@router.get("/submissions")
def list_submissions(svc: ServiceDep, team: ReaderTeam) -> Submissions:
    """Private: your team's submissions, oldest first, with the daily quota (what is left, when a slot frees).
    The team page's script reads it with the page's session."""
    subs = db.team_submissions(svc.engine, team.id)
    return Submissions(team=team.name, quota=quota_of(svc, team.id), submissions=[report(x, team.name) for x in subs])


@router.get("/submissions/{sid}")
def get_submission(svc: ServiceDep, team: ApiTeam, sid: Annotated[int, PathParam(ge=1, le=MAX_ID)]) -> SubmissionReport:
    sub = db.get_submission(svc.engine, sid)
    if sub is None or (sub.team_id != team.id and not team.admin):
        raise HTTPException(404, "no such submission of your team")  # another team's: not even its existence
    owner = team if sub.team_id == team.id else db.get_team(svc.engine, sub.team_id) or team
    return report(sub, owner.name)


@router.get("/leaderboard")
def leaderboard(svc: ServiceDep) -> list[LeaderboardRow]:
    """Public: each team's ranked (latest accepted, not retired) version, best first by the ladder's
    rating (as the site's last build fitted it), the unrated after by name; no report, no path."""
    return leaderboard_rows(svc)


class BatchProgress(BaseModel):
    played: int = Field(description="blocks of the batch stored so far")
    of: int = Field(description="blocks the batch chose")


class StandingRow(BaseModel):
    bot: str
    games: int
    faults: int
    score_rate: float | None = Field(description="points over games (null before its first game)")


class LiveStandings(BaseModel):
    """FOLDER/standings.json, as the ladder rewrites it after each stored block."""
    updated: float | None = Field(None, description="when it was written (seconds since the epoch)")
    blocks_stored: int = 0
    batch: BatchProgress | None = None
    standings: list[StandingRow] = []


@router.get("/standings")
def live_standings(svc: ServiceDep) -> LiveStandings:
    """Public: each bot's score rate over its stored games, rewritten after each block a batch stores,
    and the batch playing (``{"played", "of"}``) or null. A progress figure; the ratings are on /site/."""
    try:
        return LiveStandings.model_validate_json((svc.folder / "standings.json").read_bytes())
    except (OSError, ValueError):
        return LiveStandings()


@router.get("/tempo")
def tempo(svc: ServiceDep, team: ApiTeam) -> list[TempoSeat]:
    """Private: the tempo audit of your team's bots in ladder games (idle time on move, what it says of
    the hand, flagged or not: docs/server.md, Tempo); the host's admin token reads every team's."""
    return svc.faults.tempo(private_to(team))


@router.get("/faults")
def faults(svc: ServiceDep, team: ApiTeam) -> list[Fault]:
    """Private: the faults of your team's bots in ladder games, with stderr and reproduce command (the
    host's admin token reads every team's)."""
    return svc.faults.of(private_to(team))


def block_line(svc: Service, team: db.Team, pairing: str, block: int) -> PlainTextResponse:
    """The results line of a block holding a fault of the team's (404 else), as the file its reproduce
    command reads."""
    line = svc.faults.block_line(private_to(team), pairing, block)
    if line is None:
        raise HTTPException(404, "no block with a fault of your team's")
    return PlainTextResponse(json.dumps(line) + "\n", media_type="application/x-ndjson")


Pairing = Annotated[str, Query(max_length=300)]
BlockNumber = Annotated[int, Query(ge=0, le=MAX_BLOCK)]


@router.get("/faults/block.jsonl")
def fault_block(svc: ServiceDep, team: ApiTeam, pairing: Pairing, block: BlockNumber) -> PlainTextResponse:
    """Private: the results line of a block holding a fault of your team's, its ``run`` part emptied:
    the results.jsonl its reproduce command reads."""
    return block_line(svc, team, pairing, block)
