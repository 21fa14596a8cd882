"""``arena serve FOLDER`` and ``arena submit URL BOTDIR --token TOKEN`` (docs/server.md)."""

from __future__ import annotations

import json
import logging
import os
import time
import urllib.request
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from .common import EXIT_FAILED, EXIT_OK, CommandError, parse, parser

if TYPE_CHECKING:
    from ..serve.app import Service
    from ..serve.db import TeamListing


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
    ap.add_argument("--teams", action="store_true",
                    help="list the teams (versions, latest verdict, when the token was issued) and exit")
    ap.add_argument("--reissue-token", metavar="TEAM", help="give a team a new token (the old one stops working)"
                    ", print it once, and exit")
    ap.add_argument("--remove-team", metavar="TEAM",
                    help="remove a team: its token stops working, its versions leave the ladder (games stay); exit")
    ap.add_argument("--retire", metavar="TEAM:VERSION",
                    help="take one version out of the ranking (its games stay in history) and exit")
    ap.add_argument("--secure-cookies", action="store_true",
                    help="mark the session cookies Secure (behind a TLS proxy: browsers send them over https only)")
    ap.add_argument("--workers", type=int, metavar="N",
                    help="ladder blocks and validations at once (competition.workers; default: every core, as arena"
                         " run); more than 1 plays on Ray")
    ap.add_argument("--ray-address", metavar="ADDR", help="play the ladder on this Ray cluster (docs/cluster.md)")
    ap.add_argument("--freeze", action="store_true",
                    help="close the competition: stop uploads, play the final evaluation, publish the final standings"
                         " (on a folder being served: freeze it and exit, the running server plays the final)")
    args = parse(ap, argv)
    if args.workers is not None and args.workers < 1:
        raise CommandError("--workers must be at least 1")
    over = {k: v for k, v in (("workers", args.workers), ("ray_address", args.ray_address)) if v is not None}
    try:
        svc = open_service(Path(args.folder), args.database, secure_cookies=args.secure_cookies, competition=over)
    except CompetitionConfigError as e:
        raise CommandError(str(e)) from None
    try:
        if args.add_team or args.add_admin or args.reissue_token:
            name = args.add_team or args.add_admin or args.reissue_token
            token = (db.reissue_token(svc.engine, name) if args.reissue_token
                     else db.add_team(svc.engine, name, admin=bool(args.add_admin)))
            print(token)  # alone on stdout, for scripts; what it is on stderr, for the host
            _explain_token(name, bool(args.add_admin), bool(args.reissue_token), args.host, args.port)
            return EXIT_OK
        if args.teams:
            print(_team_table(db.team_listing(svc.engine)))
            return EXIT_OK
        if args.remove_team:
            n = db.remove_team(svc.engine, args.remove_team)
            _republish(svc)
            print(f"team {args.remove_team} removed: its token opens nothing, {n} version{'s' * (n != 1)} left the"
                  " ladder and the site's ranking (their games stay in the results)")
            return EXIT_OK
        if args.retire:
            team, _, v = args.retire.rpartition(":")
            if not team or not v.removeprefix("v").isdigit():
                raise CommandError(f"--retire {args.retire}: give TEAM:VERSION, e.g. red:3")
            db.retire_version(svc.engine, team, int(v.removeprefix("v")))
            from ..publish.site.build import MARKER

            built = (svc.folder / "public" / MARKER).is_file()
            rated = built and _republish(svc)
            when = ("now (the public site is rebuilt)" if rated else
                    "now (nothing is left to rate: the ranking is empty until the ladder plays again)" if built else
                    "when the ladder next rebuilds the site")
            print(f"{team} v{int(v.removeprefix('v'))} retired: it leaves the ranking {when}; its games stay in"
                  " history")
            return EXIT_OK
    except ValueError as e:  # a bad or unknown name (db.NoSuchTeam is one)
        raise CommandError(str(e)) from None
    c = svc.config.competition
    if "workers" not in c.model_fields_set and c.ray_address is None:  # as arena run: every core
        svc = open_service(Path(args.folder), args.database, secure_cookies=args.secure_cookies,
                           competition={**over, "workers": os.cpu_count() or 1})
    try:
        lock = FolderLock(svc.folder, name=SERVE_LOCK).acquire()
    except FolderBusy as e:
        if args.freeze:  # the running server reads the freeze before each batch and at each upload
            from ..serve.final import freeze

            doc = freeze(svc)
            print(f"arena serve: {svc.folder} frozen at {doc.frozen_at} with {len(doc.versions)} final"
                  f" versions; the running server ({e.holder}) stops taking uploads and plays the final evaluation"
                  " after its current batch")
            return EXIT_OK
        raise CommandError(f"{svc.folder} is already served by another arena serve ({e.holder}); stop it first"
                           " or serve another folder") from None
    if args.freeze:
        from ..serve.final import freeze

        doc = freeze(svc)
        print(f"arena serve: {svc.folder} frozen at {doc.frozen_at} with {len(doc.versions)} final versions;"
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


def _republish(svc: Service) -> bool:
    """The public site rebuilt without the versions just retired (the server's next batch would do it
    later); False when there is no site yet (nothing stored: nothing to take out), or when every stored
    block has a retired version in it (the ranking is emptied: nothing left to rate until the ladder plays)."""
    from ..publish.site.build import MARKER
    from ..serve.ladder import publish

    if not (svc.folder / "public" / MARKER).is_file():
        return False
    return publish(svc)


def _explain_token(name: str, admin: bool, reissued: bool, host: str, port: int) -> None:
    """What the printed token is and how to use it, on stderr (stdout holds the token alone)."""
    import sys

    url = f"http://{host}:{port}"
    what = "the host's admin token" if admin else f"team {name}'s {'new ' if reissued else ''}token"
    lines = [f"above: {what}. It is shown only now (the server keeps a hash): keep it secret.",
             *(["the old token no longer opens anything."] if reissued else [])]
    if not admin:
        lines += [f"give it to team {name}: they log in on the front page ({url}/) or upload with",
                  f"  ARENA_TOKEN=... arena submit {url} BOTDIR     (or --token-file FILE)"]
    else:
        lines += ["it reads every team's faults and submissions (Authorization: Bearer TOKEN)."]
    print("\n".join(lines), file=sys.stderr)


def _team_table(rows: list[TeamListing]) -> str:
    """The host's listing, one line a team: versions (those that play), its latest upload's verdict and
    when its token was issued."""
    if not rows:
        return "no teams yet: add one with --add-team NAME"
    out = [f"{'team':<16} {'versions':<16} {'latest upload':<28} token issued"]
    for r in rows:
        shown = ",".join(f"v{v}" if v in r.playing else f"(v{v})" for v in r.versions) or "-"
        latest = r.latest
        say = "none" if latest is None else (f"#{latest.id} {latest.status}"
                                             + (f" as v{latest.version}" if latest.version else ""))
        issued = r.token_issued
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(issued)) if issued is not None else "unknown"
        name = f"{r.team}" + (" (removed)" if r.removed is not None else "")
        out.append(f"{name:<16} {shown:<16} {say:<28} {when}")
    return "\n".join(out) + "\n(vN): retired, out of the ranking"


