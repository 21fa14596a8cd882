"""The database, on SQLite and on PostgreSQL: migrations, hashed tokens, one verdict per submission, requeue."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from arena.serve import db
from arena.serve.config import CompetitionConfigError, load
from arena.serve.serve import database_url


def every_value(engine: sa.engine.Engine) -> str:
    """Every cell of every table, as text."""
    with engine.connect() as c:
        return "\n".join(str(v) for t in db.META.sorted_tables for row in c.execute(sa.select(t)) for v in row)


def test_migrations_run_once_and_tokens_are_stored_only_as_hashes(tmp_path: Path, db_url: str | None) -> None:
    url = database_url(tmp_path, db_url)
    engine = db.connect(url)
    token = db.add_team(engine, "red")
    again = db.connect(url)  # a restart: nothing is migrated twice
    assert db.schema_version(again) == len(db.MIGRATIONS)
    with again.connect() as c:
        assert c.execute(sa.text("SELECT COUNT(*) FROM schema_version")).scalar() == len(db.MIGRATIONS)
    assert "red" in every_value(engine) and token not in every_value(engine)
    if db_url is None:
        assert token.encode() not in (tmp_path / "competition.sqlite").read_bytes()
    assert db.team_for_token(engine, token).name == "red"  # type: ignore[union-attr]
    assert db.team_for_token(engine, token + "x") is None
    with pytest.raises(ValueError, match="exists already"):
        db.add_team(engine, "red")
    for bad in ("red team", "../x", "", "-x"):  # a team name is its bot's name on the ladder
        with pytest.raises(ValueError, match="team name"):
            db.add_team(engine, bad)


def test_a_verdict_is_recorded_once_and_a_crash_in_checking_is_requeued(tmp_path: Path, db_url: str | None) -> None:
    engine = db.connect(database_url(tmp_path, db_url))
    db.add_team(engine, "red")
    a = db.add_submission(engine, 1, "a", per_day=5)
    b = db.add_submission(engine, 1, "b", per_day=5)
    assert db.claim_next(engine).id == a  # type: ignore[union-attr]
    # the server dies here; on start the submission goes back to the queue, nothing else moves
    assert db.requeue_unfinished(engine) == 1
    assert db.claim_next(engine).id == a  # type: ignore[union-attr]
    assert db.finish(engine, a, True, "ok") == 1
    assert db.finish(engine, a, False, "again") == 1  # a second verdict changes nothing
    assert db.get_submission(engine, a).status == "accepted"  # type: ignore[union-attr]
    assert db.claim_next(engine).id == b  # type: ignore[union-attr]
    assert db.finish(engine, b, True, "ok") == 2  # the team's next version
    assert db.claim_next(engine) is None and db.requeue_unfinished(engine) == 0


def test_a_bad_competition_yaml_names_its_field(tmp_path: Path) -> None:
    with pytest.raises(CompetitionConfigError, match="not found"):
        load(tmp_path)
    (tmp_path / "competition.yaml").write_text("competition:\n  submissions_per_day: 0\n")
    with pytest.raises(CompetitionConfigError, match=r"competition\.submissions_per_day"):
        load(tmp_path)
    (tmp_path / "competition.yaml").write_text("competition:\n  max_fils: 3\n")
    with pytest.raises(CompetitionConfigError, match=r"competition\.max_fils"):
        load(tmp_path)


def test_a_first_schema_database_is_migrated_with_its_rows(tmp_path: Path, db_url: str | None) -> None:
    url = database_url(tmp_path, db_url)
    old = db.connect(url, upto=1)
    with old.begin() as c:  # a competition of the first schema: a team and an accepted submission
        c.execute(sa.text("INSERT INTO teams (name, token_sha256, admin) VALUES ('red', 'x', false)"))
        c.execute(sa.text("INSERT INTO submissions (team_id, created, status, folder, report, version)"
                          " VALUES (1, 1.0, 'accepted', 'f', 'ok', 1)"))
    assert db.schema_version(old) == 1
    engine = db.connect(url)
    assert db.schema_version(engine) == len(db.MIGRATIONS) == 5
    sub = db.get_submission(engine, 1)
    assert sub is not None and (sub.status, sub.version, sub.report, sub.attempts, sub.retired) == (
        "accepted", 1, "ok", 0, None)
    sid = db.add_submission(engine, 1, "g", per_day=5)
    assert db.claim_next(engine).attempts == 1  # type: ignore[union-attr]
    db.requeue_unfinished(engine)
    assert db.claim_next(engine).attempts == 2  # type: ignore[union-attr]
    assert db.get_submission(engine, sid).attempts == 2  # type: ignore[union-attr]


def test_an_upload_cut_off_before_it_was_recorded_is_swept_and_recorded_ones_kept(comp: Path,
                                                                                  db_url: str | None) -> None:
    from arena.serve.serve import open_service

    svc = open_service(comp, db_url)
    team = db.add_team(svc.engine, "red")
    kept = comp / "submissions" / "upload-kept"
    dead = comp / "submissions" / "upload-dead"
    for d in (kept, dead):
        d.mkdir(parents=True)
        (d / "bot.yaml").write_text("name: x\n")
    db.add_submission(svc.engine, db.team_for_token(svc.engine, team).id, str(kept), per_day=5)  # type: ignore[union-attr]
    assert svc.sweep_uploads() == [dead]
    assert kept.is_dir() and not dead.exists() and svc.sweep_uploads() == []


def test_the_daily_limit_holds_for_uploads_of_one_team_at_the_same_moment(tmp_path: Path, db_url: str | None) -> None:
    """The count and the insert were two statements: uploads at the same moment each counted the others'
    absence. Every insert is slowed here so that they overlap; the limit still holds."""
    import threading
    import time

    engine = db.connect(database_url(tmp_path, db_url))
    db.add_team(engine, "red")
    db.add_team(engine, "blue")

    @sa.event.listens_for(engine, "before_cursor_execute")
    def slow_insert(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("INSERT INTO SUBMISSIONS"):
            time.sleep(0.2)

    got: list[object] = []

    def one(team: int) -> None:
        try:
            got.append(db.add_submission(engine, team, "f", per_day=3))
        except db.RateLimited as e:
            got.append(e)

    threads = [threading.Thread(target=one, args=(1,)) for _ in range(8)] + [threading.Thread(target=one, args=(2,))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(isinstance(g, int) for g in got) == 4  # red's 3, blue's 1
    assert [len(db.team_submissions(engine, i)) for i in (1, 2)] == [3, 1]
    assert sum(isinstance(g, db.RateLimited) for g in got) == 5


def test_a_competition_plays_on_a_kernel_per_seat_unless_it_says_otherwise(tmp_path: Path) -> None:
    """Entrants are strangers: an unset match.sandbox is gvisor in competition.yaml (bwrap in
    `arena run`); a host without runsc says so by setting it."""
    (tmp_path / "competition.yaml").write_text("competition:\n  name: open\n")
    assert load(tmp_path).match.sandbox.value == "gvisor"
    (tmp_path / "competition.yaml").write_text("match:\n  format: deals\n")
    assert load(tmp_path).match.sandbox.value == "gvisor"
    (tmp_path / "competition.yaml").write_text("match:\n  sandbox: bwrap\n")
    assert load(tmp_path).match.sandbox.value == "bwrap"
    (tmp_path / "competition.yaml").write_text("")
    assert load(tmp_path).match.sandbox.value == "gvisor"


def test_a_competition_yaml_reports_every_problem_at_once_with_did_you_mean(tmp_path: Path) -> None:
    (tmp_path / "competition.yaml").write_text(
        "competition:\n  nmae: x\n  ladder_block: 3\n  submissions_per_day: 0\nmatch:\n  sandbx: none\n")
    with pytest.raises(CompetitionConfigError) as e:
        load(tmp_path)
    said = str(e.value)
    assert "competition.nmae" in said and "did you mean 'name'" in said
    assert "competition.ladder_block" in said and "did you mean 'ladder_blocks'" in said
    assert "match.sandbx" in said and "did you mean 'sandbox'" in said
    assert "competition.yaml:4: competition.submissions_per_day" in said
