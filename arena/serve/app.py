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
import os
import secrets
import time
import threading
from pathlib import Path
from typing import Any, Mapping

import anyio
from fastapi import Cookie, FastAPI, Form, Header, HTTPException, Path as PathParam, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from pydantic import BaseModel, Field
from sqlalchemy.engine import Engine

from ..players.manifest import folder_digest
from ..publish.site import replay_on_demand
from ..sandbox import FolderRefused
from ..sandbox.files import remove_tree
from . import db
from .archive import ArchiveRefused, Limits, UnpackFailed, unpack_in_child
from .config import CompetitionConfig
from .faults import FaultIndex
from .final import FINAL, banner, final_page, frozen
from .guard import BodyCap
from .ladder import SITE_STATE, read_ratings
from .upload import FORM_OVERHEAD, INCOMING, UploadRefused, receive_archive
from .validate import validate, validate_on_cluster

SESSION = "arena_session"
LOGIN = "arena_login"  # the front page's login-form token (a cookie and a hidden field: login CSRF)
MAX_SESSIONS = 10  # per team: a new login past this ends the team's oldest session
MAX_ID = 2**31 - 1  # a submission id: PostgreSQL's INTEGER (SQLite's is wider); a larger one is a 422, not a 500
MAX_BLOCK = 2**63 - 1  # a block number (never in the database): a larger one is a 422, not an OverflowError
UPLOADS_PER_TEAM = 2  # a team's uploads in flight at once
EXTRA_UPLOADS_AT_ONCE = 8  # teams' uploads in flight beyond their first, all teams together (bodies on disk)
UPLOAD_RETRY_S = 10  # Retry-After of an upload refused for the uploads in flight
UNPACKS_AT_ONCE = 2  # unpacker processes at once; the rest wait their turn without holding a thread
UPLOAD_PATHS = frozenset({"/api/submissions", "/team/upload"})
RETRY_S = 5.0  # after a failure of the database, the worker tries again this much later
log = logging.getLogger("arena.serve")


def label(team: str, version: int | None) -> str | None:
    """A version's one name everywhere (API, log, host's listing): ``red v3``."""
    return f"{team} v{version}" if version else None


class SameVersion(Exception):
    """An upload with exactly the files of one of the team's accepted versions: nothing is queued."""

    def __init__(self, sub: dict[str, Any]) -> None:
        super().__init__(f"same as version {sub['version']}: these files are already accepted; nothing was queued")
        self.sub = sub


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


