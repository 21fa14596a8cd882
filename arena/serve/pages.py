"""The server's own pages for a person with a browser: the front page (leaderboard and login form), the
final evaluation, a team's page (its submissions, upload form, faults and tempo audit) and refusals.

Authentication is a dependency (``deps.PageTeam``, ``deps.PageSession``: the session cookie the login form
sets); the upload form carries the session's CSRF token, the login form its own (login CSRF). A refusal
is a page with its sentence and a way back for a browser, JSON for everything else.
"""

from __future__ import annotations

import hmac
import html
import secrets
from typing import Annotated, Any, Mapping

from fastapi import APIRouter, Cookie, Form, Header, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import db
from .api import MULTIPART_DOC, BlockNumber, Pairing, block_line, leaderboard_rows, receive
from .deps import SESSION, PageSession, PageTeam, ServiceDep, private_to, refused
from .final import banner, final_page
from .service import SameVersion, Service

LOGIN = "arena_login"  # the front page's login-form token (a cookie and a hidden field: login CSRF)
MAX_SESSIONS = 10  # per team: a new login past this ends the team's oldest session
router = APIRouter()


#: The server's own pages (front page, team page) are few and plain; this keeps them readable on any
#: screen without a stylesheet to serve (a report's or stderr's long lines wrap instead of widening the page).
_STYLE = ("body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem}"
          "pre{white-space:pre-wrap;background:#f4f4f4;padding:.4rem;font-size:13px}"
          "table{border-collapse:collapse}td{padding:.15rem .6rem;border-bottom:1px solid #ddd}"
          "li{margin:.4rem 0}.status{font-weight:600}")


def head(title: str) -> str:
    return (f"<!doctype html><html lang=en><meta charset=utf-8>"
            f"<meta name=viewport content=\"width=device-width,initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style>")


def refusal(request: Request, status: int, sentence: str, headers: Mapping[str, str] | None,
            top: str = "") -> Response:
    """A refusal in the shape its asker reads: JSON ``{"detail": ...}`` for the API and for clients, a page
    with the sentence and a way back for a browser at the server's own forms (which sends Accept: text/html)."""
    if request.url.path.startswith("/api/") or "text/html" not in request.headers.get("accept", ""):
        return JSONResponse({"detail": sentence}, status_code=status, headers=headers)
    back = "/team" if request.url.path.startswith("/team") else "/"
    return HTMLResponse(head(f"{status}: refused") + top + f"<h1>refused</h1><p id=refusal>{html.escape(sentence)}</p>"
                        f"<p><a href={back}>back</a></p>", status_code=status, headers=headers)


