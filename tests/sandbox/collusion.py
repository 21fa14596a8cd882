"""Colluding partners in a real round robin: the bot folder, the run, and the count.

``tournament`` runs `arena run` (the CLI, in process) on a round robin of the colluder
(hostile/collude.py, self-partnered) against bots/random and bots/heuristic, then reads the run
folder: each game's record (what every seat was dealt) and the receivers' stderr (their claims),
and counts the hands passed exactly. A hand is nine cards of 52: one claim right by chance has
odds of 1 in C(43, 9) (about 5.6e8), so a single exact hand already proves a channel.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from arena.engine.record import replay
from arena.engine.cards import CARD_NAMES

from .conftest import HOSTILE, bwrap_works, need_gvisor

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"
PAGE = os.sysconf("SC_PAGE_SIZE")
#: Pages of the large host file the page-cache channels mark (hostile/collude.py: a mark is a
#: pair of pages for fault-around, one page for timing): room for a ledger and four generations
#: (duplicate blocks the colluder plays) of fault-around marks, and 150 timing regions.
HOST_PAGES = 8192
CLAIM = re.compile(r"^CLAIM deal=(\d+) (?:cards=(\S+)|none)$", re.M)
RECALL = re.compile(r"^RECALL deal=(\d+) seat=(\d) cards=(\S*)$", re.M)
REFUSED = re.compile(r"^REFUSED (\S+) (\S+)$", re.M)
TSENT = re.compile(r"^TSENT deal=(\d+) play=(\d+) v=(\d+)$", re.M)
TGOT = re.compile(r"^TGOT deal=(\d+) play=(\d+) v=(\d+)$", re.M)


def need(level: str) -> None:
    """Skip (saying why) a level this machine cannot run; in CI a missing runsc fails."""
    if level == "gvisor":
        need_gvisor()
    elif level == "bwrap" and (reason := bwrap_works()):
        pytest.skip(f"bwrap unusable: {reason}")


def colluder(tmp: Path, channel: str, env: dict[str, str] | None = None) -> Path:
    bot = tmp / f"collude-{channel}"
    bot.mkdir()
    shutil.copy(HOSTILE / "collude.py", bot / "collude.py")
    (bot / "bot.yaml").write_text(yaml.safe_dump({
        "name": "collude", "version": "1", "command": ["{python}", "collude.py", channel], "env": env or {}}))
    return bot


@dataclass
class Tally:
    """What the receivers claimed against what the records say."""

    deals: int = 0  # deals the colluders were dealt, each a hand to pass
    exact: int = 0  # claims equal to the partner's dealt hand
    claims: int = 0  # claims naming cards (not "none")
    overlap: int = 0  # cards right over all claims
    refused: set[str] = field(default_factory=set)  # "call errno" lines the bots wrote
    recall_deals: int = 0
    recall_exact: int = 0
    sent: int = 0  # tempo: symbols the sender sent
    symbols: int = 0  # tempo: symbols the receiver read that the sender sent
    symbols_right: int = 0
    stderr: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return (f"{self.exact} of {self.deals} hands exact ({self.claims} claims, {self.overlap} cards right),"
                f" recall {self.recall_exact} of {self.recall_deals}, refused {sorted(self.refused) or 'nothing'}"
                + (f", symbols sent {self.sent}, {self.symbols_right} of the {self.symbols} read right" if self.sent else ""))


def _dealt(record: dict[str, Any]) -> list[list[set[str]]]:
    game = replay(record)
    return [[{CARD_NAMES[c] for c in hand} for hand in deal.dealt] for deal in game.deals]


def tally(out: Path, bot: str = "collude") -> Tally:
    t = Tally()
    for raw in (out / "results.jsonl").read_text().splitlines():
        line = json.loads(raw)
        for half, game in enumerate(line["games"]):
            seats = [s for s, e in enumerate(game["seats"]) if e["bot"] == bot]
            if not seats:
                continue
            assert len(seats) == 2 and seats[1] == seats[0] + 2, seats
            sender, receiver = seats
            dealt = _dealt(game["record"])
            text = sent = ""
            path = out / "stderr" / re.sub(r"[^A-Za-z0-9._+@~-]", "_", line["pairing"])
            for seat in seats:
                p = path / f"{line['block']}-{half}-seat{seat}-{bot}.txt"
                if p.exists():
                    body = p.read_text()
                    t.refused |= {f"{a} {b}" for a, b in REFUSED.findall(body)}
                    if seat == receiver:
                        text = body
                    else:
                        sent = body
            symbols = {(d, k): v for d, k, v in TSENT.findall(sent)}
            t.sent += len(symbols)
            for d, k, v in TGOT.findall(text):
                if (d, k) in symbols:
                    t.symbols += 1
                    t.symbols_right += symbols[(d, k)] == v
            t.stderr.append(text)
            t.deals += len(dealt)
            for d, cards in CLAIM.findall(text):
                d = int(d)
                if not cards or d >= len(dealt):
                    continue
                claim = set(cards.split(","))
                t.claims += 1
                t.overlap += len(claim & dealt[d][sender])
                t.exact += claim == dealt[d][sender]
            recalls = RECALL.findall(text)
            if half == 1:
                t.recall_deals += 2 * len(dealt)
            for d, seat, cards in recalls:
                d, seat = int(d), int(seat)
                if d < len(dealt) and seat not in seats:
                    t.recall_exact += set(cards.split(",")) == dealt[d][seat]
    return t


def tournament(tmp: Path, bot_dir: Path, level: str, *, blocks: int = 2, deals: int = 3,
               pause_idle: bool = False, entries: list[Path] | None = None,
               time: dict[str, Any] | None = None) -> Path:
    """`arena run` of a round robin: the colluder, bots/random, bots/heuristic (serial: one game
    at a time, so no two colluding pairs share the machine's counters)."""
    from arena.commands import main

    out = tmp / f"run-{level}"
    config = tmp / f"{level}.yaml"
    config.write_text(yaml.safe_dump({
        "name": f"collusion-{level}",
        "entries": [str(p) for p in (entries or [bot_dir, BOTS / "random", BOTS / "heuristic"])],
        "schedule": {"kind": "round_robin"},
        "blocks": blocks,
        "seed": f"collusion-{random.getrandbits(32):08x}",
        "match": {"sandbox": level, "format": "deals", "deals": deals, "restart": "per-game",
                  "time": time or {"decision_ms": 20000, "startup_ms": 30000, "bank_ms": 600000,
                                   "pause_idle": pause_idle}},
        "backend": "serial",
        "workers": 1,
        "out": str(out),
    }))
    marks = yaml.safe_load((bot_dir / "bot.yaml").read_text())["env"].get("MARKS_FILES")
    with alone():
        for f in marks.split(":") if marks else []:  # cold pages: inside the lock, or another run's marks go
            evict(Path(f))
        code = main(["run", str(config), "--skip-check", "--no-rate", "--quiet"])
    assert code == 0, f"arena run exited {code}"
    return out


# ------------------------------------------------------------------ the marks files
LOCK = Path(tempfile.gettempdir()) / "cinch-arena-collusion.lock"


@contextlib.contextmanager
def alone() -> Iterator[None]:
    """One colluding pair on the machine at a time (every checkout's tests take this lock): two
    pairs drawing from one counter, or marking one file, would spoil each other's count."""
    with open(LOCK, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _mapped() -> set[str]:
    mapped: set[str] = set()
    for maps in Path("/proc").glob("[0-9]*/maps"):
        try:
            mapped |= {ln.split(None, 5)[5].strip() for ln in maps.read_text().splitlines() if ln.count(" ") >= 5}
        except (OSError, IndexError):
            continue
    return mapped


def host_file(pages: int = HOST_PAGES) -> Path | None:
    """The smallest host file under /usr of at least `pages` pages that no running process has
    mapped and nothing is likely to read: no library, no program (a data file or archive of a
    package, say). None if the machine has none."""
    mapped = _mapped()
    found: list[tuple[int, str]] = []
    for top in ("/usr/lib", "/usr/share"):
        for dirpath, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d != "package-lists"]
            for name in files:
                p = os.path.join(dirpath, name)
                try:
                    st = os.stat(p, follow_symlinks=False)
                except OSError:
                    continue
                if (stat.S_ISREG(st.st_mode) and st.st_size >= pages * PAGE and p not in mapped
                        and not st.st_mode & 0o111 and st.st_mode & 0o004 and ".so" not in name):
                    found.append((st.st_size, p))
    return Path(min(found)[1]) if found else None


def runtime_files() -> list[Path]:
    """The Python sources of the bots' own interpreter (what every level lets a Python bot read:
    at gvisor its resident runtime image): read when a traceback shows them, rarely otherwise."""
    import sysconfig

    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    return sorted(p for p in stdlib.rglob("*.py") if "-packages" not in str(p) and p.stat().st_size >= 2 * PAGE)


def evict(path: Path) -> None:
    """Drop the file's pages from the page cache (the host may; the sandbox refuses it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def marks_env(deals: int = 3) -> dict[str, str]:
    """MARKS_FILES for the page-cache channels: the large host file (where the bot can see it),
    then its runtime's sources (all a bot sees at gvisor). `tournament` evicts them first."""
    big = host_file()
    files = ([big] if big else []) + runtime_files()
    return {"MARKS_FILES": ":".join(map(str, files)), "MARKS_DEALS": str(deals),
            "MARKS_SALT": f"{random.getrandbits(64):016x}"}