class Service:
    """One competition: its folder, config, database and validation worker."""

    def __init__(self, folder: Path, config: CompetitionConfig, engine: Engine, *,
                 secure_cookies: bool = False) -> None:
        self.folder, self.config, self.engine = folder, config, engine
        self.secure_cookies = secure_cookies  # behind a TLS proxy: cookies only over https
        self.sessions: dict[str, tuple[int, str, str]] = {}  # session id -> (team id, CSRF token, token hash)
        self.sessions_lock = threading.Lock()  # logins run in the server's thread pool
        self.wake = threading.Event()
        self.stop = threading.Event()
        self.ladder_wake = threading.Event()  # set when a submission is accepted
        self.ladder_failures: dict[tuple[str, int], int] = {}  # block -> harness failures since the start
        self.ladder_waiting: str | None = None  # why the ladder plays nothing (too few teams for a unit)
        c = config.competition
        self.limits = Limits(c.max_archive_bytes, c.max_files, c.max_unpacked_bytes, c.max_depth)
        self.faults = FaultIndex(folder / "results")
        self.uploading: dict[int, int] = {}  # team id -> its uploads in flight (touched on the event loop only)
        self.upload_lock = anyio.Lock()  # the caps are checked and taken as one step
        self.unpacking = anyio.CapacityLimiter(UNPACKS_AT_ONCE)

    @property
    def body_cap(self) -> int:
        """The largest request body an upload may send: the archive limit plus the form's overhead."""
        return self.limits.max_bytes + FORM_OVERHEAD

    def submit(self, team: dict[str, Any], upload: Path) -> int:
        """Unpack the received ``upload`` (a file, deleted here) in a child process, record it as queued and
        wake the worker; raises ArchiveRefused or db.RateLimited, leaving nothing behind."""
        staging = self.folder / "submissions" / f"upload-{secrets.token_hex(8)}"
        try:
            per_day = self.config.competition.submissions_per_day
            used, frees_at = db.quota(self.engine, team["id"], per_day)
            if used >= per_day:  # before the unpacking's cost
                raise db.RateLimited(f"the team has made {per_day} submissions in the last 24 hours, its limit",
                                     frees_at)
            done = unpack_in_child(upload, staging, self.limits)
        except ArchiveRefused as e:
            log.info("upload refused: %s; unpacker peak %s KiB (start %s KiB)", e, getattr(e, "rss_peak_kib", "?"),
                     getattr(e, "rss_start_kib", "?"))
            raise
        finally:
            upload.unlink(missing_ok=True)
        log.info("upload unpacked: %d files and folders, %d bytes; unpacker peak %d KiB (start %d KiB)",
                 done.entries, done.bytes, done.rss_peak_kib, done.rss_start_kib)
        try:
            try:
                digest: str | None = folder_digest(staging)
            except FolderRefused:
                digest = None  # the validation says why
            name = str(team.get("name") or (db.get_team(self.engine, team["id"]) or {}).get("name", "?"))
            same = db.same_as(self.engine, team["id"], digest) if digest else None
            if same is not None:
                log.info("upload: team %s sent the files of %s again; nothing queued", name,
                         label(name, same["version"]))
                raise SameVersion({**same, "name": name})
            sid = db.add_submission(self.engine, team["id"], str(staging), per_day=per_day, digest=digest)
        except BaseException:
            remove_tree(staging)
            raise
        log.info("upload: team %s, submission #%d queued (%d bytes unpacked)", name, sid, done.bytes)
        self.wake.set()
        return sid

    def sweep_uploads(self) -> list[Path]:
        """Before serving: remove what no live submission needs, without recursion at any depth: upload
        folders no submission names (a kill -9 between unpacking and recording; that upload was never
        answered 202, so nothing acknowledged is lost), bodies cut off while arriving, the folders of
        rejected submissions, and the ladder's partial copies. The removed ones."""
        subs = self.folder / "submissions"
        subs.mkdir(parents=True, exist_ok=True)
        known = {Path(f).name for f in db.submission_folders(self.engine)}  # the names are random and unique
        rejected = {Path(f).name for f in db.rejected_folders(self.engine)}
        gone = [d for d in sorted(subs.iterdir())
                if (d.name.startswith("upload-") and (d.name not in known or d.name in rejected))
                or d.name.startswith(INCOMING)]
        gone += sorted((self.folder / "ladder").glob("*.tmp")) if (self.folder / "ladder").is_dir() else []
        for d in gone:
            if d.is_dir() and not d.is_symlink():
                problem = remove_tree(d)
                if problem:
                    log.warning("sweep: %s", problem)
            else:
                d.unlink(missing_ok=True)
        return gone

    def work_once(self, held: set[int] | None = None) -> bool:
        """Validate the oldest queued submission of a team with none in validation, if any (``held``: the
        submission this worker holds in ``checking`` while it validates)."""
        sub = db.claim_next(self.engine)
        if sub is None:
            return False
        if held is not None:
            held.add(sub["id"])
        c = self.config.competition
        how = validate_on_cluster if c.ray_address else validate  # on the ladder's cluster, if it has one
        verdict = how(sub["folder"], self.config.match, c.check_games, c.check_timeout_s, c.validation_memory_bytes)
        version = db.finish(self.engine, sub["id"], verdict.ok, verdict.report)
        team = db.get_team(self.engine, sub["team_id"]) or {"name": f"#{sub['team_id']}"}
        log.info("verdict: submission #%d of team %s %s", sub["id"], team["name"],
                 f"accepted as {label(team['name'], version)}" if verdict.ok else "rejected")
        if held is not None:
            held.discard(sub["id"])
        if verdict.ok:
            self.ladder_wake.set()
        else:
            remove_tree(Path(sub["folder"]))  # a rejected upload is deleted at once (its report stays)
        return True

    def start_workers(self) -> list[threading.Thread]:
        """The validation workers: ``competition.workers`` of them, validating in parallel (each validation a
        child process with its own wall-clock kill); what a crash left in ``checking`` is queued again first."""
        db.requeue_unfinished(self.engine)
        threads = [threading.Thread(target=self.worker, kwargs={"own_only": True}, daemon=True,
                                    name=f"validation-{i}") for i in range(self.config.competition.workers)]
        for t in threads:
            t.start()
        return threads

    def worker(self, own_only: bool = False) -> None:
        """Validate queued submissions until stopped. A failure of the database (a PostgreSQL restart, a full
        disk) is logged and tried again, the submission it caught in ``checking`` queued again: it never ends
        the worker. ``own_only``: one of several workers, which requeues only the submission it held (the
        others' stay theirs) and leaves the start's requeue to ``start_workers``."""
        requeue = not own_only
        held: set[int] = set()
        while not self.stop.is_set():
            try:
                if requeue:
                    db.requeue_unfinished(self.engine)
                    requeue = False
                for sid in sorted(held):
                    db.requeue(self.engine, sid)
                    held.discard(sid)
                busy = self.work_once(held)
            except Exception:  # noqa: BLE001 - the worker outlives any one failure; logged with its traceback
                log.exception("validation worker: the database failed; trying again in %g s", RETRY_S)
                requeue = not own_only
                self.stop.wait(RETRY_S)
                continue
            if not busy:
                self.wake.wait(1.0)
                self.wake.clear()


