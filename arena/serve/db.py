"""The competition's state in a database: teams, token hashes, submissions, reports.

SQLAlchemy Core (tables and statements, no ORM) so one code path serves the
embedded SQLite default and PostgreSQL by URL. The schema grows by numbered
migrations in ``MIGRATIONS``, recorded in ``schema_version``. Every status
change is one transaction, so a kill -9 leaves each submission in exactly one
state; ``requeue_unfinished`` puts a submission caught in ``checking`` back.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

META = sa.MetaData()
teams = sa.Table(
    "teams", META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(64), unique=True, nullable=False),
    sa.Column("token_sha256", sa.String(64), unique=True, nullable=False),
    sa.Column("admin", sa.Boolean, nullable=False, default=False),
    sa.Column("token_issued", sa.Float, nullable=True),  # when its current token was made (null: before m4)
    sa.Column("removed", sa.Float, nullable=True),  # when the host removed it (its token then opens nothing)
)
submissions = sa.Table(
    "submissions", META,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("team_id", sa.Integer, sa.ForeignKey("teams.id"), nullable=False),
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("folder", sa.String(512), nullable=False),
    sa.Column("report", sa.Text, nullable=True),
    sa.Column("version", sa.Integer, nullable=True),
    sa.Column("attempts", sa.Integer, nullable=False, default=0),  # times it went to checking (a crash: again)
    sa.Column("retired", sa.Text, nullable=True),  # why the ladder took an accepted version out (null: it plays)
    sa.Column("digest", sa.String(64), nullable=True),  # players.manifest.folder_digest of the upload (null: unknown)
)
STATUSES = ("queued", "checking", "accepted", "rejected")


@dataclass(frozen=True)
class Team:
    """A row of ``teams``: what a request's authentication yields and every route reads."""
    id: int
    name: str
    token_sha256: str
    admin: bool
    token_issued: float | None = None
    removed: float | None = None

    @classmethod
    def of(cls, r: Mapping[Any, Any]) -> Team:
        return cls(int(r["id"]), str(r["name"]), str(r["token_sha256"]), bool(r["admin"]), r["token_issued"],
                   r["removed"])


@dataclass(frozen=True)
class Submission:
    """A row of ``submissions``."""
    id: int
    team_id: int
    created: float
    status: str
    folder: str
    report: str | None
    version: int | None
    attempts: int
    retired: str | None
    digest: str | None

    @classmethod
    def of(cls, r: Mapping[Any, Any]) -> Submission:
        return cls(int(r["id"]), int(r["team_id"]), float(r["created"]), str(r["status"]), str(r["folder"]),
                   r["report"], r["version"], int(r["attempts"] or 0), r["retired"], r["digest"])


@dataclass(frozen=True)
class Entrant:
    """An accepted version the ladder plays: its submission's id, its team's name (its bot's name on the
    ladder), its version and folder (what the freeze records of a final version, too)."""
    id: int
    name: str
    version: int
    folder: str

def _m1(c: Connection) -> None:
    """The first schema, as it was (the tables above are the current one)."""
    m = sa.MetaData()
    sa.Table("teams", m, sa.Column("id", sa.Integer, primary_key=True),
             sa.Column("name", sa.String(64), unique=True, nullable=False),
             sa.Column("token_sha256", sa.String(64), unique=True, nullable=False),
             sa.Column("admin", sa.Boolean, nullable=False, default=False))
    sa.Table("submissions", m, sa.Column("id", sa.Integer, primary_key=True),
             sa.Column("team_id", sa.Integer, sa.ForeignKey("teams.id"), nullable=False),
             sa.Column("created", sa.Float, nullable=False), sa.Column("status", sa.String(16), nullable=False),
             sa.Column("folder", sa.String(512), nullable=False), sa.Column("report", sa.Text, nullable=True),
             sa.Column("version", sa.Integer, nullable=True))
    m.create_all(c)


def _m2(c: Connection) -> None:
    """How often each submission went to checking: a validation a crash interrupted is run again, a finished
    one never (the host reads it; the tests check it)."""
    c.execute(sa.text("ALTER TABLE submissions ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0"))


def _m3(c: Connection) -> None:
    """Why the ladder retired an accepted version it could not play (its folder or manifest broke after the
    validation): shown on its team's page; the team's earlier version plays on."""
    c.execute(sa.text("ALTER TABLE submissions ADD COLUMN retired TEXT"))


def _m4(c: Connection) -> None:
    """The host's controls: when each team's token was issued (the listing shows it) and a team's removal
    (its row stays: its games and submissions name it)."""
    c.execute(sa.text("ALTER TABLE teams ADD COLUMN token_issued REAL"))
    c.execute(sa.text("ALTER TABLE teams ADD COLUMN removed REAL"))


