"""Open a competition folder and run its server with its worker."""

from __future__ import annotations

import threading
from pathlib import Path

from . import db
from .app import Service, make_app
from .config import load


def database_url(folder: Path, url: str | None) -> str:
    return url or f"sqlite:///{folder.resolve() / 'competition.sqlite'}"


def open_service(folder: Path, url: str | None = None) -> Service:
    """The competition in ``folder`` (made absolute: the paths it records do not depend on where it started)."""
    folder = folder.resolve()
    return Service(folder, load(folder), db.connect(database_url(folder, url)))


def run(svc: Service, host: str, port: int) -> None:
    import uvicorn

    from .ladder import loop

    svc.sweep_uploads()
    threading.Thread(target=svc.worker, daemon=True).start()
    threading.Thread(target=loop, args=(svc,), daemon=True).start()
    try:
        uvicorn.run(make_app(svc), host=host, port=port, log_level="warning")
    finally:
        svc.stop.set()
        svc.wake.set()
        svc.ladder_wake.set()