class _Site(StaticFiles):
    """FOLDER/public, which the ladder writes after its first batch: until then (and while a rebuild swaps
    the folder) a 404, not a server error. ``banner``: a line put at the top of every HTML page (the
    competition's end), the pages' own files unchanged."""

    def __init__(self, *args: Any, banner: Any = None, replays: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.banner = banner
        self.replays = replays  # gid -> None: makes replays/<gid>.js when it is first asked for

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        """A game's replay that no one asked for yet is made now (``publish.site.replay_on_demand``)."""
        full, st = super().lookup_path(path)
        if st is None and self.replays is not None:
            head, _, name = path.replace("\\", "/").lstrip("/").partition("/")
            if head == "replays" and name.endswith(".js") and "/" not in name:
                self.replays(name[:-3])
                full, st = super().lookup_path(path)
        return full, st

    async def check_config(self) -> None:
        if self.directory is not None and Path(self.directory).is_dir():
            await super().check_config()

    def file_response(self, full_path: Any, stat_result: os.stat_result, scope: Any, status_code: int = 200) -> Response:
        """The page as one read of the file opened now: the ladder replaces pages while they are served, and a
        length stated from an earlier stat and a body read from the next version break the response."""
        try:
            with open(full_path, "rb") as fh:
                st = os.fstat(fh.fileno())
                body = fh.read()
        except FileNotFoundError:
            return PlainTextResponse("Not Found", status_code=404)
        line = self.banner() if self.banner is not None and str(full_path).endswith(".html") else ""
        if line:  # the page as served changes with the banner: no validators of the file's own
            at = body.find(b"<body")
            at = body.find(b">", at) + 1 if at >= 0 else 0
            body = body[:at] + line.encode() + body[at:]
            headers = {k: v for k, v in super().file_response(full_path, st, scope, status_code).headers.items()
                       if k.lower() not in ("content-length", "etag", "last-modified")}
            return Response(body, status_code, headers=headers)
        stated = super().file_response(full_path, st, scope, status_code)  # headers of this version, or a 304
        return stated if stated.status_code == 304 else Response(body, status_code, headers=dict(stated.headers))


def _bearer(engine: Engine, authorization: str | None) -> dict[str, Any]:
    if not authorization or not authorization.startswith("Bearer "):
        raise HTTPException(401, "give Authorization: Bearer TOKEN")
    team = db.team_for_token(engine, authorization.removeprefix("Bearer ").strip())
    if team is None:
        raise HTTPException(401, "unknown token")
    return team


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


def _refusal(request: Request, status: int, sentence: str, headers: Mapping[str, str] | None,
             top: str = "") -> Response:
    """A refusal in the shape its asker reads: JSON ``{"detail": ...}`` for the API and for clients, a page
    with the sentence and a way back for a browser at the server's own forms (which sends Accept: text/html)."""
    if request.url.path.startswith("/api/") or "text/html" not in request.headers.get("accept", ""):
        return JSONResponse({"detail": sentence}, status_code=status, headers=headers)
    back = "/team" if request.url.path.startswith("/team") else "/"
    return HTMLResponse(_head(f"{status}: refused") + top + f"<h1>refused</h1><p id=refusal>{html.escape(sentence)}</p>"
                        f"<p><a href={back}>back</a></p>", status_code=status, headers=headers)


def _submission_row(sub: dict[str, Any]) -> str:
    version = f" as version {sub['version']}" if sub["version"] else ""
    retired = (f"<p class=retired>retired from the ladder: {html.escape(sub['retired'])}</p>"
               if sub.get("retired") else "")
    return (f"<li id=sub-{sub['id']}>#{sub['id']} <span class=status>{sub['status']}</span>{version}{retired}"
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


def _ladder_line(svc: Service) -> str:
    """The ladder's state in one line on the front page, when it plays nothing (too few teams for a unit)."""
    return f"<p id=ladder-status>{html.escape(svc.ladder_waiting)}</p>" if svc.ladder_waiting else ""


def _tempo_line(svc: Service) -> str:
    """The time mode on the front page: entrants must know whether their timing is seen."""
    t = svc.config.match.time
    if t.fixed:
        text = (f"tempo fixed: every answer is released {t.slot_s * 1000:.0f} ms after its request, so no seat can"
                " signal by how long it takes (a bot idle on move past its slot is faulted)")
    else:
        text = "tempo free: answers go to the game as they come, so every seat sees how long the others take"
    return f"<p id=tempo>{html.escape(text)}</p>"


def _tempo_rows(figures: list[dict[str, Any]]) -> str:
    if not figures:
        return "<p id=no-tempo>no timed ladder games yet</p>"
    head = ("<tr><th>bot</th><th>games</th><th>decisions</th><th>idle ms (mean)</th><th>idle ms (p90)</th>"
            "<th>idle share</th><th>bits on its hand</th><th>by chance</th><th>flag</th></tr>")

    def cell(x: Any) -> str:
        return "n/a" if x is None else html.escape(str(x))

    rows = "".join(
        f"<tr><td>{cell(f['bot'])}</td><td>{f['games']}</td><td>{f['decisions']}</td><td>{cell(f['idle_ms_mean'])}</td>"
        f"<td>{cell(f['idle_ms_p90'])}</td><td>{cell(f['idle_share'])}</td><td>{cell(f['mi_bits'])}</td>"
        f"<td>{cell(f['mi_null_bits'])}</td><td>{'flagged: ' + cell(f['why']) if f['flagged'] else 'no'}</td></tr>"
        for f in figures)
    return f"<table id=tempo-audit>{head}{rows}</table>"


def _one_sentence(exc: RequestValidationError) -> str:
    """FastAPI's list of validation errors as the one sentence every refusal is."""
    parts = []
    for err in exc.errors()[:3]:
        where = " ".join(str(x) for x in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "the request is not valid"


def _when_free(sentence: str, frees_at: float | None) -> str:
    """The daily limit's refusal with when its next slot frees (UTC)."""
    if frees_at is None:
        return sentence

    return f"{sentence}; the next slot frees at {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(frees_at))}"


_MULTIPART_DOC = {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["archive"],
    "properties": {"archive": {"type": "string", "format": "binary",
                               "description": ".tar.gz or .zip with bot.yaml at its root"}}}}}}}


