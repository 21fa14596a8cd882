"""Issue 32: no entrant can stop, freeze or fill a competition. Each attack against a real uvicorn server on
loopback, with the archives built as an entrant builds them (tests/serve/hostile.py)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from arena.serve import api as app_module
from arena.serve import db
from arena.serve.archive import pack
from arena.sandbox.files import remove_tree
from arena.serve.serve import open_service

from . import hostile
from .conftest import CONFIG, ROOT, Live, free_port, start
from .test_api import auth, count, upload

MAX_ID = 2**31 - 1  # PostgreSQL's INTEGER
MAX_BLOCK = 2**63 - 1


def leftovers(live: Live) -> list[str]:
    subs = live.svc.folder / "submissions"
    return sorted(p.name for p in subs.iterdir()) if subs.is_dir() else []


HOSTILE = [
    ("1100 folders deep", lambda: hostile.deep(1100), "name longer than 1024 bytes"),
    ("65 names deep", lambda: hostile.deep(64), "65 names deep, over the limit of 64"),
    ("5000 empty folders", lambda: hostile.empty_folders(5000), "more than 2000 files and folders"),
    ("256 MiB GNU long name", lambda: hostile.long_header(256 << 20), "GNU long-name header of 268435456 bytes"),
    ("256 MiB pax header", lambda: hostile.long_header(256 << 20, b"x"), "pax header of 268435456 bytes"),
    ("2000 chained pax headers", lambda: hostile.chained_headers(2000), "extension headers in a row"),
    ("corrupt deflate tar.gz", hostile.corrupt_tgz, "damaged or unreadable"),
    ("corrupt deflate later in a tar.gz", hostile.corrupt_tgz_late, "damaged or unreadable"),
    ("corrupt deflate zip", hostile.corrupt_zip, "damaged or unreadable"),
    ("encrypted zip", hostile.zip_encrypted, "is encrypted"),
    ("zip method 9", lambda: hostile.zip_method(9), "method 9 (Deflate64)"),
    ("zip method 99", lambda: hostile.zip_method(99), "method 99 (AES encryption)"),
    ("zip directory of 100000", lambda: hostile.zip_many_entries(100_000), "central directory is over"),
    ("a bomb", lambda: hostile.tgz([("bot.yaml", hostile.MANIFEST), ("z", b"\0" * (210 << 20))]), "unpacks to more"),
    ("no bot.yaml", lambda: hostile.tgz([("notes.txt", b"hi")]), "no bot.yaml at its root"),
    ("a link", lambda: hostile.bot_tgz([hostile.member("etc", b"2", "/etc")]), "is a link"),
]


@pytest.mark.parametrize("what,build,words", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_every_hostile_archive_is_a_400_with_one_sentence_and_leaves_nothing(live: Live, what: str, build: object,
                                                                             words: str) -> None:
    data = build()  # type: ignore[operator]
    r = upload(live, "red", data)
    detail = r.json()["detail"]
    assert r.status_code == 400 and words in detail, (r.status_code, detail)
    assert "\n" not in detail and str(live.svc.folder) not in detail and "/tmp" not in detail
    assert leftovers(live) == []  # the unpacked tree and the received body are gone at once
    assert count(live) == 0 and db.submissions_today(live.svc.engine, 1) == 0  # no day's slot spent


def test_an_archive_with_its_folder_at_the_top_is_taken_as_that_folder(live: Live) -> None:
    """`zip -r bot.zip mybot`: the honest entrant's archive, accepted with bot.yaml at the root."""
    minimal = ROOT / "bots" / "minimal"
    data = hostile.a_zip({p.name: p.read_bytes() for p in minimal.iterdir() if p.is_file()}, top="mybot/")
    r = upload(live, "red", data)
    assert r.status_code == 202, r.text
    folder = Path(db.get_submission(live.svc.engine, r.json()["id"]).folder)  # type: ignore[union-attr]
    assert sorted(p.name for p in folder.iterdir()) == ["bot.py", "bot.yaml"]
    assert [n for n in leftovers(live) if not n.startswith("upload-")] == []


