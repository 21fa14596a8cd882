"""What a route needs before it runs, as FastAPI dependencies: the service, and who is asking.

The API authenticates by ``Authorization: Bearer TOKEN`` (``ApiTeam``); the
browser's pages by the session cookie the login form sets (``PageTeam``,
``PageSession``). Each yields a typed ``db.Team``: a route never reads a
header or a cookie itself. A session ends when its team is removed or its
token reissued (``arena serve --remove-team``, ``--reissue-token``: another
process, so the token's hash is checked at each request).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Cookie, Depends, Header, HTTPException, Request

from . import db
from .service import Service

SESSION = "arena_session"


def service(request: Request) -> Service:
    """The competition this app serves (``make_app`` keeps it in the app's state)."""
    svc: Service = request.app.state.svc
    return svc


ServiceDep = Annotated[Service, Depends(service)]


def refused(status: int, sentence: str, retry_after: int | None = None) -> HTTPException:
    """A refusal of a request whose body may be unread: the connection closes after the answer."""
    headers = {"Connection": "close"}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    return HTTPException(status, sentence, headers=headers)


def bearer_team(svc: ServiceDep, authorization: Annotated[str | None, Header()] = None) -> db.Team:
    """The team whose token the request bears (401 without one, or with an unknown one)."""
    if not authorization or not authorization.startswith("Bearer "):
        raise HTTPException(401, "give Authorization: Bearer TOKEN")
    team = db.team_for_token(svc.engine, authorization.removeprefix("Bearer ").strip())
    if team is None:
        raise HTTPException(401, "unknown token")
    return team


ApiTeam = Annotated[db.Team, Depends(bearer_team)]


def uploading_team(svc: ServiceDep, authorization: Annotated[str | None, Header()] = None) -> db.Team:
    """``bearer_team`` for an upload, whose body is left unread when the token is refused."""
    try:
        return bearer_team(svc, authorization)
    except HTTPException as e:
        raise refused(e.status_code, str(e.detail)) from None


UploadTeam = Annotated[db.Team, Depends(uploading_team)]


@dataclass(frozen=True)
class Session:
    """A browser's login: its id (the cookie), its team and the CSRF token of its forms."""
    sid: str
    team: db.Team
    csrf: str


def session(svc: ServiceDep, arena_session: Annotated[str | None, Cookie()] = None) -> Session | None:
    """The request's live session, or None (none, unknown, or its team's token changed since the login)."""
    s = svc.sessions.get(arena_session) if arena_session else None
    team = db.get_team(svc.engine, s[0]) if s else None
    if s is None or team is None or not hmac.compare_digest(team.token_sha256, s[2]):
        if s is not None:
            with svc.sessions_lock:
                svc.sessions.pop(str(arena_session), None)
        return None
    return Session(str(arena_session), team, s[1])


PageSession = Annotated[Session | None, Depends(session)]


def session_team(s: PageSession) -> db.Team:
    """The logged-in team (401 without a live session)."""
    if s is None:
        raise HTTPException(401, SESSION_ENDED)
    return s.team


PageTeam = Annotated[db.Team, Depends(session_team)]


def reading_team(svc: ServiceDep, s: PageSession,
                 authorization: Annotated[str | None, Header()] = None) -> db.Team:
    """``bearer_team``, or without a token the browser's session: the team page's script reads its own
    submissions (a read only; whatever changes something takes a token or the session's CSRF field)."""
    if authorization is None and s is not None:
        return s.team
    return bearer_team(svc, authorization)


ReaderTeam = Annotated[db.Team, Depends(reading_team)]
SESSION_ENDED = "your session has ended (or you have not logged in): log in with your team's token"


def private_to(team: db.Team) -> str | None:
    """Whose private data a team reads: its own (its name), or every team's for the host's admin (None)."""
    return None if team.admin else team.name