def _docs_assets() -> Path | None:
    """The folder of Swagger UI's and ReDoc's files that fastapi-offline installs, if it is installed."""
    try:
        import fastapi_offline
    except ImportError:
        return None
    folder = Path(fastapi_offline.__file__).parent / "static"
    return folder if (folder / "swagger-ui-bundle.js").is_file() else None


def _mount_docs(app: FastAPI, title: str) -> None:
    """/docs (Swagger UI) and /redoc from installed files, never a CDN: a page that works offline. Without
    them, /docs is a line linking /openapi.json."""
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html

    assets = _docs_assets()
    if assets is None:
        @app.get("/docs", include_in_schema=False)
        def no_docs() -> HTMLResponse:
            return HTMLResponse(_head(title) + "<p>The API's schema: <a href=/openapi.json>/openapi.json</a></p>")
        return
    app.mount("/docs-assets", StaticFiles(directory=assets), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/openapi.json", title=title,
                                   swagger_js_url="/docs-assets/swagger-ui-bundle.js",
                                   swagger_css_url="/docs-assets/swagger-ui.css",
                                   swagger_favicon_url="/docs-assets/favicon.png")

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url="/openapi.json", title=title, redoc_js_url="/docs-assets/redoc.standalone.js",
                              redoc_favicon_url="/docs-assets/favicon.png", with_google_fonts=False)


