"""The HTTP face of a competition: the API, the team page and a worker that validates.

FastAPI (OpenAPI at /openapi.json) served by uvicorn. Bearer tokens on the
API; the browser page logs in with the token once and then holds a session
cookie, with a CSRF token on its upload form. Nothing without a token changes
anything. Uploads are unpacked under FOLDER/submissions only. Public: the
leaderboard, the ladder's site (/site/), the live standings (/live/,
/api/standings). Private to a team: its submissions' reports and its bots'
faults in ladder games (stderr, reproduce command, the block's results line).
"""

from __future__ import annotations

import hmac
import html
import json
import logging
import secrets
import shutil
import threading
from pathlib import Path
from typing import Any

from fastapi import Cookie, FastAPI, File, Form, Header, HTTPException, UploadFile
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.engine import Engine

from . import db
from .archive import ArchiveRefused, Limits, unpack
from .config import CompetitionConfig
from .faults import FaultIndex
from .validate import validate

SESSION = "arena_session"
MAX_SESSIONS = 10  # per team: a new login past this ends the team's oldest session
RETRY_S = 5.0  # after a failure of the database, the worker tries again this much later
log = logging.getLogger("arena.serve")


class Service:
    """One competition: its folder, config, database and validation worker."""

    def __init__(self, folder: Path, config: CompetitionConfig, engine: Engine) -> None:
        self.folder, self.config, self.engine = folder, config, engine
        self.sessions: dict[str, tuple[int, str]] = {}  # session id -> (team id, CSRF token)
        self.sessions_lock = threading.Lock()  # logins run in the server's thread pool
        self.wake = threading.Event()
        self.stop = threading.Event()
        self.ladder_wake = threading.Event()  # set when a submission is accepted
        self.ladder_failures: dict[tuple[str, int], int] = {}  # block -> harness failures since the start
        self.limits = Limits(config.competition.max_archive_bytes, config.competition.max_files,
                             config.competition.max_unpacked_bytes)
        self.faults = FaultIndex(folder / "results")

    def submit(self, team: dict[str, Any], data: bytes) -> int:
        """Unpack, record as queued and wake the worker; raises ArchiveRefused or db.RateLimited."""
        staging = self.folder / "submissions" / f"upload-{secrets.token_hex(8)}"
        unpack(data, staging, self.limits)
        try:
            sid = db.add_submission(self.engine, team["id"], str(staging),
                                    per_day=self.config.competition.submissions_per_day)
        except db.RateLimited:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self.wake.set()
        return sid

    def sweep_uploads(self) -> list[Path]:
        """Before serving: remove the upload folders no submission names (a kill -9 between unpacking and
        recording; that upload was never answered 202, so nothing acknowledged is lost). The removed ones."""
        known = {Path(f).name for f in db.submission_folders(self.engine)}  # the names are random and unique
        gone = [d for d in sorted((self.folder / "submissions").glob("upload-*")) if d.name not in known]
        for d in gone:
            shutil.rmtree(d, ignore_errors=True)
        return gone

    def work_once(self) -> bool:
        """Validate the oldest queued submission, if any."""
        sub = db.claim_next(self.engine)
        if sub is None:
            return False
        c = self.config.competition
        verdict = validate(sub["folder"], self.config.match, c.check_games, c.check_timeout_s)
        db.finish(self.engine, sub["id"], verdict.ok, verdict.report)
        if verdict.ok:
            self.ladder_wake.set()
        return True

    def worker(self) -> None:
        """Validate queued submissions until stopped. A failure of the database (a PostgreSQL restart, a full
        disk) is logged and tried again, the submission it caught in ``checking`` queued again: it never ends
        the worker."""
        requeue = True
        while not self.stop.is_set():
            try:
                if requeue:
                    db.requeue_unfinished(self.engine)
                    requeue = False
                busy = self.work_once()
            except Exception:  # noqa: BLE001 - the worker outlives any one failure; logged with its traceback
                log.exception("validation worker: the database failed; trying again in %g s", RETRY_S)
                requeue = True
                self.stop.wait(RETRY_S)
                continue
            if not busy:
                self.wake.wait(1.0)
                self.wake.clear()


class _Site(StaticFiles):
    """FOLDER/public, which the ladder writes after its first batch: until then (and while a rebuild swaps
    the folder) a 404, not a server error."""

    async def check_config(self) -> None:
        if self.directory is not None and Path(self.directory).is_dir():
            await super().check_config()


