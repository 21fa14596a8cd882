"""The static parts the server serves: the ladder's public site (/site/), the live standings (/live/),
the final evaluation's site (/final/site/) and the API's docs (/docs, /redoc) from installed files.

``router`` holds them as mounts; ``make_app`` includes it. Every HTML page of the sites gets the
competition's end as a line at its top (``final.banner``), the files on disk unchanged.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles

from ..publish.site import replay_on_demand
from .final import FINAL
from .ladder import SITE_STATE
from .pages import banner, page
from .service import Service


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
        line = self.banner(scope) if self.banner is not None and str(full_path).endswith(".html") else ""
        if line:  # the page as served changes with the banner: no validators of the file's own
            at = body.find(b"<body")
            at = body.find(b">", at) + 1 if at >= 0 else 0
            body = body[:at] + line.encode() + body[at:]
            headers = {k: v for k, v in super().file_response(full_path, st, scope, status_code).headers.items()
                       if k.lower() not in ("content-length", "etag", "last-modified")}
            return Response(body, status_code, headers=headers)
        stated = super().file_response(full_path, st, scope, status_code)  # headers of this version, or a 304
        return stated if stated.status_code == 304 else Response(body, status_code, headers=dict(stated.headers))



def _docs_assets() -> Path | None:
    """The folder of Swagger UI's and ReDoc's files that fastapi-offline installs, if it is installed."""
    try:
        import fastapi_offline
    except ImportError:
        return None
    folder = Path(fastapi_offline.__file__).parent / "static"
    return folder if (folder / "swagger-ui-bundle.js").is_file() else None


def router(svc: Service) -> APIRouter:
    """/docs (Swagger UI) and /redoc from installed files (``mounts``: /docs-assets), never a CDN: pages
    that work offline. Without them, /docs is a line linking /openapi.json."""
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html

    title = f"arena serve: {svc.config.competition.name}: API"
    r = APIRouter(include_in_schema=False)
    if _docs_assets() is None:
        @r.get("/docs")
        def no_docs(request: Request) -> HTMLResponse:
            return page(request, "no_docs.html", title=title)
        return r

    @r.get("/docs")
    def swagger() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/openapi.json", title=title,
                                   swagger_js_url="/docs-assets/swagger-ui-bundle.js",
                                   swagger_css_url="/docs-assets/swagger-ui.css",
                                   swagger_favicon_url="/docs-assets/favicon.png")

    @r.get("/redoc")
    def redoc() -> HTMLResponse:
        return get_redoc_html(openapi_url="/openapi.json", title=title, redoc_js_url="/docs-assets/redoc.standalone.js",
                              redoc_favicon_url="/docs-assets/favicon.png", with_google_fonts=False)
    return r


def mounts(svc: Service) -> list[tuple[str, StaticFiles, str]]:
    """(path, files, name) of each static folder the app mounts."""
    said = lambda scope: banner(svc, scope)  # noqa: E731 - the competition's end, on every page
    replay = lambda gid: replay_on_demand(svc.folder / "public", svc.folder / SITE_STATE, gid)  # noqa: E731
    assets = _docs_assets()
    return [
        # The ladder's public site (leaderboard, bot pages, replays), rebuilt after each batch; the same
        # files are the static export.
        ("/site", _Site(directory=svc.folder / "public", html=True, check_dir=False, banner=said, replays=replay),
         "site"),
        # The provisional leaderboard while a batch plays, rewritten after each stored block.
        ("/live", _Site(directory=svc.folder / "live", html=True, check_dir=False, banner=said), "live"),
        # After the freeze: the final evaluation's site, once it is published.
        ("/final/site", _Site(directory=svc.folder / FINAL / "public", html=True, check_dir=False, banner=said),
         "final-site"),
        *([("/docs-assets", StaticFiles(directory=assets), "docs-assets")] if assets is not None else []),
    ]