def make_app(svc: Service) -> FastAPI:
    app = FastAPI(title=f"arena serve: {svc.config.competition.name}", docs_url=None, redoc_url=None)
    _mount_docs(app, f"arena serve: {svc.config.competition.name}: API")
    # The ladder's public site (leaderboard, bot pages, replays), rebuilt after each batch; the same
    # files are the static export.
    said = lambda: banner(svc)  # noqa: E731 - the competition's end, on every page
    replay = lambda gid: replay_on_demand(svc.folder / "public", svc.folder / SITE_STATE, gid)  # noqa: E731
    app.mount("/site", _Site(directory=svc.folder / "public", html=True, check_dir=False, banner=said, replays=replay),
              name="site")
    # The provisional leaderboard while a batch plays, rewritten after each stored block.
    app.mount("/live", _Site(directory=svc.folder / "live", html=True, check_dir=False, banner=said), name="live")
    # After the freeze: the final evaluation's site, once it is published.
    app.mount("/final/site", _Site(directory=svc.folder / FINAL / "public", html=True, check_dir=False, banner=said),
              name="final-site")
    # Every body's size judged before the app reads it (uploads: the archive limit plus the form).
    app.add_middleware(BodyCap, upload_paths=UPLOAD_PATHS, upload_cap=svc.body_cap)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return _refusal(request, 422, _one_sentence(exc), None, banner(svc))

    @app.exception_handler(StarletteHTTPException)
    async def http_refused(request: Request, exc: StarletteHTTPException) -> Response:
        return _refusal(request, exc.status_code, str(exc.detail), exc.headers, banner(svc))

    def refused(status: int, sentence: str, retry_after: int | None = None) -> HTTPException:
        # the body may be unread: the connection closes after the answer
        headers = {"Connection": "close"}
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
        return HTTPException(status, sentence, headers=headers)

    async def upload(team: dict[str, Any], request: Request, check_field: Any = None) -> int:
        """The submission's id (SameVersion for an identical re-upload)."""
        """One upload, the token (or session) already checked: the team's limits, the body to a file, then
        the unpacking in a child process off the event loop. Every refusal a 4xx with one sentence."""
        closed = frozen(svc)
        if closed is not None:
            raise refused(403, f"the competition is closed (frozen at {closed['frozen_at']}): uploads have stopped")
        await take_upload_slot(team["id"])
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
                raise refused(429, _when_free(str(e), e.frees_at), db.retry_after(e.frees_at)) from None
            except UnpackFailed as e:
                log.error("upload not unpacked: %s", e)
                raise HTTPException(503, "the server could not unpack the upload; try again later") from None
            finally:
                path.unlink(missing_ok=True)
        finally:
            svc.uploading[team["id"]] -= 1
            if not svc.uploading[team["id"]]:
                del svc.uploading[team["id"]]

    async def take_upload_slot(team_id: int) -> None:
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
                    raise refused(429, _when_free(said, frees_at), db.retry_after(frees_at))
                raise refused(429, said, UPLOAD_RETRY_S)
            svc.uploading[team_id] = mine + 1

    def quota_of(team_id: int) -> Quota:
        per_day = svc.config.competition.submissions_per_day
        used, frees_at = db.quota(svc.engine, team_id, per_day)
        return Quota(per_day=per_day, used=used, remaining=max(0, per_day - used), next_slot_at=frees_at)

    @app.post("/api/submissions", status_code=202, openapi_extra=_MULTIPART_DOC,
              responses={200: {"model": Submission, "description": "the same files as an accepted version: "
                                                                   "nothing queued, no upload counted"}})
    async def post_submission(request: Request, authorization: str | None = Header(None)) -> Response:
        """Upload a bot archive (multipart field ``archive``). The token is checked before the body is read.
        202 queued; 200 when the files are those of an accepted version (``same_as``); 429 with Retry-After
        over the daily limit."""
        try:
            team = await anyio.to_thread.run_sync(_bearer, svc.engine, authorization)
        except HTTPException as e:
            raise refused(e.status_code, str(e.detail)) from None
        try:
            sid = await upload(team, request)
        except SameVersion as e:
            same = e.sub
            left = (await anyio.to_thread.run_sync(quota_of, team["id"])).remaining
            return JSONResponse(Submission(id=same["id"], status=same["status"], version=same["version"],
                                           name=label(team["name"], same["version"]), retired=same["retired"],
                                           same_as=same["version"], detail=str(e), remaining_today=left).model_dump())
        left = (await anyio.to_thread.run_sync(quota_of, team["id"])).remaining
        return JSONResponse(Submission(id=sid, status="queued", version=None, name=None, remaining_today=left)
                            .model_dump(), status_code=202)

    def _report(sub: dict[str, Any], team: str) -> SubmissionReport:
        return SubmissionReport(id=sub["id"], status=sub["status"], version=sub["version"],
                                name=label(team, sub["version"]), retired=sub["retired"], report=sub["report"],
                                attempts=sub["attempts"])

    @app.get("/api/submissions")
    def list_submissions(authorization: str | None = Header(None)) -> Submissions:
        """Private: your team's submissions, oldest first, with the daily quota (what is left, when a slot frees)."""
        team = _bearer(svc.engine, authorization)
        subs = db.team_submissions(svc.engine, team["id"])
        return Submissions(team=team["name"], quota=quota_of(team["id"]),
                           submissions=[_report(x, team["name"]) for x in subs])

    @app.get("/api/submissions/{sid}")
    def get_submission(sid: int = PathParam(ge=1, le=MAX_ID),
                       authorization: str | None = Header(None)) -> SubmissionReport:
        team = _bearer(svc.engine, authorization)
        sub = db.get_submission(svc.engine, sid)
        if sub is None or (sub["team_id"] != team["id"] and not team["admin"]):
            raise HTTPException(404, "no such submission of your team")  # another team's: not even its existence
        owner = team if sub["team_id"] == team["id"] else db.get_team(svc.engine, sub["team_id"]) or team
        return _report(sub, owner["name"])

    @app.get("/api/leaderboard")
    def leaderboard() -> list[LeaderboardRow]:
        """Public: each team's ranked (latest accepted, not retired) version, best first by the ladder's
        rating (as the site's last build fitted it), the unrated after by name; no report, no path."""
        latest: dict[str, int] = {}
        for s in db.accepted(svc.engine):
            latest[s["name"]] = s["version"]
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

    @app.get("/api/tempo")
    def tempo(authorization: str | None = Header(None)) -> list[dict[str, Any]]:
        """Private: the tempo audit of your team's bots in ladder games (idle time on move, what it says of
        the hand, flagged or not: docs/server.md, Tempo); the host's admin token reads every team's."""
        return svc.faults.tempo(_team_name(_bearer(svc.engine, authorization)))

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
    def fault_block(pairing: str = Query(max_length=300), block: int = Query(ge=0, le=MAX_BLOCK),
                    authorization: str | None = Header(None)) -> PlainTextResponse:
        """Private: the results line of a block holding a fault of your team's, its ``run`` part emptied:
        the results.jsonl its reproduce command reads."""
        return _block(_bearer(svc.engine, authorization), pairing, block)

    def _session(sid: str | None) -> tuple[dict[str, Any], str] | None:
        """(the team, the CSRF token) of a session, or None; a session ends when its team is removed or its
        token reissued (``arena serve --remove-team``, ``--reissue-token``: another process, so checked here)."""
        s = svc.sessions.get(sid) if sid else None
        team = db.get_team(svc.engine, s[0]) if s else None
        if s is None or team is None or not hmac.compare_digest(team["token_sha256"], s[2]):
            if s is not None:
                with svc.sessions_lock:
                    svc.sessions.pop(str(sid), None)
            return None
        return team, s[1]

    def _session_team(sid: str | None) -> dict[str, Any]:
        s = _session(sid)
        if s is None:
            raise HTTPException(401, "log in with your team's token")
        return s[0]

    @app.get("/team/block.jsonl")
    def team_block(pairing: str = Query(max_length=300), block: int = Query(ge=0, le=MAX_BLOCK),
                   arena_session: str | None = Cookie(None)) -> PlainTextResponse:
        return _block(_session_team(arena_session), pairing, block)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)  # none: a browser's request for it is not an error

    def cookie(resp: Response, name: str, value: str) -> None:
        resp.set_cookie(name, value, httponly=True, samesite="strict", secure=svc.secure_cookies)

    @app.get("/", response_class=HTMLResponse)
    def index() -> HTMLResponse:
        rows = "".join(f"<tr><td>{html.escape(r.team)}</td><td>v{r.version}</td></tr>" for r in leaderboard())
        login_token = secrets.token_urlsafe(16)
        resp = HTMLResponse(
            _head(svc.config.competition.name)
            + f"{banner(svc)}<h1>{html.escape(svc.config.competition.name)}</h1>{_ladder_line(svc)}{_tempo_line(svc)}"
            f"<table id=leaderboard>{rows}</table>"
            f"<form method=post action=/login><input type=hidden name=login value={login_token}>"
            "<input name=token type=password><button>team login</button></form><p><a href=/site/>ratings, bot"
            " pages and replays</a>; <a href=/live/>live standings while the ladder plays</a></p>")
        cookie(resp, LOGIN, login_token)  # SameSite=Strict: a foreign page's form cannot send it
        return resp

    @app.get("/final/", response_class=HTMLResponse)
    def final() -> str:
        """Public: the freeze, the final versions, and after the final evaluation its standings and seeds."""
        name = html.escape(svc.config.competition.name)
        return _head(f"{svc.config.competition.name}: final evaluation") + banner(svc) + \
            f"<h1>{name}: final evaluation</h1>" + final_page(svc) + "<p><a href=/>back</a></p>"

    @app.post("/login")
    def login(token: str = Form(..., max_length=256), login: str = Form("", max_length=64),
              arena_login: str | None = Cookie(None),
              sec_fetch_site: str | None = Header(None)) -> RedirectResponse:
        """Log in from the front page's form: its hidden token must match the cookie the page set, so a
        foreign page cannot log a visitor into another team (login CSRF)."""
        if sec_fetch_site not in (None, "same-origin", "none"):
            raise HTTPException(403, "a login must come from this server's own page")
        if not arena_login or not login or not hmac.compare_digest(arena_login, login):
            raise HTTPException(403, "the login form's token does not match: load the front page and log in again")
        team = db.team_for_token(svc.engine, token)
        if team is None:
            raise HTTPException(401, "unknown token")
        sid = secrets.token_urlsafe(32)
        with svc.sessions_lock:
            mine = [k for k, (tid, _, _) in svc.sessions.items() if tid == team["id"]]  # oldest first
            for k in mine[:max(0, len(mine) - MAX_SESSIONS + 1)]:
                del svc.sessions[k]  # sessions live in memory: logins must not grow it without end
            svc.sessions[sid] = (team["id"], secrets.token_urlsafe(16), team["token_sha256"])
        resp = RedirectResponse("/team", status_code=303)
        cookie(resp, SESSION, sid)
        resp.delete_cookie(LOGIN)
        return resp

    @app.get("/team", response_class=HTMLResponse)
    def team_page(arena_session: str | None = Cookie(None)) -> str:
        team = _session_team(arena_session)
        csrf = svc.sessions[str(arena_session)][1]
        rows = "".join(_submission_row(x) for x in db.team_submissions(svc.engine, team["id"]))
        return (_head(f"team {team['name']}") + banner(svc)
                + f"<h1>team {html.escape(team['name'])}</h1><h2>submissions</h2><ul id=submissions>{rows}</ul>"
                "<form method=post action=/team/upload enctype=multipart/form-data>"
                f"<input type=hidden name=csrf value={csrf}><input type=file name=archive>"
                "<button>upload</button></form><h2>faults in ladder games</h2>"
                + _fault_rows(svc.faults.of(_team_name(team)))
                + "<h2>tempo audit</h2>" + _tempo_rows(svc.faults.tempo(_team_name(team))))

    @app.post("/team/upload", openapi_extra=_MULTIPART_DOC)
    async def team_upload(request: Request, arena_session: str | None = Cookie(None)) -> RedirectResponse:
        """The team page's upload form: the session is checked before the body is read, its CSRF field
        (which the form sends before the file) before a byte of the archive is stored."""
        s = await anyio.to_thread.run_sync(_session, arena_session)
        if s is None:
            raise refused(403, "the form's CSRF token does not match the session")
        team, csrf = s
        try:
            await upload(team, request, lambda value: hmac.compare_digest(csrf, value))
        except SameVersion:
            pass  # nothing queued: the page lists the version it repeats
        return RedirectResponse("/team", status_code=303)

    return app
