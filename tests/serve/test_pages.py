"""What an entrant reads on the server's pages (issue 43): the competition's name everywhere, the team page's
rank, rating, history, bot page and quota, a logout, and refusals a person can act on (a page, and a way on)."""

from __future__ import annotations

import re
from types import SimpleNamespace

import httpx

from arena.serve.ladder import write_ratings

from .conftest import Live, bot_archive, row
from .test_api import login, upload
from .test_entrant import accept_all

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def csrf_of(page: str) -> str:
    return re.search(r"name=csrf value=([\w-]+)", page).group(1)  # type: ignore[union-attr]


def test_every_page_names_the_competition(live: Live) -> None:
    red = login(live, "red")
    pages = {"front": httpx.get(f"{live.url}/").text, "team": red.get("/team").text,
             "final": httpx.get(f"{live.url}/final/").text,
             "refusal": httpx.get(f"{live.url}/team", headers=HTML).text}
    for name, text in pages.items():
        assert re.search(r"<div id=competition><a href=/>test cup</a>", text), name


def test_the_team_page_shows_its_rank_rating_history_bot_page_and_quota(live: Live) -> None:
    red = login(live, "red")
    page = red.get("/team").text
    assert "no version of yours is ranked yet" in page and "uploads left in the last 24 hours: <b id=quota-left>3</b> of 3" in page
    upload(live, "red")
    upload(live, "blue", bot_archive(variant="blue"))
    accept_all(live)
    page = red.get("/team").text
    assert "red v1:" in page and "not rated yet (0 games)" in page and "<b id=quota-left>2</b> of 3" in page
    assert "as version 1 (red v1)" in page
    meta = {"entries": [{"name": "red", "digest": "r1", "dir": str(live.svc.folder / "ladder" / "red-v1")},
                        {"name": "blue", "digest": "b1", "dir": str(live.svc.folder / "ladder" / "blue-v1")}]}
    doc = [row("blue", "b1", 40.0, 10.0, 70.0, 8, 0.75, 0), row("red", "r1", -40.0, -70.0, -10.0, 8, 0.25, 1)]
    site = SimpleNamespace(slugs={"red": "red", "blue": "blue"}, history_runs=[1, 2],
                           history=[{"red": row("red", "r1", -12.5)},
                                    {"red": row("red", "r1", -40.0), "blue": row("blue", "b1", 40.0)}])
    write_ratings(live.svc.folder, doc, meta, site)  # type: ignore[arg-type]
    front = httpx.get(f"{live.url}/").text  # the same figures for everyone, best first
    cells = [re.findall(r"<td>([^<]*)</td>", row) for row in re.findall(r"<tr>(<td>.*?)</tr>", front)]
    assert cells == [["1", "blue", "v1", "+40", "+10 to +70", "8", "75%", "0"],
                     ["2", "red", "v1", "-40", "-70 to -10", "8", "25%", "1"]]
    page = red.get("/team").text
    assert "rank <b id=rank>2</b> of 2, rating <b id=rating>-40</b> (95% interval -70 to -10)" in page
    assert "<span id=games>8</span> games, score 25%, 1 fault." in page
    assert "<a id=bot-page href=/site/bots/red.html>" in page
    rows = re.findall(r"<tr><td>(\d+)</td><td>([-+]\d+)</td></tr>", page)
    assert rows == [("1", "-12"), ("2", "-40")]


def test_the_page_reads_its_submissions_with_its_session_and_logs_out(live: Live) -> None:
    red = login(live, "red")
    upload(live, "red")
    mine = red.get("/api/submissions")  # what the team page's script polls: the session, no token
    assert mine.status_code == 200 and mine.json()["team"] == "red" and len(mine.json()["submissions"]) == 1
    assert httpx.get(f"{live.url}/api/submissions").status_code == 401
    assert red.post("/logout", data={"csrf": "forged"}).status_code == 403  # a foreign page cannot log one out
    assert red.get("/team").status_code == 200
    out = red.post("/logout", data={"csrf": csrf_of(red.get("/team").text)})
    assert out.status_code == 303 and out.headers["location"] == "/"
    assert red.get("/team").status_code == 401 and red.get("/api/submissions").status_code == 401
    assert red.post("/logout").status_code == 303  # logged out already: back to the front page


def test_refusals_a_person_meets_are_pages_that_lead_on(live: Live) -> None:
    red = login(live, "red")
    csrf = csrf_of(red.get("/team").text)
    # the form sent without choosing a file: the body a browser sends then, an empty part with an empty name
    body = (f'--b\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{csrf}\r\n--b\r\nContent-Disposition:'
            ' form-data; name="archive"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n\r\n--b--\r\n')
    r = red.post("/team/upload", content=body.encode(),
                 headers={**HTML, "Content-Type": "multipart/form-data; boundary=b"})
    assert r.status_code == 400 and "<p id=refusal>no file was sent: choose a .tar.gz or .zip of your bot" in r.text
    assert "<a href=/team>back</a>" in r.text
    # no session, or one that ended: the way on is the login form, not the team page that refuses again
    for client in (httpx.Client(base_url=live.url), httpx.Client(base_url=live.url, cookies={"arena_session": "x"})):
        r = client.get("/team", headers=HTML)
        assert r.status_code == 401 and "your session has ended" in r.text and "<a href=/>log in</a>" in r.text
        r = client.post("/team/upload", files={"archive": ("b.tar.gz", bot_archive())}, data={"csrf": "x"},
                        headers=HTML)
        assert r.status_code == 403 and "your session has ended" in r.text and "<a href=/>log in</a>" in r.text
    # a body over the cap, refused before the app reads it: a page for the browser, JSON for a client
    cap = live.svc.body_cap
    big = red.post("/team/upload", content=b"x" * (cap + 1), headers={**HTML, "Content-Type": "multipart/form-data;"
                                                                         " boundary=b"})
    assert big.status_code == 413 and big.headers["content-type"].startswith("text/html")
    assert f"over the limit of {cap}" in big.text and "<a href=/team>back</a>" in big.text
    api = httpx.post(f"{live.url}/api/submissions", content=b"x" * (cap + 1), headers={"Authorization": "Bearer x"})
    assert api.status_code == 413 and "over the limit" in api.json()["detail"]


def test_the_faults_answer_is_typed_in_the_schema(live: Live) -> None:
    schema = httpx.get(f"{live.url}/openapi.json").json()
    fault = schema["components"]["schemas"]["Fault"]["properties"]
    assert {"pairing", "block", "stderr", "command", "seat", "kind"} <= set(fault)
    assert httpx.get(f"{live.url}/api/faults", headers={"Authorization": f"Bearer {live.tokens['red']}"}).json() == []
