"""What an entrant reads from the API: its submissions and quota, the ranked leaderboard with ratings, an
identical re-upload, the daily limit's Retry-After, ``arena submit``'s token; and the host's log lines."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest

from arena.commands.common import CommandError
from arena.commands.serve import main_submit
from arena.serve import db
from arena.serve.ladder import write_ratings

from .conftest import ROOT, Live, bot_archive, row
from .test_api import auth, upload


def accept_all(live: Live) -> None:
    """Record every queued submission accepted, as the worker would after a validation."""
    while (sub := db.claim_next(live.svc.engine)) is not None:
        db.finish(live.svc.engine, sub.id, True, "ok")


def test_a_team_lists_its_own_submissions_with_its_quota(live: Live) -> None:
    assert httpx.get(f"{live.url}/api/submissions").status_code == 401
    first = upload(live, "red")
    assert first.status_code == 202 and first.json()["remaining_today"] == 2
    upload(live, "blue", bot_archive(ROOT / "bots" / "random"))
    accept_all(live)
    mine = httpx.get(f"{live.url}/api/submissions", headers=auth(live, "red")).json()
    assert mine["team"] == "red" and [s["name"] for s in mine["submissions"]] == ["red v1"]
    assert mine["quota"]["per_day"] == 3 and mine["quota"]["used"] == 1 and mine["quota"]["remaining"] == 2
    assert mine["quota"]["next_slot_at"] > 0
    one = httpx.get(f"{live.url}/api/submissions/{first.json()['id']}", headers=auth(live, "red")).json()
    assert one["name"] == "red v1" and one["status"] == "accepted"


def test_an_identical_reupload_is_the_same_version_and_costs_nothing(live: Live) -> None:
    upload(live, "red")
    accept_all(live)
    again = upload(live, "red")
    assert again.status_code == 200, again.text
    body = again.json()
    assert body["same_as"] == 1 and body["name"] == "red v1" and "same as version 1" in body["detail"]
    assert body["remaining_today"] == 2  # no slot of the day used
    assert len(db.team_submissions(live.svc.engine, 1)) == 1
    assert not [d for d in (live.svc.folder / "submissions").iterdir() if d.name.startswith("upload-")][1:]
    changed = upload(live, "red", bot_archive(ROOT / "bots" / "random"))
    assert changed.status_code == 202  # other files: a new submission


def test_the_daily_limit_says_when_a_slot_frees(live: Live) -> None:
    for name in ("minimal", "random", "heuristic"):
        assert upload(live, "red", bot_archive(ROOT / "bots" / name)).status_code == 202
    r = upload(live, "red")
    assert r.status_code == 429 and "next slot frees at" in r.json()["detail"]
    assert 86000 < int(r.headers["retry-after"]) <= 86400
    quota = httpx.get(f"{live.url}/api/submissions", headers=auth(live, "red")).json()["quota"]
    assert quota["remaining"] == 0


def test_the_leaderboard_is_ranked_by_rating_with_its_figures(live: Live) -> None:
    upload(live, "red")
    upload(live, "blue", bot_archive(ROOT / "bots" / "random"))
    accept_all(live)
    board = httpx.get(f"{live.url}/api/leaderboard").json()
    assert [(r["team"], r["rank"], r["rating"], r["games"]) for r in board] == [("blue", None, None, 0),
                                                                                 ("red", None, None, 0)]
    meta = {"entries": [{"name": "red", "digest": "r1", "dir": str(live.svc.folder / "ladder" / "red-v1")},
                        {"name": "blue", "digest": "b1", "dir": str(live.svc.folder / "ladder" / "blue-v1")}]}
    doc = [row("red", "r1", 40.0, 10.0, 70.0, 8, 0.75, 1), row("blue", "b1", -40.0, None, None, 8, 0.25, 0),
           row("gone", "g", 99.0)]  # no ladder version: not shown
    write_ratings(live.svc.folder, doc, meta)
    board = httpx.get(f"{live.url}/api/leaderboard").json()
    assert [r["name"] for r in board] == ["red v1", "blue v1"]  # ranked, not alphabetical
    assert board[0] == {"rank": 1, "team": "red", "version": 1, "name": "red v1", "rating": 40.0, "ci_low": 10.0,
                        "ci_high": 70.0, "games": 8, "score_pct": 0.75, "faults": 1}
    assert board[1]["rank"] == 2 and board[1]["ci_low"] is None
    schema = httpx.get(f"{live.url}/openapi.json").json()
    assert {"LeaderboardRow", "Submissions", "Quota"} <= set(schema["components"]["schemas"])
    assert "get" in schema["paths"]["/api/submissions"]


def test_arena_submit_reads_the_token_from_the_environment_or_a_file(live: Live, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    bot = str(ROOT / "bots" / "minimal")
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    with pytest.raises(CommandError, match="ARENA_TOKEN"):
        main_submit([live.url, bot, "--no-wait"])
    monkeypatch.setenv("ARENA_TOKEN", live.tokens["red"])
    assert main_submit([live.url, bot, "--no-wait"]) == 0
    assert "queued (2 uploads left today)" in capsys.readouterr().out
    monkeypatch.delenv("ARENA_TOKEN")
    file = tmp_path / "token"
    file.write_text(live.tokens["blue"] + "\n")
    assert main_submit([live.url, bot, "--no-wait", "--token-file", str(file)]) == 0
    assert [len(db.team_submissions(live.svc.engine, i)) for i in (1, 2)] == [1, 1]
    accept_all(live)
    assert main_submit([live.url, bot, "--no-wait", "--token-file", str(file)]) == 0
    assert "same as version 1 (blue v1)" in capsys.readouterr().out
    with pytest.raises(CommandError, match="empty"):
        (tmp_path / "none").write_text("")
        main_submit([live.url, bot, "--token-file", str(tmp_path / "none")])


def test_the_log_says_each_upload_and_verdict(live: Live, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="arena")
    sid = upload(live, "red").json()["id"]
    assert f"upload: team red, submission #{sid} queued" in caplog.text
    assert live.svc.work_once()  # a real validation
    assert f"verdict: submission #{sid} of team red accepted as red v1" in caplog.text
    upload(live, "red")
    assert "team red sent the files of red v1 again" in caplog.text


def test_the_api_docs_come_from_the_installed_package_not_a_cdn(live: Live) -> None:
    for page in ("/docs", "/redoc"):
        text = httpx.get(f"{live.url}{page}").text
        assert "cdn" not in text.lower() and "https://" not in text, page
        assert "/docs-assets/" in text
    js = httpx.get(f"{live.url}/docs-assets/swagger-ui-bundle.js")
    assert js.status_code == 200 and "SwaggerUIBundle" in js.text


@pytest.mark.slow
def test_the_api_docs_render_in_a_browser(live: Live) -> None:
    from tests.publish.site.browser import Browser, find_browser

    from .test_browser import goto

    exe = find_browser()
    if exe is None:
        pytest.skip("no Chromium: install it with `apt-get install chromium` (.ci/run does)")
    b = Browser(exe)
    try:
        goto(b, f"{live.url}/docs")
        b.wait_for("typeof SwaggerUIBundle === 'function' && document.querySelector('.swagger-ui .opblock') !== null")
        assert "/api/leaderboard" in b.js("document.body.textContent")
        assert b.problems() == []
    finally:
        b.close()


def test_a_reissued_token_or_a_removed_team_ends_its_page_sessions(live: Live) -> None:
    import re

    from .test_api import count, login

    red, blue = login(live, "red"), login(live, "blue")
    csrf = {n: re.search(r"name=csrf value=([\w-]+)", c.get("/team").text).group(1)  # type: ignore[union-attr]
            for n, c in (("red", red), ("blue", blue))}
    db.reissue_token(live.svc.engine, "red")  # as `arena serve --reissue-token red` does, from another process
    db.remove_team(live.svc.engine, "blue")
    for name, c in (("red", red), ("blue", blue)):
        assert c.get("/team").status_code == 401, name
        assert c.post("/team/upload", files={"archive": ("b.tar.gz", bot_archive())},
                      data={"csrf": csrf[name]}).status_code == 403, name
    assert count(live) == 0
    assert upload(live, "red").status_code == 401  # the old token, on the API too
