"""The API and team page against a real server: tokens, cross-team access, CSRF, limits."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from arena.serve import db

from .conftest import Live, bot_archive


def auth(live: Live, team: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {live.tokens[team]}"}


def upload(live: Live, team: str | None, data: bytes | None = None) -> httpx.Response:
    headers = auth(live, team) if team else {}
    return httpx.post(f"{live.url}/api/submissions", headers=headers,
                      files={"archive": ("bot.tar.gz", data or bot_archive())}, timeout=120)  # a busy machine


def count(live: Live) -> int:
    return sum(len(db.team_submissions(live.svc.engine, i)) for i in (1, 2, 3))


def test_an_upload_is_queued_and_only_its_team_reads_it(live: Live) -> None:
    r = upload(live, "red")
    assert r.status_code == 202 and r.json()["status"] == "queued"
    sid = r.json()["id"]
    mine = httpx.get(f"{live.url}/api/submissions/{sid}", headers=auth(live, "red"))
    assert mine.status_code == 200 and mine.json()["status"] == "queued"
    theirs = httpx.get(f"{live.url}/api/submissions/{sid}", headers=auth(live, "blue"))
    assert theirs.status_code == 404 and "report" not in theirs.text
    assert httpx.get(f"{live.url}/api/submissions/{sid}", headers=auth(live, "host")).status_code == 200
    assert "/api/submissions" in httpx.get(f"{live.url}/openapi.json").json()["paths"]
    # the unpacked folder is inside the competition folder
    folder = Path(db.get_submission(live.svc.engine, sid).folder)  # type: ignore[union-attr]
    assert folder.is_relative_to(live.svc.folder) and (folder / "bot.yaml").exists()


def test_no_token_or_a_wrong_token_changes_nothing(live: Live) -> None:
    before = count(live)
    assert upload(live, None).status_code == 401
    bad = httpx.post(f"{live.url}/api/submissions", headers={"Authorization": "Bearer nope"},
                     files={"archive": ("b.tar.gz", bot_archive())})
    assert bad.status_code == 401
    assert httpx.get(f"{live.url}/api/submissions/1").status_code == 401
    assert httpx.post(f"{live.url}/team/upload", files={"archive": ("b.tar.gz", bot_archive())},
                      data={"csrf": "x"}).status_code == 403
    assert httpx.get(f"{live.url}/team").status_code == 401
    assert count(live) == before


def test_a_hostile_archive_is_refused_with_its_sentence(live: Live) -> None:
    from .test_archive import tgz

    r = upload(live, "red", tgz([("../../../evil", b"x")]))
    assert r.status_code == 400 and "climbs out" in r.json()["detail"]
    assert count(live) == 0 and not (live.svc.folder.parent / "evil").exists()


def test_the_rate_limit_refuses_the_fourth_upload_of_a_day(live: Live) -> None:
    assert [upload(live, "red").status_code for _ in range(4)] == [202, 202, 202, 429]
    assert upload(live, "blue").status_code == 202  # one team's limit is not another's


def login(live: Live, team: str) -> httpx.Client:
    """Log in as a browser does: the front page's form, its hidden login token and the cookie beside it."""
    c = httpx.Client(base_url=live.url)
    form = re.search(r"name=login value=([\w-]+)", c.get("/").text).group(1)  # type: ignore[union-attr]
    r = c.post("/login", data={"token": live.tokens[team], "login": form})
    assert r.status_code == 303
    return c


def test_the_team_page_needs_the_session_and_its_csrf_token(live: Live) -> None:
    red = login(live, "red")
    page = red.get("/team").text
    csrf = re.search(r"name=csrf value=([\w-]+)", page).group(1)  # type: ignore[union-attr]
    assert red.post("/team/upload", files={"archive": ("b.tar.gz", bot_archive())},
                    data={"csrf": "forged"}).status_code == 403
    assert count(live) == 0
    ok = red.post("/team/upload", files={"archive": ("b.tar.gz", bot_archive())}, data={"csrf": csrf})
    assert ok.status_code == 303 and count(live) == 1
    # blue's session sees none of red's submissions, and red's CSRF token is not blue's
    blue = login(live, "blue")
    assert "sub-1" not in blue.get("/team").text and "sub-1" in red.get("/team").text
    assert blue.post("/team/upload", files={"archive": ("b.tar.gz", bot_archive())},
                     data={"csrf": csrf}).status_code == 403
    anon = httpx.Client(base_url=live.url)
    form = re.search(r"name=login value=([\w-]+)", anon.get("/").text).group(1)  # type: ignore[union-attr]
    assert anon.post("/login", data={"token": "wrong", "login": form}).status_code == 401


def test_a_browser_at_the_forms_reads_a_refusal_as_a_page_and_the_api_as_json(live: Live) -> None:
    """The same sentence either way: a page with a way back where a browser (Accept: text/html) used the
    server's own forms, JSON for the API and for clients that do not ask for HTML."""
    html_ = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    red = login(live, "red")
    csrf = re.search(r"name=csrf value=([\w-]+)", red.get("/team").text).group(1)  # type: ignore[union-attr]
    r = red.post("/team/upload", files={"archive": ("b.tar.gz", b"not an archive")}, data={"csrf": csrf},
                 headers=html_)
    assert r.status_code == 400 and r.headers["content-type"].startswith("text/html")
    sentence = re.search(r"<p id=refusal>([^<]+)</p>", r.text).group(1)  # type: ignore[union-attr]
    assert "<a href=/team>" in r.text and count(live) == 0
    r = red.post("/team/upload", files={"archive": ("b.tar.gz", b"not an archive")}, data={"csrf": csrf})
    assert r.status_code == 400 and r.json()["detail"] == sentence
    anon = httpx.Client(base_url=live.url)
    form = re.search(r"name=login value=([\w-]+)", anon.get("/").text).group(1)  # type: ignore[union-attr]
    r = anon.post("/login", data={"token": "wrong", "login": form}, headers=html_)
    assert r.status_code == 401 and "<p id=refusal>unknown token</p>" in r.text and "<a href=/>" in r.text
    api = httpx.post(f"{live.url}/api/submissions", headers={**html_, "Authorization": "Bearer wrong"},
                     files={"archive": ("b.tar.gz", bot_archive())})
    assert api.status_code == 401 and api.json() == {"detail": "unknown token"}


