"""The HTTP face of a competition: FastAPI (OpenAPI at /openapi.json) served by uvicorn.

Three routers: ``api`` (JSON, bearer tokens), ``pages`` (the front page, the team page and its forms,
a session cookie after a login) and ``site`` (the ladder's public site, the live standings, the final
evaluation's site, the API's docs). Who asks is a dependency of each route (``deps``); the competition
itself is the ``Service`` (``service``) in the app's state. Nothing without a token changes anything.
"""

from __future__ import annotations

from fastapi import FastAPI

from . import api, pages, site
from .guard import BodyCap
from .service import Service

__all__ = ["Service", "make_app"]


def make_app(svc: Service) -> FastAPI:
    """The app of one competition: its routers, mounts and refusal handlers."""
    app = FastAPI(title=f"arena serve: {svc.config.competition.name}", docs_url=None, redoc_url=None)
    app.state.svc = svc
    for path, files, name in site.mounts(svc):
        app.mount(path, files, name=name)
    app.include_router(site.router(svc))
    app.include_router(api.router)
    app.include_router(pages.router)
    for kind, handler in pages.HANDLERS.items():
        app.add_exception_handler(kind, handler)
    # Every body's size judged before the app reads it (uploads: the archive limit plus the form).
    app.add_middleware(BodyCap, upload_paths=api.UPLOAD_PATHS, upload_cap=svc.body_cap,
                       page=pages.refusal_page)
    return app
