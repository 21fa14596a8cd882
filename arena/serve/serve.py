"""Open a competition folder and run its server with its worker."""

from __future__ import annotations

import logging
import signal
import threading
import time
from pathlib import Path
from typing import Any

from ..results import JsonObject
from ..sandbox import judge, reaper
from . import db
from .app import Service, make_app
from .config import load
from .final import FINAL, FREEZE, frozen, run_final
from .ladder import run_batch, start_backend
from .guard import Timeouts, guarded_protocol


log = logging.getLogger("arena.serve")


def database_url(folder: Path, url: str | None) -> str:
    return url or f"sqlite:///{folder.resolve() / 'competition.sqlite'}"


SERVE_LOCK = ".serve.lock"  # one server per competition folder (an flock: released however the server ends)


def open_service(folder: Path, url: str | None = None, *, secure_cookies: bool = False,
                 competition: JsonObject | None = None) -> Service:
    """The competition in ``folder`` (made absolute: the paths it records do not depend on where it started);
    ``competition``: keys of competition.yaml's ``competition`` given on the command line, checked alike."""
    folder = folder.resolve()
    return Service(folder, load(folder, competition), db.connect(database_url(folder, url)),
                   secure_cookies=secure_cookies)


def uvicorn_config(svc: Service, host: str, port: int) -> Any:
    """uvicorn's settings for a competition: its h11 protocol with the header and body timeouts of
    competition.yaml (``guard``), h11's 16 KiB header cap, no access log."""
    import uvicorn

    c = svc.config.competition
    timeouts = Timeouts(c.header_timeout_s, c.body_idle_timeout_s, c.body_timeout_s)
    return uvicorn.Config(make_app(svc), host=host, port=port, log_level="warning", http=guarded_protocol(timeouts),
                          h11_max_incomplete_event_size=16 << 10, access_log=False)


def loop(svc: Service) -> None:
    """Batches while the competition is open (waiting for teams when too few can play, a minute at most);
    once it is frozen, the final evaluation (``final``), then nothing more."""
    while not svc.stop.is_set():
        try:
            played = 0 if frozen(svc) is not None else run_batch(svc)
            if not played and frozen(svc) is not None and run_final(svc):
                svc.stop.wait()  # published: nothing more to play
        except Exception:  # a broken batch must not end the server; it is logged and tried again later
            log.exception("ladder batch failed")
            played = 0
        if not played:
            _idle(svc)


IDLE_S = 60.0  # nothing to play: look again after this long, or at once when woken
FREEZE_POLL_S = 2.0  # while idle, how often the freeze file is looked for (the host's --freeze runs in another process)


def _idle(svc: Service) -> None:
    """Wait until woken (an upload, a verdict, this process's freeze), a freeze written by another process
    (`arena serve FOLDER --freeze` on a served folder) while this wait lasts, or IDLE_S."""
    end = time.monotonic() + IDLE_S
    path = svc.folder / FINAL / FREEZE
    was_frozen = path.exists()
    while not svc.stop.is_set() and time.monotonic() < end:
        if svc.ladder_wake.wait(FREEZE_POLL_S) or (not was_frozen and path.exists()):
            break
    svc.ladder_wake.clear()


STOP_WAIT_S = 15.0  # on Ctrl-C or SIGTERM, how long the ladder may take to end its batch's loop


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def run(svc: Service, host: str, port: int) -> None:
    """Serve until Ctrl-C or SIGTERM; then stop the validations and the ladder (its blocks in flight on Ray
    are cancelled, what is stored stays) and the Ray instance this server started, if any."""
    import uvicorn

    # this server is the judge of its folder: what an earlier server of it left (sandboxes frozen
    # when it was killed, with their watcher) ends now, and no other judge's is touched
    judge.claim(svc.folder)
    svc.sweep_uploads()
    ray = start_backend(svc)
    reaper.adopt()  # an embedded Ray instance's processes end with this server, however it ends
    # uvicorn catches both signals while it serves and raises them again once it has stopped: both end here
    # as KeyboardInterrupt, so the finally below always runs (Ray's own SIGTERM handler would sys.exit).
    signal.signal(signal.SIGTERM, _interrupt)
    svc.start_workers()
    log.info("serving %s (%s) at http://%s:%d/: the API's documentation at /docs", svc.config.competition.name,
             svc.folder, f"[{host}]" if ":" in host else host, port)
    ladder = threading.Thread(target=loop, args=(svc,), daemon=True, name="ladder")
    ladder.start()
    try:
        uvicorn.Server(uvicorn_config(svc, host, port)).run()
    finally:
        svc.stop.set()
        svc.wake.set()
        svc.ladder_wake.set()
        ladder.join(STOP_WAIT_S)
        if ray is not None:
            ray.shutdown()
