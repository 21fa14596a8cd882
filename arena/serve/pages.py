"""The server's own pages for a person with a browser: the front page (leaderboard and login form), the
final evaluation, a team's page (its submissions, upload form, faults and tempo audit) and refusals.

Authentication is a dependency (``deps.PageTeam``, ``deps.PageSession``: the session cookie the login form
sets); the upload form carries the session's CSRF token, the login form its own (login CSRF). A refusal
is a page with its sentence and a way back for a browser, JSON for everything else.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from typing import Annotated, Any, Mapping, TypedDict

from fastapi import APIRouter, Cookie, Form, Header, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope

from ..publish.render import environment, render

from . import db
from .api import (MULTIPART_DOC, BlockNumber, LeaderboardRow, Pairing, block_line, leaderboard_rows, quota_of, receive,
                  when_free)
from .deps import SESSION, SESSION_ENDED, PageSession, PageTeam, ServiceDep, private_to, refused
from .config import time_line
from .ladder import read_ratings
from .final import closed_sentence, final_view
from .service import SameVersion, Service, label

LOGIN = "arena_login"  # the front page's login-form token (a cookie and a hidden field: login CSRF)
MAX_SESSIONS = 10  # per team: a new login past this ends the team's oldest session
router = APIRouter()


templates = Jinja2Templates(env=environment(), context_processors=[lambda request: {**common(request)}])


class Common(TypedDict):
    """What every page shows: the competition's name and, once it is frozen, its end (None: open)."""

    competition: str
    closed: str | None


def common(request: Request) -> Common:
    """Every page's ``Common`` (the templates' context processor)."""
    svc: Service = request.app.state.svc
    return {"competition": svc.config.competition.name, "closed": closed_sentence(svc)}


def page(request: Request, name: str, status: int = 200, headers: Mapping[str, str] | None = None,
         **context: Any) -> HTMLResponse:
    """One page of ``arena/publish/templates/serve``."""
    return templates.TemplateResponse(request, f"serve/{name}", context, status_code=status, headers=headers)


def banner(svc: Service, scope: Scope) -> str:
    """The competition's end as a line of HTML (empty while it is open): the sites' pages get it on top."""
    closed = closed_sentence(svc)
    return render("serve/banner.html", request=Request(scope), closed=closed) if closed else ""


def _wants_page(request: Request) -> bool:
    """A browser at the server's own forms (which sends Accept: text/html), not the API or a client."""
    return not request.url.path.startswith("/api/") and "text/html" in request.headers.get("accept", "")


class RefusalContext(TypedDict):
    """The refusal page's figures: its status, its sentence, the path back and whether that is the login."""

    status_code: int
    sentence: str
    back: str
    login: bool


def _refusal_context(request: Request, status: int, sentence: str) -> RefusalContext:
    """The refusal page's sentence and its way back: the login form when the session is missing or ended
    (the team page would refuse again), else the page whose form was sent."""
    ended = status == 401 or sentence == SESSION_ENDED
    back = "team_page" if request.url.path.startswith("/team") and not ended else "index"
    return {"status_code": status, "sentence": sentence, "back": request.url_for(back).path, "login": ended}


def refusal(request: Request, status: int, sentence: str, headers: Mapping[str, str] | None) -> Response:
    """A refusal in the shape its asker reads: JSON ``{"detail": ...}`` for the API and for clients, a page
    with the sentence and a way back for a browser."""
    if not _wants_page(request):
        return JSONResponse({"detail": sentence}, status_code=status, headers=headers)
    return page(request, "refusal.html", status, headers, **_refusal_context(request, status, sentence))


def refusal_page(scope: Scope, status: int, sentence: str) -> str | None:
    """``refusal``'s page for a refusal made before the app (``guard.BodyCap``); None: the asker reads JSON."""
    request = Request(scope)
    if not _wants_page(request):
        return None
    return render("serve/refusal.html", request=request, **common(request),
                  **_refusal_context(request, status, sentence))


def _tempo_line(svc: Service) -> str:
    """The time mode on the front page (``config.time_line``)."""
    return time_line(svc.config.match)


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
    return refusal(request, 422, _one_sentence(exc), None)


