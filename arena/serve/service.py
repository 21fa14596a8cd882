"""One competition as the server holds it: folder, config, database, sessions and the validation workers.

The routers (``api``, ``pages``, ``site``) reach it through ``deps.ServiceDep``; the ladder's thread and
the host's commands through the object itself. Uploads are unpacked under FOLDER/submissions only.
"""

from __future__ import annotations

import logging
import secrets
import threading
from pathlib import Path

import anyio
from sqlalchemy.engine import Engine

from ..players.manifest import folder_digest
from ..results import StoreIndex
from ..sandbox import FolderRefused
from ..sandbox.files import remove_tree
from . import db
from .archive import ArchiveRefused, Limits, unpack_in_child
from .config import CompetitionConfig
from .faults import FaultIndex
from .upload import FORM_OVERHEAD, INCOMING
from .validate import validate, validate_on_cluster

STORE_INDEX = "store-index.json"  # the ladder's ``StoreIndex`` of FOLDER/results, written after each batch
UNPACKS_AT_ONCE = 2  # unpacker processes at once; the rest wait their turn without holding a thread
RETRY_S = 5.0  # after a failure of the database, the worker tries again this much later
log = logging.getLogger("arena.serve")


def label(team: str, version: int | None) -> str | None:
    """A version's one name everywhere (API, log, host's listing): ``red v3``."""
    return f"{team} v{version}" if version else None


class SameVersion(Exception):
    """An upload with exactly the files of one of the team's accepted versions: nothing is queued."""

    def __init__(self, sub: db.Submission, team: str) -> None:
        super().__init__(f"same as version {sub.version}: these files are already accepted; nothing was queued")
        self.sub, self.team = sub, team


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
        # the ladder's stored blocks, kept in FOLDER/store-index.json: each batch, also a restarted server's
        # first, reads only what was appended since the index was last written
        self.ladder_store = StoreIndex.read(folder / STORE_INDEX)
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

    def submit(self, team: db.Team, upload: Path) -> int:
        """Unpack the received ``upload`` (a file, deleted here) in a child process, record it as queued and
        wake the worker; raises ArchiveRefused or db.RateLimited, leaving nothing behind."""
        staging = self.folder / "submissions" / f"upload-{secrets.token_hex(8)}"
        try:
            per_day = self.config.competition.submissions_per_day
            used, frees_at = db.quota(self.engine, team.id, per_day)
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
            name = team.name
            same = db.same_as(self.engine, team.id, digest) if digest else None
            if same is not None:
                log.info("upload: team %s sent the files of %s again; nothing queued", name,
                         label(name, same.version))
                raise SameVersion(same, name)
            sid = db.add_submission(self.engine, team.id, str(staging), per_day=per_day, digest=digest)
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
            held.add(sub.id)
        c = self.config.competition
        how = validate_on_cluster if c.ray_address else validate  # on the ladder's cluster, if it has one
        verdict = how(sub.folder, self.config.match, c.check_games, c.check_timeout_s, c.validation_memory_bytes)
        version = db.finish(self.engine, sub.id, verdict.ok, verdict.report)
        team = db.get_team(self.engine, sub.team_id)
        name = team.name if team is not None else f"#{sub.team_id}"  # removed while it was checked
        log.info("verdict: submission #%d of team %s %s", sub.id, name,
                 f"accepted as {label(name, version)}" if verdict.ok else "rejected")
        if held is not None:
            held.discard(sub.id)
        if verdict.ok:
            self.ladder_wake.set()
        else:
            remove_tree(Path(sub.folder))  # a rejected upload is deleted at once (its report stays)
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