def main_submit(argv: list[str]) -> int:
    ap = parser("submit", "Upload a bot folder to a competition and wait for its verdict.")
    ap.add_argument("url", help="the competition's address, e.g. http://127.0.0.1:8000")
    ap.add_argument("botdir")
    ap.add_argument("--token", help=f"the team's token (visible to others in ps: prefer ${TOKEN_ENV} or --token-file)")
    ap.add_argument("--token-file", metavar="FILE", help="read the team's token from this file (its first line)")
    ap.add_argument("--no-wait", action="store_true")
    args = parse(ap, argv)
    base = args.url.rstrip("/")
    token = _token(args.token, args.token_file)
    body = _form(Path(args.botdir))
    auth = {"Authorization": f"Bearer {token}"}
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
    left = sub.get("remaining_today")
    quota = f" ({left} upload{'s' * (left != 1)} left today)" if isinstance(left, int) else ""
    if sub.get("same_as"):
        print(f"submission {sub['id']}: same as version {sub['same_as']} ({sub.get('name')}); nothing new was queued"
              + quota)
        return EXIT_OK
    print(f"submission {sub['id']}: queued{quota}")
    while not args.no_wait:
        ask = urllib.request.Request(f"{base}/api/submissions/{sub['id']}", headers=auth)
        got = json.load(urllib.request.urlopen(ask))
        if got["status"] in ("accepted", "rejected"):
            version = f" as {got.get('name') or 'version ' + str(got['version'])}" if got["version"] else ""
            print(f"submission {sub['id']}: {got['status']}{version}")
            print(got["report"] or "")
            return EXIT_OK if got["status"] == "accepted" else EXIT_FAILED
        time.sleep(0.5)
    return EXIT_OK


TOKEN_ENV = "ARENA_TOKEN"


def _token(given: str | None, file: str | None) -> str:
    """The team's token: --token, else --token-file, else $ARENA_TOKEN (a file or the environment keeps it out
    of ps)."""
    import os

    if given and file:
        raise CommandError("give --token or --token-file, not both")
    if file:
        try:
            text = Path(file).read_text().strip()
        except OSError as e:
            raise CommandError(f"--token-file {file}: {e.strerror}") from None
        if not text:
            raise CommandError(f"--token-file {file}: empty")
        return text.splitlines()[0].strip()
    token = given or os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise CommandError(f"no token: set ${TOKEN_ENV}, or give --token-file FILE (or --token TOKEN)")
    return token


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
