"""The host's controls on the command line: teams listed, tokens reissued, teams removed, versions retired."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.commands.common import CommandError
from arena.commands.serve import main
from arena.serve import db
from arena.serve.serve import open_service


def serve(comp: Path, *args: str) -> int:
    return main([str(comp), *args])


def accept(comp: Path, team: str) -> int:
    """A submission of ``team`` validated and accepted (through the database, as the worker records it)."""
    svc = open_service(comp)
    with svc.engine.connect() as c:
        tid = c.execute(db.teams.select().where(db.teams.c.name == team)).mappings().one()["id"]
    db.add_submission(svc.engine, tid, str(comp / "f"), per_day=9)
    sub = db.claim_next(svc.engine)
    assert sub is not None
    version = db.finish(svc.engine, sub.id, True, "ok")
    assert version is not None
    return version


def test_add_team_prints_the_token_alone_and_says_on_stderr_what_it_is(comp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert serve(comp, "--add-team", "red") == 0
    out, err = capsys.readouterr()
    token = out.strip()
    assert len(token) > 30 and "\n" not in token  # scripts read stdout as the token
    assert "shown only now" in err and "arena submit" in err and "ARENA_TOKEN" in err
    assert db.team_for_token(open_service(comp).engine, token) is not None


def test_the_listing_reissue_retire_and_removal(comp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert serve(comp, "--teams") == 0
    assert "no teams yet" in capsys.readouterr().out
    serve(comp, "--add-team", "red")
    red = capsys.readouterr().out.strip()
    serve(comp, "--add-team", "blue")
    blue = capsys.readouterr().out.strip()
    assert accept(comp, "red") == 1 and accept(comp, "red") == 2
    serve(comp, "--teams")
    table = capsys.readouterr().out
    line = next(x for x in table.splitlines() if x.startswith("red "))
    assert "v1,v2" in line and "accepted as v2" in line and "UTC" in line
    assert "none" in next(x for x in table.splitlines() if x.startswith("blue "))

    engine = open_service(comp).engine
    serve(comp, "--retire", "red:2")
    assert "red v2 retired" in capsys.readouterr().out
    assert [s.version for s in db.accepted(engine)] == [1]  # the ranking falls back to v1
    serve(comp, "--teams")
    assert "v1,(v2)" in capsys.readouterr().out

    serve(comp, "--reissue-token", "red")
    new = capsys.readouterr().out.strip()
    assert db.team_for_token(engine, red) is None and db.team_for_token(engine, new) is not None

    serve(comp, "--remove-team", "blue")
    assert "blue removed" in capsys.readouterr().out
    assert db.team_for_token(engine, blue) is None
    serve(comp, "--remove-team", "red")
    capsys.readouterr()
    assert db.accepted(engine) == []  # out of the ladder; the rows stay
    assert len(db.team_submissions(engine, 1)) == 2
    serve(comp, "--teams")
    assert "red (removed)" in capsys.readouterr().out


def test_a_wrong_name_or_version_is_refused_with_the_teams(comp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    serve(comp, "--add-team", "red")
    with pytest.raises(CommandError, match="no team named 'rde'; the teams: red"):
        serve(comp, "--remove-team", "rde")
    with pytest.raises(CommandError, match="red has no version 4"):
        serve(comp, "--retire", "red:4")
    with pytest.raises(CommandError, match="TEAM:VERSION"):
        serve(comp, "--retire", "red")
    with pytest.raises(CommandError, match="no team named"):
        serve(comp, "--reissue-token", "nobody")


def test_a_team_token_never_starts_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """A token read as an option (`--token -abc`) broke arena submit: one random token in 64 began with '-'."""
    drawn = iter(["-first", "second"])
    monkeypatch.setattr(db.secrets, "token_urlsafe", lambda n: next(drawn))
    assert db.new_token() == "second"
