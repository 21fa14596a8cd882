"""``arena serve FOLDER`` and ``arena submit URL BOTDIR --token TOKEN`` (docs/server.md)."""

from __future__ import annotations

import json
import logging
import time
import urllib.request
import uuid
from pathlib import Path

from .common import EXIT_FAILED, EXIT_OK, CommandError, parse, parser


def main(argv: list[str]) -> int:
    from ..serve import db
    from ..serve.config import CompetitionConfigError
    from ..schedule.backends import ClusterUnavailable
    from ..schedule.lock import FolderBusy, FolderLock
    from ..serve.serve import SERVE_LOCK, open_service, run

    ap = parser("serve", "Run a competition: uploads, validation, the team pages (docs/server.md).")
    ap.add_argument("folder", help="the competition folder, holding competition.yaml")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--database", help="a database URL (default: SQLite in FOLDER), e.g. postgresql+psycopg://...")
    ap.add_argument("--add-team", metavar="NAME", help="create a team, print its token once, and exit")
    ap.add_argument("--add-admin", metavar="NAME", help="create the host's admin token, print it once, and exit")
    ap.add_argument("--secure-cookies", action="store_true",
                    help="mark the session cookies Secure (behind a TLS proxy: browsers send them over https only)")
    ap.add_argument("--workers", type=int, metavar="N",
                    help="ladder blocks and validations at once (competition.workers); more than 1 plays on Ray")
    ap.add_argument("--ray-address", metavar="ADDR", help="play the ladder on this Ray cluster (docs/cluster.md)")
    ap.add_argument("--freeze", action="store_true",
                    help="close the competition: stop uploads, play the final evaluation, publish the final standings")
    args = parse(ap, argv)
    if args.workers is not None and args.workers < 1:
        raise CommandError("--workers must be at least 1")
    over = {k: v for k, v in (("workers", args.workers), ("ray_address", args.ray_address)) if v is not None}
    try:
        svc = open_service(Path(args.folder), args.database, secure_cookies=args.secure_cookies, competition=over)
    except CompetitionConfigError as e:
        raise CommandError(str(e)) from None
    if args.add_team or args.add_admin:
        try:
            token = db.add_team(svc.engine, args.add_team or args.add_admin, admin=bool(args.add_admin))
        except ValueError as e:
            raise CommandError(str(e)) from None
        print(token)
        return EXIT_OK
    try:
        lock = FolderLock(svc.folder, name=SERVE_LOCK).acquire()
    except FolderBusy as e:
        raise CommandError(f"{svc.folder} is already served by another arena serve ({e.holder}); stop it first"
                           " or serve another folder") from None
    if args.freeze:
        from ..serve.final import freeze

        doc = freeze(svc)
        print(f"arena serve: {svc.folder} frozen at {doc['frozen_at']} with {len(doc['versions'])} final versions;"
              " serving while the final evaluation plays")
    # the server's log: its own lines (the ladder, validations, uploads) at INFO on stderr, others' warnings
    logging.basicConfig(format="%(asctime)s %(name)s: %(message)s", level=logging.WARNING)
    logging.getLogger("arena").setLevel(logging.INFO)
    try:
        run(svc, args.host, args.port)
    except ClusterUnavailable as e:
        raise CommandError(str(e)) from None
    finally:
        lock.release()
    return EXIT_OK


def main_submit(argv: list[str]) -> int:
    ap = parser("submit", "Upload a bot folder to a competition and wait for its verdict.")
    ap.add_argument("url", help="the competition's address, e.g. http://127.0.0.1:8000")
    ap.add_argument("botdir")
    ap.add_argument("--token", required=True)
    ap.add_argument("--no-wait", action="store_true")
    args = parse(ap, argv)
    base = args.url.rstrip("/")
    body = _form(Path(args.botdir))
    auth = {"Authorization": f"Bearer {args.token}"}
    req = urllib.request.Request(f"{base}/api/submissions", data=body[1], method="POST",
                                 headers={**auth, "Content-Type": f"multipart/form-data; boundary={body[0]}"})
    try:
        sub = json.load(urllib.request.urlopen(req))
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            detail = json.loads(raw or b"{}").get("detail", "")
        except (ValueError, AttributeError):
            detail = raw[:200].decode("utf-8", "replace")
        raise CommandError(f"refused ({e.code}): {detail}") from None
    print(f"submission {sub['id']}: queued")
    while not args.no_wait:
        ask = urllib.request.Request(f"{base}/api/submissions/{sub['id']}", headers=auth)
        got = json.load(urllib.request.urlopen(ask))
        if got["status"] in ("accepted", "rejected"):
            version = f" as version {got['version']}" if got["version"] else ""
            print(f"submission {sub['id']}: {got['status']}{version}")
            print(got["report"] or "")
            return EXIT_OK if got["status"] == "accepted" else EXIT_FAILED
        time.sleep(0.5)
    return EXIT_OK


def _form(bot: Path) -> tuple[str, bytes]:
    """The upload's multipart body (boundary, bytes): a bot folder packed as the server wants it (files at
    the root), or an archive file (.tar.gz, .tgz, .zip) as it is. A folder without bot.yaml is refused
    here, before it costs one of the day's submissions."""
    from ..serve.archive import MANIFEST, pack

    if bot.is_dir():
        if not (bot / MANIFEST).is_file():
            inner = [d for d in bot.iterdir() if (d / MANIFEST).is_file()] if bot.is_dir() else []
            hint = f" (did you mean {inner[0]}?)" if len(inner) == 1 else ""
            raise CommandError(f"{bot}: no {MANIFEST} in this folder: give the bot's own folder{hint}")
        data, name, kind = pack(bot), "bot.tar.gz", "application/gzip"
    elif bot.is_file() and bot.name.endswith((".tar.gz", ".tgz", ".zip")):
        data, name = bot.read_bytes(), bot.name.replace('"', "_")
        kind = "application/zip" if name.endswith(".zip") else "application/gzip"
    else:
        raise CommandError(f"{bot}: neither a bot folder nor a .tar.gz or .zip archive")
    boundary = uuid.uuid4().hex
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"archive\"; filename=\"{name}\"\r\n"
            f"Content-Type: {kind}\r\n\r\n")
    return boundary, head.encode() + data + f"\r\n--{boundary}--\r\n".encode()
