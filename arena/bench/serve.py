"""``arena bench serve``: upload to verdict, and to the first rated block, through a real server on loopback;
and (``--cases scale``, ``serve_scale``) a ladder batch and its site rebuild with a large results store.

Fresh competition folders, uvicorn on a free port and the validation worker
in this process; the bot is bots/minimal. Times one upload to ``accepted``,
then 10 uploads from 10 teams at once to their last verdict (validations run
one at a time, so this is the queue's throughput). Then, in a second
competition with the ladder running and one team already accepted, one
upload to its first block stored (``/api/standings`` lists it) and to the
ladder's site rating it (``/site/`` after the batch's rebuild), with the
competition's default ladder settings.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

import httpx

from arena._json import JsonObject
from arena.serve import db
from arena.serve.app import Service, make_app
from arena.serve.archive import pack
from arena.serve.serve import open_service

BOT = Path(__file__).resolve().parents[2] / "bots" / "minimal"
WAIT_S = 3600.0  # only a server that stopped answering takes this long


def _until(what: str, check: Callable[[], bool]) -> None:
    end = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > end:
            raise RuntimeError(f"arena bench serve: no {what} within {WAIT_S:g} s")
        time.sleep(0.02)


def _verdict(url: str, token: str, sid: int) -> str:
    got: list[str] = []

    def done() -> bool:
        s = httpx.get(f"{url}/api/submissions/{sid}", headers={"Authorization": f"Bearer {token}"}).json()["status"]
        got.append(str(s))
        return s in ("accepted", "rejected")

    _until("verdict", done)
    return got[-1]


def _serve(svc: Service, ladder: bool) -> tuple[str, Any, list[threading.Thread]]:
    import uvicorn

    from arena.serve.serve import loop

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(make_app(svc), host="127.0.0.1", port=port, log_level="warning"))
    threads = [threading.Thread(target=server.run, daemon=True), threading.Thread(target=svc.worker, daemon=True)]
    if ladder:
        threads.append(threading.Thread(target=loop, args=(svc,), daemon=True))
    for t in threads:
        t.start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{port}", server, threads


def _stop(svc: Service, server: Any, threads: list[threading.Thread]) -> None:
    server.should_exit = True
    svc.stop.set()
    svc.wake.set()
    svc.ladder_wake.set()
    for t in threads:
        t.join()  # the ladder ends its batch first: the folder is not removed under it


def _post(url: str, token: str, data: bytes) -> int:
    r = httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {token}"},
                   files={"archive": ("bot.tar.gz", data)})
    return int(r.json()["id"])


def _competition(folder: Path, args: Any, teams: int) -> tuple[Service, list[str]]:
    (folder / "competition.yaml").write_text(
        f"competition:\n  check_games: {args.games}\n  seed: bench\nmatch:\n  sandbox: {args.sandbox}\n")
    svc = open_service(folder)
    return svc, [db.add_team(svc.engine, f"team{i}") for i in range(teams)]


def _queue(args: Any, data: bytes) -> JsonObject:
    with tempfile.TemporaryDirectory() as tmp:
        svc, tokens = _competition(Path(tmp), args, 11)
        url, server, threads = _serve(svc, ladder=False)

        def one(token: str) -> tuple[float, str]:
            t0 = time.perf_counter()
            verdict = _verdict(url, token, _post(url, token, data))
            return time.perf_counter() - t0, verdict

        single, verdict = one(tokens[0])
        results: list[tuple[float, str]] = []
        t0 = time.perf_counter()
        burst = [threading.Thread(target=lambda t=t: results.append(one(t))) for t in tokens[1:]]
        for t in burst:
            t.start()
        for t in burst:
            t.join()
        ten = time.perf_counter() - t0
        _stop(svc, server, threads)
    return {"upload_to_accepted_s": round(single, 3), "first_verdict": verdict, "ten_concurrent_s": round(ten, 3),
            "ten_accepted": sum(v == "accepted" for _, v in results)}


def _ladder(args: Any, data: bytes) -> JsonObject:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        svc, (base, new) = _competition(folder, args, 2)
        url, server, threads = _serve(svc, ladder=True)
        try:
            if _verdict(url, base, _post(url, base, data)) != "accepted":
                raise RuntimeError("arena bench serve: the first team's bot was not accepted")
            t0 = time.perf_counter()
            verdict = _verdict(url, new, _post(url, new, data))
            accepted = time.perf_counter() - t0
            if verdict != "accepted":
                raise RuntimeError("arena bench serve: the second team's bot was not accepted")

            def stored() -> bool:
                rows = httpx.get(f"{url}/api/standings").json()["standings"]
                return any(r["bot"] == "team1" for r in rows)

            _until("stored block", stored)
            block = time.perf_counter() - t0
            _until("rated site", lambda: "team1" in httpx.get(f"{url}/site/").text)
            site = time.perf_counter() - t0
            c = svc.config.competition
            settings: JsonObject = {"ladder_blocks": c.ladder_blocks, "ladder_pairing_blocks": c.ladder_pairing_blocks,
                        "site_bootstrap": c.site_bootstrap}
        finally:
            _stop(svc, server, threads)
    return {"ladder_upload_to_accepted_s": round(accepted, 3), "upload_to_first_block_s": round(block, 3),
            "upload_to_rated_site_s": round(site, 3), "ladder": settings}


def _scale(args: Any) -> dict[str, Any]:
    from .serve_scale import run_scale

    def go(folder: Path) -> dict[str, Any]:
        return run_scale(folder, teams=args.teams, stored=list(args.stored), scratch_games=args.scratch,
                         sandbox=args.sandbox, bootstrap=args.bootstrap, pool=args.pool)

    if args.keep is not None:
        if args.keep.exists():
            raise FileExistsError(f"arena bench serve: --keep {args.keep}: give a new folder")
        return go(args.keep)
    with tempfile.TemporaryDirectory(prefix="bench-serve-scale-") as tmp:
        return go(Path(tmp) / "competition")


def run(args: Any) -> int:
    cases = args.cases.split(",")
    load0 = os.getloadavg()[0]
    out: dict[str, Any] = {"bench": "serve", "sandbox": args.sandbox, "machine": _machine()}
    if "uploads" in cases:
        data = pack(BOT)
        queue = _queue(args, data)
        ladder = _ladder(args, data)
        out.update({"check_games": args.games, **queue, **ladder})
        print(f"one upload to {queue['first_verdict']}: {queue['upload_to_accepted_s']:.2f} s; 10 concurrent uploads to"
              f" their verdicts: {queue['ten_concurrent_s']:.2f} s ({queue['ten_accepted']} accepted)")
        print(f"with the ladder running and one team in: upload to accepted {ladder['ladder_upload_to_accepted_s']:.2f} s,"
              f" to its first block stored {ladder['upload_to_first_block_s']:.2f} s, to the site rating it"
              f" {ladder['upload_to_rated_site_s']:.2f} s (ladder settings {ladder['ladder']})")
    if "scale" in cases:
        scale = _scale(args)
        out["scale"] = scale
        for st in scale["stages"]:
            print(f"{scale['teams']} teams, {st['stored_games']} stored games: a {st['blocks']}-block batch to the rebuilt"
                  f" site {st['batch_cpu_s']:.2f} s CPU ({st['batch_wall_s']:.2f} s wall), of which the rebuild"
                  f" {st.get('rebuild_cpu_s', 0):.2f} s CPU ({st.get('rebuild_wall_s', 0):.2f} s wall); server RSS"
                  f" {st['rss_end_mb']} MB after it, peak {st['rss_peak_mb']} MB")
        if len(scale["stages"]) > 1:
            a, b = scale["stages"][0], scale["stages"][-1]
            if a.get("rebuild_cpu_s"):
                scale["rebuild_cpu_ratio"] = round(b["rebuild_cpu_s"] / a["rebuild_cpu_s"], 2)
                print(f"rebuild CPU at {b['stored_games']} / at {a['stored_games']} stored games:"
                      f" {scale['rebuild_cpu_ratio']:.2f}x")
        sc = scale["scratch"]
        print(f"site built from scratch over {sc['games']} games: {sc['cpu_s']:.1f} s CPU ({sc['wall_s']:.1f} s wall),"
              f" {sc['cpu_ms_per_game']:.1f} ms CPU a game")
    if "ladder" in cases:
        from .serve_ladder import BACKENDS, run_ladder

        with tempfile.TemporaryDirectory(prefix="bench-serve-ladder-") as tmp:
            lad = run_ladder(Path(tmp), teams=args.ladder_teams, batches=args.batches, sandbox=args.sandbox,
                             cluster=not args.no_cluster, bot=args.ladder_bot)
        out["ladder_games_per_s"] = lad
        whats: dict[str, str] = dict(zip(BACKENDS, ("1 worker", "2 workers", "a two-node loopback cluster")))
        for name in BACKENDS:
            what, r = whats[name], lad[name]
            if r is not None:
                per = r["cpu_per_game_s"]
                split = ", ".join(f"{k.replace('_', ' ')} {1000 * v / r['games']:.0f}" for k, v in r["cpu_split"].items()
                                  if r["games"] and (v or k in ("server", "bots")))
                a_game = f"{1000 * per:.0f} ms a game" if per else "no game played"
                print(f"ladder of {lad['teams']} teams of {lad['bot']} on {what}: {r['games_per_s']} games/s of play"
                      f" ({r['games_per_s_with_rebuild']} with the site rebuilds; {r['games']} games;"
                      f" {r['cpu_s']} s of CPU, {a_game})")
                print(f"  CPU a game by whose (ms): {split}; workers busy {r['busy']} of the time, {r['idle_s']} s"
                      " with no unit in flight")
        for failed, why in lad["errors"].items():
            print(f"ladder on {whats.get(failed, failed)}: failed: {why.splitlines()[-1] if why else '?'}")
        print(f"2 workers over 1: {lad['speedup_2']}x the games per second, {lad['per_cpu_2']}x per CPU second;"
              f" ceiling on 2 cores (2 x CPU a game on 1 worker / on 2): {lad['ceiling_2']}x"
              + (f" (the cluster: {lad['ceiling_cluster']}x)" if lad["ceiling_cluster"] is not None else ""))
    out["load"] = [load0, os.getloadavg()[0]]
    print(json.dumps(out))
    return 0


def _machine() -> JsonObject:
    import platform

    return {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
