"""The server's public site names things as the server does: the competition by its name, each version
``team03 v2`` (not its digest, not its bot.yaml's own version), and the ladder's batches as batches."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

from arena.serve import db
from arena.serve.ladder import publish, site_naming

from tests.publish.site.many import ladder_store


def test_the_ladders_site_uses_the_servers_names(tmp_path: Path) -> None:
    ladder_store(tmp_path / "results", 3, 2)  # its entries' folders are the ladder's: TEAM-vN
    svc = SimpleNamespace(folder=tmp_path, engine=db.connect(f"sqlite:///{tmp_path / 'c.sqlite'}"),  # none retired
                          config=SimpleNamespace(competition=SimpleNamespace(name="Spring <Cinch> Cup", site_bootstrap=0)))
    publish(svc)  # type: ignore[arg-type]
    index = (tmp_path / "public" / "index.html").read_text()
    assert "<title>Spring &lt;Cinch&gt; Cup</title>" in index and "<h1>Spring &lt;Cinch&gt; Cup</h1>" in index
    ratings = index[index.index('id="ratings"'):].split("</table>")[0]
    assert sorted(re.findall(r'">(team\d\d v\d)</a></th>', ratings)) == ["team00 v2", "team01 v2", "team02 v2"]
    assert "over 2 batches" in index and "Batches covered" in index and "Runs covered" not in index
    old = next(p for p in (tmp_path / "public" / "bots").iterdir() if "<h1>team01 v1</h1>" in p.read_text())
    assert "team01 v1 (bot.yaml: 0.1)" in old.read_text() and "now <a" in old.read_text()
    rows = json.loads((tmp_path / "ratings.json").read_text())["rows"]
    assert sorted((r["team"], r["version"]) for r in rows) == [(f"team0{i}", v) for i in range(3) for v in (1, 2)]


def test_a_version_the_server_did_not_name_keeps_its_id() -> None:
    meta = {"entries": [{"name": "red", "digest": "ab" * 32, "dir": "/x/ladder/red-v3"},
                        {"name": "red", "digest": "cd" * 32, "dir": "/elsewhere/red"}]}
    naming = site_naming("Cup", meta)
    assert naming.labels == {("red", "ab" * 32): "red v3"} and naming.title == "Cup" and naming.run == "batch"