def _bearer(engine: Engine, authorization: str | None) -> dict[str, Any]:
    if not authorization or not authorization.startswith("Bearer "):
        raise HTTPException(401, "give Authorization: Bearer TOKEN")
    team = db.team_for_token(engine, authorization.removeprefix("Bearer ").strip())
    if team is None:
        raise HTTPException(401, "unknown token")
    return team


def _public(sub: dict[str, Any]) -> dict[str, Any]:
    return {"id": sub["id"], "status": sub["status"], "version": sub["version"]}


#: The server's own pages (front page, team page) are few and plain; this keeps them readable on any
#: screen without a stylesheet to serve (a report's or stderr's long lines wrap instead of widening the page).
_STYLE = ("body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem}"
          "pre{white-space:pre-wrap;background:#f4f4f4;padding:.4rem;font-size:13px}"
          "table{border-collapse:collapse}td{padding:.15rem .6rem;border-bottom:1px solid #ddd}"
          "li{margin:.4rem 0}.status{font-weight:600}")


def _head(title: str) -> str:
    return (f"<!doctype html><html lang=en><meta charset=utf-8>"
            f"<meta name=viewport content=\"width=device-width,initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style>")


def _submission_row(sub: dict[str, Any]) -> str:
    version = f" as version {sub['version']}" if sub["version"] else ""
    return (f"<li id=sub-{sub['id']}>#{sub['id']} <span class=status>{sub['status']}</span>{version}"
            f"<pre>{html.escape(sub['report'] or '')}</pre></li>")


def _fault_rows(faults: list[dict[str, Any]]) -> str:
    if not faults:
        return "<p id=no-faults>no faults in ladder games</p>"
    rows = []
    for f in faults:
        link = f"/team/block.jsonl?pairing={html.escape(f['pairing'])}&amp;block={f['block']}"
        rows.append(f"<li class=fault>game {html.escape(f['game_id'])} (seat {f['seat']}): {html.escape(f['kind'])}:"
                    f" {html.escape(f['message'])}<pre class=stderr>{html.escape(f['stderr'])}</pre>"
                    f"reproduce: <code>{html.escape(f['command'] or '')}</code> with <a href=\"{link}\">this block's"
                    " results line</a> as results.jsonl and your bot's folder as BOT_FOLDER</li>")
    return "<ul id=faults>" + "".join(rows) + "</ul>"