def test_the_ladders_site_is_served_from_folder_public_once_built(live: Live) -> None:
    assert httpx.get(f"{live.url}/site/").status_code == 404  # before the first batch: nothing, not an error
    public = live.svc.folder / "public"
    (public / "bots").mkdir(parents=True)
    (public / "index.html").write_text("<h1>leaderboard</h1>")
    (public / "bots" / "red.html").write_text("red's page")
    assert httpx.get(f"{live.url}/site/").text == "<h1>leaderboard</h1>"
    assert httpx.get(f"{live.url}/site/bots/red.html").text == "red's page"
    assert httpx.get(f"{live.url}/site/../competition.yaml").status_code == 404  # nothing outside FOLDER/public
    assert httpx.get(f"{live.url}/site/%2e%2e/competition.sqlite").status_code == 404


def test_a_page_replaced_while_it_is_served_arrives_whole(live: Live) -> None:
    """The ladder replaces pages in place while the site is served: a page is stated and read from one
    opened version, never a length from the last stat with the body of the next (the connection then broke)."""
    import os
    import threading

    from arena.serve.app import make_app

    public = live.svc.folder / "public"
    public.mkdir()
    index = public / "index.html"
    versions = [b"<p>short</p>", b"<p>" + b"long " * 4000 + b"</p>"]
    index.write_bytes(versions[0])
    stale = os.stat(index)
    (public / "next.html").write_bytes(versions[1])
    os.replace(public / "next.html", index)
    site = next(r.app for r in make_app(live.svc).routes if getattr(r, "name", "") == "site")  # type: ignore[attr-defined]
    resp = site.file_response(index, stale, {"type": "http", "headers": []})
    assert resp.body == versions[1] and resp.headers["content-length"] == str(len(versions[1]))
    stop = threading.Event()

    def swap() -> None:
        k = 0
        while not stop.is_set():
            (public / "next.html").write_bytes(versions[k % 2])
            os.replace(public / "next.html", index)
            k += 1

    t = threading.Thread(target=swap)
    t.start()
    try:
        with httpx.Client(base_url=live.url) as c:
            bodies = {c.get("/site/").content for _ in range(60)}
    finally:
        stop.set()
        t.join()
    assert bodies <= set(versions), [b[:20] for b in bodies]


def test_before_any_ladder_block_the_live_and_fault_answers_are_empty(live: Live) -> None:
    assert httpx.get(f"{live.url}/api/standings").json() == {"updated": None, "blocks_stored": 0, "batch": None,
                                                             "standings": []}
    assert httpx.get(f"{live.url}/live/").status_code == 404  # nothing yet, not an error
    assert httpx.get(f"{live.url}/api/faults", headers=auth(live, "red")).json() == []
    assert httpx.get(f"{live.url}/api/faults").status_code == 401
    block = {"pairing": "red~blue", "block": 0}
    assert httpx.get(f"{live.url}/api/faults/block.jsonl", params=block, headers=auth(live, "host")).status_code == 404
    assert httpx.get(f"{live.url}/favicon.ico").status_code == 204
    assert "id=no-faults" in login(live, "red").get("/team").text


def test_a_team_keeps_at_most_its_ten_newest_sessions(live: Live) -> None:
    from arena.serve.pages import MAX_SESSIONS

    clients = [login(live, "red") for _ in range(MAX_SESSIONS + 2)]
    blue = login(live, "blue")
    assert [c.get("/team").status_code for c in clients] == [401, 401] + [200] * MAX_SESSIONS
    assert blue.get("/team").status_code == 200  # another team's logins end none of its sessions


def test_the_front_page_names_the_time_mode_and_the_audit_is_private(live: Live) -> None:
    """Level none (this test server's) keeps tempo free; the page says so; before any ladder game
    the tempo audit is empty, and it needs a token."""
    front = httpx.get(f"{live.url}/").text
    assert "tempo free" in front and "a decision may use 1000 ms of CPU" in front
    assert httpx.get(f"{live.url}/api/tempo").status_code == 401
    assert httpx.get(f"{live.url}/api/tempo", headers=auth(live, "red")).json() == []
    assert "id=no-tempo" in login(live, "red").get("/team").text


def test_an_open_competition_defaults_to_tempo_fixed(tmp_path: Path) -> None:
    from arena.serve.pages import _tempo_line
    from arena.serve.config import CompetitionConfig

    cfg = CompetitionConfig.model_validate({"match": {"time": {"decision_ms": 200}}})
    assert cfg.match.sandbox.value == "gvisor" and cfg.match.time.tempo == "fixed"
    assert CompetitionConfig().match.time.tempo == "fixed"
    assert CompetitionConfig.model_validate({"match": {"time": {"tempo": "free"}}}).match.time.tempo == "free"
    assert CompetitionConfig.model_validate({"match": {"sandbox": "none"}}).match.time.tempo == "free"

    class Svc:
        config = cfg

    assert "tempo fixed: every answer is released 350 ms after its request" in _tempo_line(Svc())  # type: ignore[arg-type]
    assert "a decision may use 200 ms of CPU" in _tempo_line(Svc())  # type: ignore[arg-type]