def _m5(c: Connection) -> None:
    """Each upload's folder digest: an identical re-upload is answered with the version it repeats."""
    c.execute(sa.text("ALTER TABLE submissions ADD COLUMN digest VARCHAR(64)"))


#: Numbered migrations; a new schema change is appended, never edited.
MIGRATIONS: list[Callable[[Connection], None]] = [_m1, _m2, _m3, _m4, _m5]


def connect(url: str, *, upto: int | None = None) -> Engine:
    """Open the database and bring its schema up to date (``upto``: only to that version, for tests)."""
    engine = sa.create_engine(url, pool_pre_ping=True)  # a connection a database restart closed is replaced
    with engine.begin() as c:
        c.execute(sa.text("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"))
        have = c.execute(sa.text("SELECT MAX(version) FROM schema_version")).scalar() or 0
        for n, step in enumerate(MIGRATIONS[have:upto], start=have + 1):
            step(c)
            c.execute(sa.text("INSERT INTO schema_version (version) VALUES (:v)"), {"v": n})
    return engine


def schema_version(engine: Engine) -> int:
    with engine.connect() as c:
        return int(c.execute(sa.text("SELECT MAX(version) FROM schema_version")).scalar() or 0)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A team's secret: 32 random bytes, URL-safe, never starting with '-' (a command line would read such a
    token, as in ``arena submit ... --token TOKEN``, as an option)."""
    while (token := secrets.token_urlsafe(32)).startswith("-"):
        pass
    return token


def add_team(engine: Engine, name: str, *, admin: bool = False) -> str:
    """Create a team (or the host's admin) and return its token, which is stored only as a hash."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}", name):
        raise ValueError(f"team name {name!r}: letters, digits and _.+- only, at most 64 (it names the team's bot"
                         " on the ladder)")
    token = new_token()
    with engine.begin() as c:
        if c.execute(sa.select(teams.c.id).where(teams.c.name == name)).first():
            raise ValueError(f"a team named {name!r} exists already")
        c.execute(teams.insert().values(name=name, token_sha256=_hash(token), admin=admin, token_issued=time.time()))
    return token


class NoSuchTeam(ValueError):
    """The host named a team (or a version) the competition does not have."""


def _live_team(c: Connection, name: str) -> int:
    tid = c.execute(sa.select(teams.c.id).where(teams.c.name == name, teams.c.removed.is_(None))).scalar()
    if tid is None:
        known = [str(n) for n in c.execute(sa.select(teams.c.name).where(teams.c.removed.is_(None))).scalars()]
        raise NoSuchTeam(f"no team named {name!r}" + (f"; the teams: {', '.join(sorted(known))}" if known else ""))
    return int(tid)


def reissue_token(engine: Engine, name: str) -> str:
    """A new token for a team; the old one opens nothing from now on (its API calls and new logins)."""
    token = new_token()
    with engine.begin() as c:
        tid = _live_team(c, name)
        c.execute(teams.update().where(teams.c.id == tid).values(token_sha256=_hash(token), token_issued=time.time()))
    return token


def remove_team(engine: Engine, name: str) -> int:
    """Take a team out: its token opens nothing, its versions leave the ladder (their games stay in the
    results), its waiting uploads are not validated. The row stays (games name it). Versions retired."""
    now = time.time()
    with engine.begin() as c:
        tid = _live_team(c, name)
        c.execute(teams.update().where(teams.c.id == tid)
                  .values(removed=now, token_sha256=_hash(f"removed:{tid}:{secrets.token_hex(16)}")))
        c.execute(submissions.update().where(submissions.c.team_id == tid, submissions.c.status == "queued")
                  .values(status="rejected", report="the host removed the team before this upload was checked"))
        return int(c.execute(submissions.update().where(
            submissions.c.team_id == tid, submissions.c.status == "accepted", submissions.c.retired.is_(None))
            .values(retired="the host removed the team")).rowcount)


def retire_version(engine: Engine, name: str, version: int) -> None:
    """The host takes one accepted version out of the ranking (its games stay in history); the team's
    previous version, if any, is ranked again."""
    with engine.begin() as c:
        tid = _live_team(c, name)
        sid = c.execute(sa.select(submissions.c.id).where(submissions.c.team_id == tid,
                                                          submissions.c.version == version)).scalar()
        if sid is None:
            raise NoSuchTeam(f"{name} has no version {version}")
        c.execute(submissions.update().where(submissions.c.id == sid, submissions.c.retired.is_(None))
                  .values(retired="retired by the host"))


@dataclass(frozen=True)
class Upload:
    """A submission as the host's listing names it: its id, its status and the version it was accepted as."""
    id: int
    status: str
    version: int | None


@dataclass(frozen=True)
class TeamListing:
    """One line of the host's listing of the teams."""
    team: str
    token_issued: float | None
    removed: float | None
    versions: list[int]  # accepted, oldest first
    playing: list[int]  # of those, the ones not retired
    latest: Upload | None  # its last submission, whatever became of it


def team_listing(engine: Engine) -> list[TeamListing]:
    """For the host: each team (not the admin) with its accepted versions, those that play, its latest
    submission (id, status, version) and when its token was issued."""
    with engine.connect() as c:
        ts = c.execute(sa.select(teams).where(teams.c.admin.is_(False)).order_by(teams.c.name)).mappings().all()
        subs = c.execute(sa.select(submissions.c.team_id, submissions.c.id, submissions.c.status,
                                   submissions.c.version, submissions.c.retired)
                         .order_by(submissions.c.id)).mappings().all()
    out = []
    for t in map(Team.of, ts):
        mine = [s for s in subs if s["team_id"] == t.id]
        out.append(TeamListing(
            t.name, t.token_issued, t.removed, [int(s["version"]) for s in mine if s["status"] == "accepted"],
            [int(s["version"]) for s in mine if s["status"] == "accepted" and s["retired"] is None],
            Upload(int(mine[-1]["id"]), str(mine[-1]["status"]), mine[-1]["version"]) if mine else None))
    return out


def team_for_token(engine: Engine, token: str) -> Team | None:
    """The team whose token this is; every stored hash is compared in constant time."""
    digest = _hash(token)
    with engine.connect() as c:
        rows = c.execute(sa.select(teams).where(teams.c.removed.is_(None))).mappings().all()
    found = None
    for r in rows:
        if hmac.compare_digest(r["token_sha256"], digest):
            found = Team.of(r)
    return found


def submission_folders(engine: Engine) -> list[str]:
    with engine.connect() as c:
        return [str(f) for f in c.execute(sa.select(submissions.c.folder)).scalars()]


def get_team(engine: Engine, team_id: int) -> Team | None:
    """A team that is not removed, by id."""
    with engine.connect() as c:
        r = c.execute(sa.select(teams).where(teams.c.id == team_id, teams.c.removed.is_(None))).mappings().first()
    return Team.of(r) if r else None


def submissions_today(engine: Engine, team_id: int) -> int:
    """The team's submissions in the last 24 hours (what its daily limit counts)."""
    with engine.connect() as c:
        return _today(c, team_id, time.time())


def _today(c: Connection, team_id: int, now: float) -> int:
    return int(c.execute(sa.select(sa.func.count()).select_from(submissions).where(
        submissions.c.team_id == team_id, submissions.c.created > now - DAY_S)).scalar() or 0)


DAY_S = 86400  # the daily limit's window: the last 24 hours


def quota(engine: Engine, team_id: int, per_day: int) -> tuple[int, float | None]:
    """The team's submissions in the window, and when the next one leaves it (a slot frees; None: none in it)."""
    now = time.time()
    with engine.connect() as c:
        used = _today(c, team_id, now)
        oldest = c.execute(sa.select(sa.func.min(submissions.c.created)).where(
            submissions.c.team_id == team_id, submissions.c.created > now - DAY_S)).scalar()
    return used, (float(oldest) + DAY_S if oldest is not None else None)


def retry_after(frees_at: float | None) -> int:
    """Whole seconds until a slot frees (at least 1): the Retry-After of a refusal for the daily limit."""
    return max(1, int(-(-((frees_at or 0) - time.time()) // 1)))


def same_as(engine: Engine, team_id: int, digest: str) -> Submission | None:
    """The team's accepted version with exactly these files (its latest), if any."""
    with engine.connect() as c:
        r = c.execute(sa.select(submissions).where(
            submissions.c.team_id == team_id, submissions.c.digest == digest, submissions.c.status == "accepted")
            .order_by(submissions.c.id.desc()).limit(1)).mappings().first()
    return Submission.of(r) if r else None


def add_submission(engine: Engine, team_id: int, folder: str, *, per_day: int, digest: str | None = None) -> int:
    """Record a queued submission, refusing one over the team's daily limit (``RateLimited``).

    Atomic: the transaction first writes the team's row (a no-op update), which takes that row's lock on
    PostgreSQL and the write lock on SQLite, so two uploads of one team at once are counted one after the
    other and never both slip under the limit.
    """
    now = time.time()
    with engine.begin() as c:
        c.execute(teams.update().where(teams.c.id == team_id).values(admin=teams.c.admin))
        n = _today(c, team_id, now)
        if n >= per_day:
            oldest = c.execute(sa.select(sa.func.min(submissions.c.created)).where(
                submissions.c.team_id == team_id, submissions.c.created > now - DAY_S)).scalar()
            raise RateLimited(f"the team has made {n} submissions in the last 24 hours, its limit",
                              float(oldest) + DAY_S if oldest is not None else None)
        res = c.execute(submissions.insert().values(team_id=team_id, created=now, status="queued", folder=folder,
                                                    digest=digest))
        key = res.inserted_primary_key
        assert key is not None
        return int(key[0])


class RateLimited(ValueError):
    """A team is over its submissions per day; ``frees_at``: when its oldest one in the window leaves it."""

    def __init__(self, message: str, frees_at: float | None = None) -> None:
        super().__init__(message)
        self.frees_at = frees_at


def get_submission(engine: Engine, sid: int) -> Submission | None:
    with engine.connect() as c:
        r = c.execute(sa.select(submissions).where(submissions.c.id == sid)).mappings().first()
    return Submission.of(r) if r else None


def team_submissions(engine: Engine, team_id: int) -> list[Submission]:
    """The team's submissions, oldest first."""
    with engine.connect() as c:
        rows = c.execute(sa.select(submissions).where(submissions.c.team_id == team_id)
                         .order_by(submissions.c.id)).mappings().all()
    return [Submission.of(r) for r in rows]


def claim_next(engine: Engine) -> Submission | None:
    """Move the oldest queued submission of a team with none in ``checking`` to ``checking`` (one
    transaction) and return it. Parallel validations thus take different teams, and a team's versions are
    numbered in the order it uploaded them."""
    with engine.begin() as c:
        checking = sa.select(submissions.c.team_id).where(submissions.c.status == "checking")
        r = c.execute(sa.select(submissions).where(submissions.c.status == "queued",
                                                   submissions.c.team_id.not_in(checking))
                      .order_by(submissions.c.id).limit(1)).mappings().first()
        if r is None:
            return None
        done = c.execute(submissions.update().where(submissions.c.id == r["id"], submissions.c.status == "queued")
                         .values(status="checking", attempts=submissions.c.attempts + 1))
        return Submission.of({**r, "status": "checking", "attempts": r["attempts"] + 1}) if done.rowcount == 1 else None


def finish(engine: Engine, sid: int, ok: bool, report: str) -> int | None:
    """Record a verdict; an accepted submission becomes its team's next version (returned)."""
    with engine.begin() as c:
        r = c.execute(sa.select(submissions).where(submissions.c.id == sid)).mappings().one()
        if r["status"] != "checking":
            done: int | None = r["version"]
            return done  # already decided: never recorded twice
        version = None
        if ok:
            top = c.execute(sa.select(sa.func.max(submissions.c.version))
                            .where(submissions.c.team_id == r["team_id"])).scalar()
            version = (top or 0) + 1
        c.execute(submissions.update().where(submissions.c.id == sid).values(
            status="accepted" if ok else "rejected", report=report, version=version))
        return version


def requeue(engine: Engine, sid: int) -> None:
    """One submission a worker held in ``checking`` when the database failed goes back to the queue."""
    with engine.begin() as c:
        c.execute(submissions.update().where(submissions.c.id == sid, submissions.c.status == "checking")
                  .values(status="queued"))


def requeue_unfinished(engine: Engine) -> int:
    """On start: a submission a crash left in ``checking`` goes back to the queue."""
    with engine.begin() as c:
        return int(c.execute(submissions.update().where(submissions.c.status == "checking")
                             .values(status="queued")).rowcount)


def accepted(engine: Engine) -> list[Entrant]:
    """Accepted submissions the ladder plays (not retired) in the order they were accepted, with their
    team's name."""
    with engine.connect() as c:
        rows = c.execute(sa.select(submissions, teams.c.name).join(teams)
                         .where(submissions.c.status == "accepted", submissions.c.retired.is_(None))
                         .order_by(submissions.c.id)).mappings().all()
    return [Entrant(int(r["id"]), str(r["name"]), int(r["version"]), str(r["folder"])) for r in rows]


def retired(engine: Engine) -> list[Entrant]:
    """Accepted submissions taken out of the ladder (by the host, with their team, or as unplayable), as
    ``Entrant`` rows (id, team, version, folder): the public site leaves them out of its ranking."""
    with engine.connect() as c:
        rows = c.execute(sa.select(submissions, teams.c.name).join(teams)
                         .where(submissions.c.status == "accepted", submissions.c.retired.is_not(None))
                         .order_by(submissions.c.id)).mappings().all()
    return [Entrant(int(r["id"]), str(r["name"]), int(r["version"]), str(r["folder"])) for r in rows]


def retire(engine: Engine, sid: int, reason: str) -> None:
    """Take an accepted version out of the ladder, saying why (its team reads it); its games stay."""
    with engine.begin() as c:
        c.execute(submissions.update().where(submissions.c.id == sid).values(retired=reason))


def rejected_folders(engine: Engine) -> list[str]:
    """The folders of rejected submissions: deleted once their verdict is recorded (and at start)."""
    with engine.connect() as c:
        return [str(f) for f in c.execute(sa.select(submissions.c.folder)
                                          .where(submissions.c.status == "rejected")).scalars()]
