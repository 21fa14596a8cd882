"""`arena serve` plays on every core unless competition.yaml or --workers says otherwise, as `arena run`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import arena.serve.serve as serve_module
from arena.commands import main


@pytest.mark.parametrize("yaml_line, argv, want", [
    ("", [], os.cpu_count() or 1),
    ("  workers: 1\n", [], 1),
    ("", ["--workers", "3"], 3),
    ("  workers: 1\n", ["--workers", "2"], 2),
    ("  ray_address: 127.0.0.1:1\n", [], None),  # a cluster's CPUs, not this machine's: left to the runner
], ids=["default", "yaml", "flag", "flag-over-yaml", "cluster"])
def test_the_served_worker_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, yaml_line: str,
                                 argv: list[str], want: int | None) -> None:
    (tmp_path / "competition.yaml").write_text(f"competition:\n  check_games: 0\n{yaml_line}match:\n  sandbox: none\n")
    served: list[Any] = []
    monkeypatch.setattr(serve_module, "run", lambda svc, host, port: served.append(svc))
    assert main(["serve", str(tmp_path), *argv]) == 0
    c = served[0].config.competition
    assert (c.workers if "workers" in c.model_fields_set else None) == want