def test_arena_submit_of_the_wrong_folder_costs_no_slot_and_takes_an_archive(live: Live, tmp_path: Path) -> None:
    """The folder holding the bot folder, given to `arena submit`, cost a daily slot and answered
    "ManifestError: /host/path/.../bot.yaml: no bot manifest"."""
    from arena.commands.common import CommandError
    from arena.commands.serve import main_submit

    outer = tmp_path / "outer"
    shutil.copytree(ROOT / "bots" / "minimal", outer / "mybot")
    token = ["--token", live.tokens["red"], "--no-wait"]
    with pytest.raises(CommandError, match=r"no bot\.yaml in this folder.*did you mean .*mybot\?"):
        main_submit([live.url, str(outer), *token])
    with pytest.raises(CommandError, match="neither a bot folder nor"):
        main_submit([live.url, str(outer / "mybot" / "bot.py"), *token])
    assert count(live) == 0 and db.submissions_today(live.svc.engine, 1) == 0
    # `zip -r bot.zip mybot` given as it is: the folder at the top is taken as the bot
    archive = tmp_path / "bot.zip"
    archive.write_bytes(hostile.a_zip({p.name: p.read_bytes() for p in (outer / "mybot").iterdir() if p.is_file()},
                                      top="mybot/"))
    assert main_submit([live.url, str(archive), *token]) == 0
    assert count(live) == 1


def test_a_compiled_bots_executable_bit_survives_the_upload(live: Live, tmp_path: Path) -> None:
    bot = hostile.compiled_c_bot(tmp_path)
    r = upload(live, "red", pack(bot))
    assert r.status_code == 202, r.text
    folder = Path(db.get_submission(live.svc.engine, r.json()["id"]).folder)  # type: ignore[union-attr]
    assert stat.S_IMODE(os.stat(folder / "bot").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(folder / "bot.c").st_mode) == 0o644


def test_ids_too_large_for_the_database_are_a_422_sentence(live: Live) -> None:
    """A submission id of 2^63 was an OverflowError (500); 2^31 was one on PostgreSQL, whose ids are INTEGER."""
    for url, most in ((f"/api/submissions/{2**63}", MAX_ID), (f"/api/submissions/{MAX_ID + 1}", MAX_ID),
                      (f"/api/faults/block.jsonl?pairing=a&block={MAX_BLOCK + 1}", MAX_BLOCK)):
        r = httpx.get(live.url + url, headers=auth(live, "red"))
        assert r.status_code == 422 and f"less than or equal to {most}" in r.json()["detail"], r.text
    assert httpx.get(f"{live.url}/api/submissions/{MAX_ID}", headers=auth(live, "red")).status_code == 404
    r = httpx.get(f"{live.url}/api/faults/block.jsonl?pairing=a&block={MAX_BLOCK}", headers=auth(live, "red"))
    assert r.status_code == 404


