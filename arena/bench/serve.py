"""``arena bench serve``: upload to verdict through a real server on loopback.

A fresh competition folder, uvicorn on a free port and the validation
worker in this process; the bot is bots/minimal. Times one upload to
``accepted``, then 10 uploads from 10 teams at once to their last verdict
(validations run one at a time, so this is the queue's throughput).
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from arena.serve import db
from arena.serve.app import make_app
from arena.serve.archive import pack
from arena.serve.serve import open_service

BOT = Path(__file__).resolve().parents[2] / "bots" / "minimal"


def _until_verdict(url: str, token: str, sid: int) -> str:
    while True:
        s = httpx.get(f"{url}/api/submissions/{sid}", headers={"Authorization": f"Bearer {token}"}).json()["status"]
        if s in ("accepted", "rejected"):
            return str(s)
        time.sleep(0.02)


def run(args: Any) -> int:
    import uvicorn

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "competition.yaml").write_text(
            f"competition:\n  check_games: {args.games}\nmatch:\n  sandbox: {args.sandbox}\n")
        svc = open_service(folder)
        tokens = [db.add_team(svc.engine, f"team{i}") for i in range(11)]
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(make_app(svc), host="127.0.0.1", port=port, log_level="warning"))
        threading.Thread(target=server.run, daemon=True).start()
        threading.Thread(target=svc.worker, daemon=True).start()
        while not server.started:
            time.sleep(0.01)
        url, data = f"http://127.0.0.1:{port}", pack(BOT)

        def one(token: str) -> tuple[float, str]:
            t0 = time.perf_counter()
            r = httpx.post(f"{url}/api/submissions", headers={"Authorization": f"Bearer {token}"},
                           files={"archive": ("bot.tar.gz", data)})
            verdict = _until_verdict(url, token, r.json()["id"])
            return time.perf_counter() - t0, verdict

        single, verdict = one(tokens[0])
        results: list[tuple[float, str]] = []
        t0 = time.perf_counter()
        threads = [threading.Thread(target=lambda t=t: results.append(one(t))) for t in tokens[1:]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        burst = time.perf_counter() - t0
        server.should_exit = True
        svc.stop.set()
    out = {"bench": "serve", "sandbox": args.sandbox, "check_games": args.games,
           "upload_to_accepted_s": round(single, 3), "first_verdict": verdict,
           "ten_concurrent_s": round(burst, 3), "ten_accepted": sum(v == "accepted" for _, v in results),
           "load": os.getloadavg()[0]}
    print(f"one upload to {verdict}: {single:.2f} s; 10 concurrent uploads to their verdicts: {burst:.2f} s "
          f"({out['ten_accepted']} accepted)")
    print(json.dumps(out))
    return 0