def _submission_row(sub: db.Submission) -> str:
    version = f" as version {sub.version}" if sub.version else ""
    retired = (f"<p class=retired>retired from the ladder: {html.escape(sub.retired)}</p>"
               if sub.retired else "")
    return (f"<li id=sub-{sub.id}>#{sub.id} <span class=status>{sub.status}</span>{version}{retired}"
            f"<pre>{html.escape(sub.report or '')}</pre></li>")


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
    head = ("<tr><th>bot</th><th>seat</th><th>games</th><th>decisions</th><th>idle ms (mean)</th>"
            "<th>idle ms (p90)</th><th>idle share</th><th>bits on its hand</th><th>by chance</th><th>flag</th></tr>")

    def cell(x: Any) -> str:
        return "n/a" if x is None else html.escape(str(x))

    rows = "".join(
        f"<tr><td>{cell(f['bot'])}</td><td>{f['seat']}</td><td>{f['games']}</td><td>{f['decisions']}</td>"
        f"<td>{cell(f['idle_ms_mean'])}</td>"
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



async def on_invalid(request: Request, exc: Exception) -> Response:
    """FastAPI's validation errors as a refusal of one sentence."""
    assert isinstance(exc, RequestValidationError)
    return refusal(request, 422, _one_sentence(exc), None, banner(request.app.state.svc))


async def on_refused(request: Request, exc: Exception) -> Response:
    """Every HTTP error as a refusal in the shape its asker reads."""
    assert isinstance(exc, StarletteHTTPException)
    return refusal(request, exc.status_code, str(exc.detail), exc.headers, banner(request.app.state.svc))


HANDLERS = {RequestValidationError: on_invalid, StarletteHTTPException: on_refused}


@router.get("/team/block.jsonl")
def team_block(svc: ServiceDep, team: PageTeam, pairing: Pairing, block: BlockNumber) -> PlainTextResponse:
    return block_line(svc, team, pairing, block)


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> Response:
    return Response(status_code=204)  # none: a browser's request for it is not an error


def cookie(svc: Service, resp: Response, name: str, value: str) -> None:
    resp.set_cookie(name, value, httponly=True, samesite="strict", secure=svc.secure_cookies)


@router.get("/", response_class=HTMLResponse)
def index(svc: ServiceDep) -> HTMLResponse:
    rows = "".join(f"<tr><td>{html.escape(r.team)}</td><td>v{r.version}</td></tr>" for r in leaderboard_rows(svc))
    login_token = secrets.token_urlsafe(16)
    resp = HTMLResponse(
        head(svc.config.competition.name)
        + f"{banner(svc)}<h1>{html.escape(svc.config.competition.name)}</h1>{_ladder_line(svc)}{_tempo_line(svc)}"
        f"<table id=leaderboard>{rows}</table>"
        f"<form method=post action=/login><input type=hidden name=login value={login_token}>"
        "<input name=token type=password><button>team login</button></form><p><a href=/site/>ratings, bot"
        " pages and replays</a>; <a href=/live/>live standings while the ladder plays</a></p>")
    cookie(svc, resp, LOGIN, login_token)  # SameSite=Strict: a foreign page's form cannot send it
    return resp


@router.get("/final/", response_class=HTMLResponse)
def final(svc: ServiceDep) -> str:
    """Public: the freeze, the final versions, and after the final evaluation its standings and seeds."""
    name = html.escape(svc.config.competition.name)
    return head(f"{svc.config.competition.name}: final evaluation") + banner(svc) + \
        f"<h1>{name}: final evaluation</h1>" + final_page(svc) + "<p><a href=/>back</a></p>"


@router.post("/login")
def login(svc: ServiceDep, token: Annotated[str, Form(max_length=256)],
          login: Annotated[str, Form(max_length=64)] = "", arena_login: Annotated[str | None, Cookie()] = None,
          sec_fetch_site: Annotated[str | None, Header()] = None) -> RedirectResponse:
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
        mine = [k for k, (tid, _, _) in svc.sessions.items() if tid == team.id]  # oldest first
        for k in mine[:max(0, len(mine) - MAX_SESSIONS + 1)]:
            del svc.sessions[k]  # sessions live in memory: logins must not grow it without end
        svc.sessions[sid] = (team.id, secrets.token_urlsafe(16), team.token_sha256)
    resp = RedirectResponse("/team", status_code=303)
    cookie(svc, resp, SESSION, sid)
    resp.delete_cookie(LOGIN)
    return resp


@router.get("/team", response_class=HTMLResponse)
def team_page(svc: ServiceDep, team: PageTeam, s: PageSession) -> str:
    assert s is not None  # PageTeam: a live session
    rows = "".join(_submission_row(x) for x in db.team_submissions(svc.engine, team.id))
    return (head(f"team {team.name}") + banner(svc)
            + f"<h1>team {html.escape(team.name)}</h1><h2>submissions</h2><ul id=submissions>{rows}</ul>"
            "<form method=post action=/team/upload enctype=multipart/form-data>"
            f"<input type=hidden name=csrf value={s.csrf}><input type=file name=archive>"
            "<button>upload</button></form><h2>faults in ladder games</h2>"
            + _fault_rows(svc.faults.of(private_to(team)))
            + "<h2>tempo audit</h2>" + _tempo_rows(svc.faults.tempo(private_to(team))))


@router.post("/team/upload", openapi_extra=MULTIPART_DOC)
async def team_upload(svc: ServiceDep, s: PageSession, request: Request) -> RedirectResponse:
    """The team page's upload form: the session is checked before the body is read, its CSRF field
    (which the form sends before the file) before a byte of the archive is stored."""
    if s is None:
        raise refused(403, "the form's CSRF token does not match the session")
    try:
        await receive(svc, s.team, request, lambda value: hmac.compare_digest(s.csrf, value))
    except SameVersion:
        pass  # nothing queued: the page lists the version it repeats
    return RedirectResponse("/team", status_code=303)
