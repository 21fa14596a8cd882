"""Ray backend: same results as serial, bots shipped by digest."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from arena.players import load_entry
from arena.results import ResultsStore, comparable
from arena.sandbox import HarnessError
from arena.schedule import load_config, plan_tasks, run_tasks
from arena.schedule.backends import RayBackend, SerialBackend
from arena.schedule.bundle import materialize, pack

from .conftest import FIRST, write_config


def _run(t, backend) -> dict:
    store = ResultsStore(t.out)
    store.load()
    outcome = run_tasks(plan_tasks(t), backend, store)
    backend.close()
    assert not outcome.failures
    return {k: comparable(v) for k, v in store.lines.items()}


@pytest.mark.ray
def test_serial_and_ray_two_workers_give_identical_results(tmp_path: Path, ray_session) -> None:
    serial = load_config(write_config(tmp_path, blocks=3), {"out": str(tmp_path / "serial")})
    ray = load_config(write_config(tmp_path, blocks=3), {"out": str(tmp_path / "ray")})
    a = _run(serial, SerialBackend({e.ident: e for e in serial.entries}))
    b = _run(ray, RayBackend({e.ident: e for e in ray.entries}, workers=2))
    assert len(a) == 3 and a == b
    runs = [json.loads(x)["run"]["backend"] for x in (tmp_path / "ray" / "results.jsonl").read_text().splitlines()]
    assert runs == ["ray"] * 3


@pytest.mark.slow  # a Ray worker's seconds of CPU (each compiles the shipped harness): the default suite keeps one
@pytest.mark.ray   # Ray test, so that one pytest-xdist worker starts Ray, not each of them
def test_one_worker_playing_blocks_in_threads_gives_identical_results(tmp_path: Path, ray_session) -> None:
    """A fixed tempo's threaded worker: three blocks at once in one process, the lines the driver plays."""
    serial = load_config(write_config(tmp_path, blocks=3), {"out": str(tmp_path / "serial")})
    ray = load_config(write_config(tmp_path, blocks=3), {"out": str(tmp_path / "ray")})
    a = _run(serial, SerialBackend({e.ident: e for e in serial.entries}))
    backend = RayBackend({e.ident: e for e in ray.entries}, workers=1, threads=3)
    assert backend.capacity == 3
    b = _run(ray, backend)
    assert len(a) == 3 and a == b
    runs = [json.loads(x)["run"] for x in (tmp_path / "ray" / "results.jsonl").read_text().splitlines()]
    assert len({r["pid"] for r in runs}) == 1 and all(r["backend"] == "ray" for r in runs)  # one process played all


def _tarball(name: str, data: bytes) -> bytes:
    """A one-file gzip tar, as a (tampered) bot bundle."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_bundle_unpacks_by_digest_and_checks_it(tmp_path: Path) -> None:
    entry = load_entry(FIRST)
    data = pack(entry)
    local = materialize(entry, data, tmp_path)
    assert Path(local.dir) == tmp_path / entry.digest and local.digest == entry.digest
    assert (Path(local.dir) / "bot.py").read_text() == (FIRST.parent / "bot.py").read_text()
    assert materialize(entry, b"", tmp_path).dir == local.dir  # cached: not unpacked again

    with pytest.raises(HarnessError, match="digest"):
        materialize(entry, _tarball("bot.py", b"bad"), tmp_path / "other")
    assert not (tmp_path / "other" / entry.digest).exists()


def test_bundle_refuses_unsafe_entries_and_foreign_libraries(tmp_path: Path, monkeypatch) -> None:
    entry = load_entry(FIRST)
    with pytest.raises(HarnessError, match="unsafe"):
        materialize(entry, _tarball("../escape.py", b"x"), tmp_path / "a")
    assert not (tmp_path / "escape.py").exists()

    from arena.players import manifest as mf

    sdk = tmp_path / "sdk"
    sdk.mkdir()
    (sdk / "lib.py").write_text("X = 1\n")
    monkeypatch.setitem(mf.LIBRARY_PATHS, "sdk", sdk)
    uses = tmp_path / "uses"
    uses.mkdir()
    (uses / "bot.py").write_text((FIRST.parent / "bot.py").read_text())
    (uses / "bot.yaml").write_text('name: u\ncommand: ["{python}", "bot.py"]\nlibraries: [sdk]\n')
    driver_side = load_entry(uses)
    data = pack(driver_side)
    assert materialize(driver_side, data, tmp_path / "ok").digest == driver_side.digest
    (sdk / "lib.py").write_text("X = 2\n")  # this "node" has another SDK
    with pytest.raises(HarnessError, match="differ from the driver"):
        materialize(driver_side, data, tmp_path / "node2")


KILLER = '''
import os, signal, sys
marker = os.environ["MARKER"]
if not os.path.exists(marker):
    open(marker, "w").close()
    pid = os.getppid()
    while pid > 1:  # find the Ray worker running this block and kill it
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if f.read().startswith(b"ray::"):
                os.kill(pid, signal.SIGKILL)
                break
        with open(f"/proc/{pid}/stat") as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
    sys.exit(1)
os.execv(sys.executable, [sys.executable, os.path.join(os.path.dirname(__file__), "first.py")])
'''


@pytest.mark.slow  # as above: Ray workers started again after the kill
@pytest.mark.ray
@pytest.mark.parametrize("threads", [1, 2])
def test_block_lost_with_its_worker_is_retried_once(tmp_path: Path, ray_session, threads: int) -> None:
    bot = tmp_path / "killer"
    bot.mkdir()
    (bot / "first.py").write_text((FIRST.parent / "bot.py").read_text())
    (bot / "bot.py").write_text(KILLER)
    marker = tmp_path / "killed-once"
    (bot / "bot.yaml").write_text(f'name: killer\ncommand: ["{{python}}", "bot.py"]\nenv: {{PICK: first, MARKER: "{marker}"}}\n')
    t = load_config(write_config(tmp_path, entries=[str(FIRST), str(bot)]))
    store = ResultsStore(t.out)
    backend = RayBackend({e.ident: e for e in t.entries}, workers=2, threads=threads)
    outcome = run_tasks(plan_tasks(t), backend, store)
    backend.close()
    assert marker.exists() and outcome.retries == 1 and not outcome.failures
    (line,) = store.lines.values()
    assert line.run.attempt == 2 and not any(g.faults for g in line.games)


@pytest.mark.slow
@pytest.mark.ray
def test_tables_by_rotation_on_ray_equal_serial(tmp_path: Path, ray_session) -> None:
    """Tables of three (cut-throat) by rotation: the same lines on two Ray workers as in the driver."""
    from .test_tables import CT3, _bots

    bots = _bots(tmp_path, 4)
    serial = load_config(write_config(tmp_path, match=CT3, entries=bots, blocks=1), {"out": str(tmp_path / "serial")})
    ray = load_config(write_config(tmp_path, match=CT3, entries=bots, blocks=1), {"out": str(tmp_path / "ray")})
    a = _run(serial, SerialBackend({e.ident: e for e in serial.entries}))
    b = _run(ray, RayBackend({e.ident: e for e in ray.entries}, workers=2))
    assert len(a) == 4 and a == b and all(len(v["games"]) == 3 for v in a.values())