def test_a_login_from_a_foreign_page_sets_no_session(live: Live) -> None:
    """A foreign page's form posting the attacker's token would log the visitor into the attacker's team."""
    token = live.tokens["red"]
    foreign = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    for data, headers in (({"token": token}, foreign), ({"token": token}, {}),
                          ({"token": token, "login": "guessed"}, {})):
        r = httpx.post(f"{live.url}/login", data=data, headers=headers)
        assert r.status_code == 403 and "set-cookie" not in r.headers, (data, headers, r.status_code)
    c = httpx.Client(base_url=live.url)
    form = re.search(r"name=login value=([\w-]+)", c.get("/").text).group(1)  # type: ignore[union-attr]
    # the front page's own token, sent from another site (a browser says so): refused too
    assert c.post("/login", data={"token": token, "login": form}, headers=foreign).status_code == 403
    r = c.post("/login", data={"token": token, "login": form}, headers={"Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 303 and "arena_session" in r.headers["set-cookie"]
    assert "Secure" not in r.headers["set-cookie"] and "SameSite=strict" in r.headers["set-cookie"]


def test_the_token_is_checked_before_the_body_is_read(live: Live) -> None:
    """100 MiB with no token was read and spooled, then 401: now the answer comes before a byte of body."""
    head = b"POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
    token = f"Authorization: Bearer {live.tokens['red']}\r\n".encode()
    for extra, length, status in ((b"", 50_000_000, 401), (b"Authorization: Bearer wrong\r\n", 50_000_000, 401),
                                  (b"", 104857600, 413), (token, 104857600, 413)):
        with raw(live) as s:
            s.sendall(head + extra + f"Content-Length: {length}\r\n\r\n".encode())  # and no body at all
            answer = read_answer(s, 10.0)
        assert answer.startswith(f"HTTP/1.1 {status}".encode()), answer[:200]
        assert b"connection: close" in answer.lower()
    assert count(live) == 0


def test_a_body_of_unknown_length_is_cut_off_at_the_cap(comp: Path) -> None:
    (comp / "competition.yaml").write_text(CONFIG.replace("competition:\n", "competition:\n  max_archive_bytes: 1000000\n"))
    with served(comp) as live:
        head = (b"POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                b"Transfer-Encoding: chunked\r\n" + f"Authorization: Bearer {live.tokens['red']}\r\n\r\n".encode())
        chunk = b"%x\r\n%s\r\n" % (1 << 16, b"\0" * (1 << 16))
        sent = 0
        with raw(live) as s:
            part = b"--b\r\nContent-Disposition: form-data; name=\"archive\"; filename=\"a\"\r\n\r\n"
            s.sendall(head + b"%x\r\n%s\r\n" % (len(part), part))
            s.settimeout(10)
            try:
                while sent < 20_000_000:
                    s.sendall(chunk)
                    sent += 1 << 16
            except OSError:
                pass  # the server closed the connection after answering
            answer = read_answer(s, 10.0)
        assert answer.startswith(b"HTTP/1.1 413") and b"over the limit of 1065536 bytes" in answer, answer[:300]
        assert sent < 8_000_000  # it stopped reading near the cap (plus the socket buffers), not at the end
        assert leftovers(live) == []
        # a form field the upload does not take, and a login body over 64 KiB, are refused too
        r = httpx.post(f"{live.url}/api/submissions", headers=auth(live, "red"),
                       files={"archive": ("a.tgz", hostile.bot_tgz())}, data={"extra": "x"})
        assert r.status_code == 400 and "'extra'" in r.json()["detail"]
        r = httpx.post(f"{live.url}/login", data={"token": "x" * 70_000})
        assert r.status_code == 413


def test_a_team_has_at_most_two_uploads_in_flight(live: Live) -> None:
    head = (b"POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
            b"Content-Length: 1000\r\n" + f"Authorization: Bearer {live.tokens['red']}\r\n\r\n".encode())
    slow = [socket.create_connection(("127.0.0.1", int(live.url.rsplit(":", 1)[1]))) for _ in range(2)]
    try:
        for s in slow:
            s.sendall(head + b"--b\r\n")  # started, never finished
        end = time.monotonic() + 10
        while sum(live.svc.uploading.values()) < 2:
            assert time.monotonic() < end
            time.sleep(0.02)
        r = upload(live, "red")
        assert r.status_code == 429 and "2 uploads in progress" in r.json()["detail"]
        assert upload(live, "blue").status_code == 202  # another team's upload is not held up
    finally:
        for s in slow:
            s.close()


def test_forty_slow_uploads_of_one_team_hold_two_slots_and_another_team_uploads_meanwhile(comp: Path) -> None:
    """Issue 40: the caps were checked, then the quota query awaited, then the upload counted, so 40 uploads
    sent at once all passed and held every slot: every other team got 503 until they ended."""
    (comp / "competition.yaml").write_text(CONFIG.replace("competition:\n", "competition:\n  body_idle_timeout_s: 5\n"))
    with served(comp) as live:
        head = (b"POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                b"Content-Length: 1000\r\n" + f"Authorization: Bearer {live.tokens['red']}\r\n\r\n--b\r\n".encode())
        port = int(live.url.rsplit(":", 1)[1])
        slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
        try:
            for s in slow:
                s.sendall(head)  # all 40 at once; each body then stalls
            answers: list[bytes] = []
            refused: list[socket.socket] = []
            for s in slow:
                s.settimeout(0.05)
            end = time.monotonic() + 60
            while len(refused) < 38:  # every upload past the team's two is answered at once ...
                assert time.monotonic() < end, f"{len(refused)} of 40 refused"
                for s in slow:
                    if s in refused:
                        continue
                    try:
                        part = s.recv(65536)
                    except socket.timeout:
                        continue
                    refused.append(s)
                    answers.append(part + read_answer(s, 10.0))
                time.sleep(0.01)
            held = [s for s in slow if s not in refused]
            assert len(held) == 2 and live.svc.uploading == {1: 2}  # ... and two hold red's slots, no more
            for a in answers:
                assert a.startswith(b"HTTP/1.1 429") and b"retry-after: 10" in a.lower() and b"2 uploads in" in a, a
            assert upload(live, "blue").status_code == 202  # another team's upload is taken meanwhile
            assert live.svc.uploading == {1: 2}  # while red's two slow bodies still hold its own slots
        finally:
            for s in slow:
                s.close()
        end = time.monotonic() + 60
        while live.svc.uploading:  # the cut-off bodies give their slots back
            assert time.monotonic() < end
            time.sleep(0.05)
        assert upload(live, "red").status_code == 202
        assert leftovers(live) == sorted(n for n in leftovers(live) if n.startswith("upload-"))  # no partial body left


def test_slow_uploads_of_other_teams_never_hold_a_teams_first_slot(comp: Path) -> None:
    """Issue 40: four teams with two slow uploads each filled the 8 slots of everyone, and a fifth team got
    503. A team's first upload in flight is always taken; the shared cap bounds only the teams' extra ones."""
    extra = app_module.EXTRA_UPLOADS_AT_ONCE
    hogs = tuple(f"hog{i}" for i in range(extra))
    with served(comp, (*hogs, "late")) as live:
        port = int(live.url.rsplit(":", 1)[1])
        slow: list[socket.socket] = []
        try:
            for name in (*hogs[:4], *hogs[4:], "late"):  # the first four: today's 8 in all
                for _ in range(1 if name == "late" else app_module.UPLOADS_PER_TEAM):
                    s = socket.create_connection(("127.0.0.1", port))
                    slow.append(s)
                    s.sendall(b"POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n"
                              b"Content-Type: multipart/form-data; boundary=b\r\n"
                              + f"Authorization: Bearer {live.tokens[name]}\r\n\r\n--b\r\n".encode())
                if name == hogs[3]:
                    wait_uploading(live, 8)
                    r = upload(live, "blue")  # a fifth team, all others' slow bodies at today's global cap
                    assert r.status_code == 202, r.text
            wait_uploading(live, 2 * extra + 1)
            r = upload(live, "late")  # its second while every team's extra slot is taken: the shared cap
            assert r.status_code == 503 and r.headers["retry-after"] == "10", r.text
            assert upload(live, "red").status_code == 202  # and still any team's first
            assert sum(live.svc.uploading.values()) == 2 * extra + 1
        finally:
            for s in slow:
                s.close()


def wait_uploading(live: Live, n: int) -> None:
    end = time.monotonic() + 30
    while sum(live.svc.uploading.values()) < n:
        assert time.monotonic() < end, live.svc.uploading
        time.sleep(0.02)


def test_the_daily_quota_counts_the_uploads_in_flight(comp: Path) -> None:
    """A team with one submission left and one upload in flight is refused a second before its body is read."""
    (comp / "competition.yaml").write_text(CONFIG.replace("submissions_per_day: 3", "submissions_per_day: 1"))
    with served(comp) as live:
        head = (b"POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                b"Content-Length: 1000\r\n" + f"Authorization: Bearer {live.tokens['red']}\r\n\r\n--b\r\n".encode())
        with raw(live) as s:
            s.sendall(head)
            end = time.monotonic() + 10
            while live.svc.uploading != {1: 1}:
                assert time.monotonic() < end
                time.sleep(0.02)
            r = upload(live, "red")
            assert r.status_code == 429 and "counting the 1 in progress" in r.json()["detail"]
        end = time.monotonic() + 60
        while live.svc.uploading:
            assert time.monotonic() < end
            time.sleep(0.05)
        assert upload(live, "red").status_code == 202  # the cut-off upload spent nothing
        assert upload(live, "red").status_code == 429


# --- slow clients -----------------------------------------------------------------------------------------

FAST = CONFIG.replace("competition:\n", "competition:\n  header_timeout_s: 1\n  body_idle_timeout_s: 1\n"
                                        "  body_timeout_s: 3\n")


@pytest.mark.slow  # seconds of CPU: in CI's slow step, out of make test's budget
def test_slowloris_headers_and_slow_bodies_are_cut_off(comp: Path) -> None:
    """No header timeout kept a connection open as long as its client trickled header bytes."""
    (comp / "competition.yaml").write_text(FAST)
    with served(comp) as live:
        # headers: a byte every 0.2 s would take 30 s; the server closes after header_timeout_s (1 s)
        assert trickle(live, b"GET /api/leaderboard HTTP/1.1\r\nHost: x\r\nX-" + b"a" * 150, 0.2) < 8.0
        # a body that pauses longer than body_idle_timeout_s
        login = b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        with raw(live) as s:
            s.sendall(login + b"Content-Length: 100\r\n\r\ntoken=")
            t = time.monotonic()
            assert read_answer(s, 15.0) == b"" and time.monotonic() - t < 8.0
        # a body that never pauses for long but would take 30 s: cut at body_timeout_s (3 s)
        with raw(live) as s:
            s.sendall(login + b"Content-Length: 150\r\n\r\n")
            assert trickle_on(s, b"t" * 150, 0.2) < 10.0
        assert httpx.get(f"{live.url}/api/leaderboard").status_code == 200  # and everyone else is served


def trickle(live: Live, data: bytes, every: float) -> float:
    with raw(live) as s:
        return trickle_on(s, data, every)


def trickle_on(s: socket.socket, data: bytes, every: float) -> float:
    """Send ``data`` a byte every ``every`` seconds until the server closes; the seconds it took."""
    t = time.monotonic()
    s.settimeout(every)
    for i in range(len(data)):
        try:
            s.sendall(data[i:i + 1])
            if s.recv(1) == b"":
                return time.monotonic() - t
        except socket.timeout:
            continue
        except OSError:
            return time.monotonic() - t
    return time.monotonic() - t + 1000.0  # never closed


# --- the verdict's side, the restart, the database ---------------------------------------------------------


def test_a_rejected_upload_is_deleted_at_once_and_its_report_names_no_host_path(live: Live, tmp_path: Path) -> None:
    """ManifestError: /host/path/.../bot.yaml: ... was the report; the rejected folder stayed for ever."""
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bot.yaml").write_text('name: "two words"\ncommand: [x]\n')
    r = upload(live, "red", pack(bad))
    assert r.status_code == 202
    folder = Path(db.get_submission(live.svc.engine, r.json()["id"]).folder)  # type: ignore[union-attr]
    assert folder.is_dir()
    assert live.svc.work_once()
    got = httpx.get(f"{live.url}/api/submissions/{r.json()['id']}", headers=auth(live, "red")).json()
    assert got["status"] == "rejected" and got["report"].startswith("ManifestError: bot.yaml:1: name:"), got
    assert str(live.svc.folder) not in got["report"] and not folder.exists()


@pytest.mark.slow  # about 4 s of CPU (deep trees made and removed): in CI's slow step, out of make test's budget
def test_the_server_starts_after_any_upload_and_sets_secure_cookies(comp: Path) -> None:
    """What a kill -9 mid-unpack (or an old server) left behind: 1,100 folders deep, a body half received,
    a ladder copy 600 deep. `arena serve` exited 3 with RecursionError until the host deleted them."""
    subs = comp / "submissions"
    subs.mkdir()
    left = [nest(subs / "upload-deadbeef", 1100), nest(comp / "ladder" / "red-v1.tmp", 600)]
    (subs / ".incoming-0123").write_bytes(b"half a body")
    port = free_port()
    p = subprocess.Popen([sys.executable, "-m", "arena", "serve", str(comp), "--port", str(port), "--secure-cookies"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        end = time.monotonic() + 60
        while True:
            assert p.poll() is None, p.communicate()[1].decode()[-2000:]
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/")
                break
            except httpx.TransportError:
                assert time.monotonic() < end
                time.sleep(0.1)
        assert r.status_code == 200 and "Secure" in r.headers["set-cookie"]
        assert not any(d.exists() for d in left) and list(subs.iterdir()) == []
    finally:
        p.kill()
        p.communicate()
        for d in left:
            remove_tree(d)  # pytest's own clean-up of old temporary folders recurses


def nest(root: Path, depth: int) -> Path:
    root.parent.mkdir(parents=True, exist_ok=True)
    root.mkdir()
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("a", dir_fd=fd)
        inner = os.open("a", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)
    return root


# --- helpers ----------------------------------------------------------------------------------------------


class raw:
    """A plain TCP connection to the live server (for what httpx will not send)."""

    def __init__(self, live: Live) -> None:
        self.sock = socket.create_connection(("127.0.0.1", int(live.url.rsplit(":", 1)[1])))

    def __enter__(self) -> socket.socket:
        return self.sock

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


def read_answer(s: socket.socket, timeout: float) -> bytes:
    """Everything the server sends until it closes (or ``timeout``)."""
    s.settimeout(timeout)
    got = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            part = s.recv(65536)
        except socket.timeout:
            break
        except OSError:
            break
        if not part:
            break
        got += part
    return got


class served:
    """A live server of the competition in ``comp`` (its own config), with teams red and blue (and `more`)."""

    def __init__(self, comp: Path, more: tuple[str, ...] = ()) -> None:
        svc = open_service(comp)
        tokens = {n: db.add_team(svc.engine, n) for n in ("red", "blue", *more)}
        url, self.server = start(svc, worker=False)
        self.live = Live(svc, url, tokens)

    def __enter__(self) -> Live:
        return self.live

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True  # type: ignore[attr-defined]
        self.live.svc.engine.dispose()