async def on_refused(request: Request, exc: Exception) -> Response:
    """Every HTTP error as a refusal in the shape its asker reads."""
    assert isinstance(exc, StarletteHTTPException)
    return refusal(request, exc.status_code, str(exc.detail), exc.headers)


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
def index(svc: ServiceDep, request: Request) -> HTMLResponse:
    login_token = secrets.token_urlsafe(16)
    resp = page(request, "index.html", rows=leaderboard_rows(svc), login_token=login_token,
                waiting=svc.ladder_waiting, tempo=_tempo_line(svc))
    cookie(svc, resp, LOGIN, login_token)  # SameSite=Strict: a foreign page's form cannot send it
    return resp


@router.get("/final/", response_class=HTMLResponse)
def final(svc: ServiceDep, request: Request) -> HTMLResponse:
    """Public: the freeze, the final versions, and after the final evaluation its standings and seeds."""
    return page(request, "final.html", view=final_view(svc))


@router.post("/login")
def login(svc: ServiceDep, request: Request, token: Annotated[str, Form(max_length=256)],
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
    resp = RedirectResponse(request.url_for("team_page").path, status_code=303)
    cookie(svc, resp, SESSION, sid)
    resp.delete_cookie(LOGIN)
    return resp


class RatingPoint(TypedDict):
    """A version's rating after one batch of the ladder (``ladder.write_ratings``' history)."""

    batch: int
    rating: float


@dataclass(frozen=True)
class Standing:
    """A team's ranked version on its page: the leaderboard's row, among how many, its bot page on the
    site (a path under /site/, None before the site's first build) and its rating after each batch."""
    row: LeaderboardRow
    of: int
    page: str | None
    history: list[RatingPoint]


def standing(svc: Service, team: db.Team) -> Standing | None:
    """The team's ranked version's figures (None: none accepted, or none playing)."""
    rows = leaderboard_rows(svc)
    mine = next((r for r in rows if r.team == team.name), None)
    if mine is None:
        return None
    extra = read_ratings(svc.folder).get((mine.team, mine.version), {})
    return Standing(mine, sum(r.rank is not None for r in rows), extra.get("page"), list(extra.get("history") or []))


@router.get("/team", response_class=HTMLResponse)
def team_page(svc: ServiceDep, team: PageTeam, s: PageSession, request: Request) -> HTMLResponse:
    assert s is not None  # PageTeam: a live session
    quota = quota_of(svc, team.id)
    return page(request, "team.html", team=team, csrf=s.csrf, submissions=db.team_submissions(svc.engine, team.id),
                faults=svc.faults.of(private_to(team)), tempo=svc.faults.tempo(private_to(team)), quota=quota,
                frees=when_free("", quota.next_slot_at).removeprefix("; ") if not quota.remaining else None,
                standing=standing(svc, team), label=label)


@router.post("/team/upload", openapi_extra=MULTIPART_DOC)
async def team_upload(svc: ServiceDep, s: PageSession, request: Request) -> RedirectResponse:
    """The team page's upload form: the session is checked before the body is read, its CSRF field
    (which the form sends before the file) before a byte of the archive is stored."""
    if s is None:
        raise refused(403, SESSION_ENDED)
    try:
        await receive(svc, s.team, request, lambda value: hmac.compare_digest(s.csrf, value))
    except SameVersion:
        pass  # nothing queued: the page lists the version it repeats
    return RedirectResponse(request.url_for("team_page").path, status_code=303)


@router.post("/logout")
def logout(svc: ServiceDep, s: PageSession, request: Request,
           csrf: Annotated[str, Form(max_length=64)] = "") -> RedirectResponse:
    """End this browser's session (its form carries the session's CSRF token: a foreign page cannot log a
    visitor out) and go back to the front page."""
    if s is not None:
        if not hmac.compare_digest(s.csrf, csrf):
            raise HTTPException(403, "the form's CSRF token does not match the session: reload the page")
        with svc.sessions_lock:
            svc.sessions.pop(s.sid, None)
    resp = RedirectResponse(request.url_for("index").path, status_code=303)
    resp.delete_cookie(SESSION)
    return resp