def make_app(svc: Service) -> FastAPI:
    app = FastAPI(title=f"arena serve: {svc.config.competition.name}")
    # The ladder's public site (leaderboard, bot pages, replays), rebuilt after each batch; the same
    # files are the static export.
    app.mount("/site", _Site(directory=svc.folder / "public", html=True, check_dir=False), name="site")
    # The provisional leaderboard while a batch plays, rewritten after each stored block.
    app.mount("/live", _Site(directory=svc.folder / "live", html=True, check_dir=False), name="live")

    @app.post("/api/submissions", status_code=202)
    async def post_submission(archive: UploadFile = File(...),
                              authorization: str | None = Header(None)) -> dict[str, Any]:
        team = _bearer(svc.engine, authorization)
        data = await archive.read(svc.limits.max_bytes + 1)
        try:
            sid = svc.submit(team, data)
        except ArchiveRefused as e:
            raise HTTPException(400, str(e)) from None
        except db.RateLimited as e:
            raise HTTPException(429, str(e)) from None
        return {"id": sid, "status": "queued"}

    @app.get("/api/submissions/{sid}")
    def get_submission(sid: int, authorization: str | None = Header(None)) -> dict[str, Any]:
        team = _bearer(svc.engine, authorization)
        sub = db.get_submission(svc.engine, sid)
        if sub is None or (sub["team_id"] != team["id"] and not team["admin"]):
            raise HTTPException(404, "no such submission of your team")  # another team's: not even its existence
        return {**_public(sub), "report": sub["report"], "attempts": sub["attempts"]}

    @app.get("/api/leaderboard")
    def leaderboard() -> list[dict[str, Any]]:
        """Public: each team's ranked (latest accepted) version; no report, no path."""
        latest: dict[str, int] = {}
        for s in db.accepted(svc.engine):
            latest[s["name"]] = s["version"]
        return [{"team": t, "version": v} for t, v in sorted(latest.items())]

    @app.get("/api/standings")
    def live_standings() -> dict[str, Any]:
        """Public: each bot's score rate over its stored games, rewritten after each block a batch stores,
        and the batch playing (``{"played", "of"}``) or null. A progress figure; the ratings are on /site/."""
        try:
            doc: dict[str, Any] = json.loads((svc.folder / "standings.json").read_text())
            return doc
        except (OSError, ValueError):
            return {"updated": None, "blocks_stored": 0, "batch": None, "standings": []}

    def _team_name(team: dict[str, Any]) -> str | None:
        return None if team["admin"] else str(team["name"])

    @app.get("/api/faults")
    def faults(authorization: str | None = Header(None)) -> list[dict[str, Any]]:
        """Private: the faults of your team's bots in ladder games, with stderr and reproduce command (the
        host's admin token reads every team's)."""
        return svc.faults.of(_team_name(_bearer(svc.engine, authorization)))

    def _block(team: dict[str, Any], pairing: str, block: int) -> PlainTextResponse:
        line = svc.faults.block_line(_team_name(team), pairing, block)
        if line is None:
            raise HTTPException(404, "no block with a fault of your team's")
        return PlainTextResponse(json.dumps(line) + "\n", media_type="application/x-ndjson")

    @app.get("/api/faults/block.jsonl")
    def fault_block(pairing: str, block: int, authorization: str | None = Header(None)) -> PlainTextResponse:
        """Private: the results line of a block holding a fault of your team's, its ``run`` part emptied:
        the results.jsonl its reproduce command reads."""
        return _block(_bearer(svc.engine, authorization), pairing, block)

    def _session(sid: str | None) -> tuple[int, str] | None:
        return svc.sessions.get(sid) if sid else None

    def _session_team(sid: str | None) -> dict[str, Any]:
        s = _session(sid)
        team = db.get_team(svc.engine, s[0]) if s else None
        if team is None:
            raise HTTPException(401, "log in with your team's token")
        return team

    @app.get("/team/block.jsonl")
    def team_block(pairing: str, block: int, arena_session: str | None = Cookie(None)) -> PlainTextResponse:
        return _block(_session_team(arena_session), pairing, block)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)  # none: a browser's request for it is not an error

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        rows = "".join(f"<tr><td>{html.escape(r['team'])}</td><td>v{r['version']}</td></tr>" for r in leaderboard())
        return (_head(svc.config.competition.name)
                + f"<h1>{html.escape(svc.config.competition.name)}</h1><table id=leaderboard>{rows}</table>"
                "<form method=post action=/login><input name=token type=password>"
                "<button>team login</button></form><p><a href=/site/>ratings, bot pages and replays</a>;"
                " <a href=/live/>live standings while the ladder plays</a></p>")

    @app.post("/login")
    def login(token: str = Form(...)) -> RedirectResponse:
        team = db.team_for_token(svc.engine, token)
        if team is None:
            raise HTTPException(401, "unknown token")
        sid = secrets.token_urlsafe(32)
        with svc.sessions_lock:
            mine = [k for k, (tid, _) in svc.sessions.items() if tid == team["id"]]  # oldest first
            for k in mine[:max(0, len(mine) - MAX_SESSIONS + 1)]:
                del svc.sessions[k]  # sessions live in memory: logins must not grow it without end
            svc.sessions[sid] = (team["id"], secrets.token_urlsafe(16))
        resp = RedirectResponse("/team", status_code=303)
        resp.set_cookie(SESSION, sid, httponly=True, samesite="strict")
        return resp

    @app.get("/team", response_class=HTMLResponse)
    def team_page(arena_session: str | None = Cookie(None)) -> str:
        team = _session_team(arena_session)
        csrf = svc.sessions[str(arena_session)][1]
        rows = "".join(_submission_row(x) for x in db.team_submissions(svc.engine, team["id"]))
        return (_head(f"team {team['name']}")
                + f"<h1>team {html.escape(team['name'])}</h1><h2>submissions</h2><ul id=submissions>{rows}</ul>"
                "<form method=post action=/team/upload enctype=multipart/form-data>"
                f"<input type=hidden name=csrf value={csrf}><input type=file name=archive>"
                "<button>upload</button></form><h2>faults in ladder games</h2>"
                + _fault_rows(svc.faults.of(_team_name(team))))

    @app.post("/team/upload")
    async def team_upload(archive: UploadFile = File(...), csrf: str = Form(...),
                          arena_session: str | None = Cookie(None)) -> RedirectResponse:
        s = _session(arena_session)
        if s is None or not hmac.compare_digest(s[1], csrf):
            raise HTTPException(403, "the form's CSRF token does not match the session")
        data = await archive.read(svc.limits.max_bytes + 1)
        try:
            svc.submit({"id": s[0]}, data)
        except (ArchiveRefused, db.RateLimited) as e:
            raise HTTPException(400, str(e)) from None
        return RedirectResponse("/team", status_code=303)

    return app
