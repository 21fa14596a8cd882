"""The leaderboard document and tournament.json's facts as types: what a written file reads back as, and
what a broken file gives."""

from __future__ import annotations

import json
import random
from pathlib import Path

from arena.publish import Leaderboard
from arena.publish.provenance import RunFacts
from arena.publish.rate import rate_results

from .helpers import meta, tournament, write


def _board(tmp_path: Path, **meta_kw: object) -> Path:
    folder = tmp_path / "run"
    write(folder / "results.jsonl", tournament(random.Random(5), {"a": 100.0, "b": 0.0, "c": -50.0}, blocks=4))
    (folder / "tournament.json").write_text(json.dumps(meta(**meta_kw)))
    return folder


def test_a_written_leaderboard_reads_back_as_the_same_document(tmp_path: Path) -> None:
    pub = rate_results(_board(tmp_path), tmp_path / "lb", bootstrap=20)
    text = (tmp_path / "lb" / "leaderboard.json").read_text()
    back = Leaderboard.model_validate_json(text)
    assert back == pub.doc and back.to_json() == text
    assert [b.rank for b in back.ranked()] == [1, 2, 3] and back.earlier() == []
    assert back.row("a") is back.bots[[b.bot for b in back.bots].index("a")] and back.row("nobody") is None
    assert "anchor_pending" not in json.loads(text)["rating"]  # in the file only when there is one


def test_a_pending_anchor_is_written_and_read_back(tmp_path: Path) -> None:
    from arena.publish.rate import rate_loaded
    from arena.results import read_results

    folder = _board(tmp_path)
    doc, _, _ = rate_loaded(read_results(folder), meta={"anchor": "later"}, bootstrap=0, early=True)
    assert doc.rating.anchor_pending == "later" and "has no games yet" in doc.rating.anchor_text
    assert json.loads(doc.to_json())["rating"]["anchor_pending"] == "later"
    assert Leaderboard.model_validate_json(doc.to_json()).rating.anchor_pending == "later"


def test_tournament_json_is_read_as_facts_and_a_broken_one_as_none() -> None:
    facts = RunFacts.of({"name": "cup", "seed": 7, "entries": [3, "x", {"name": "a", "digest": "d", "version": 2},
                                                              {"bot": "b"}], "unknown": {"kept": False}})
    assert facts is not None and facts.seed == "7"  # a number recorded as a seed is its text
    assert [(e.label, e.version) for e in facts.entries] == [("a", "2"), ("b", None)]  # non-objects skipped
    assert RunFacts.of(None) is None and RunFacts.of(facts) is facts
    assert RunFacts.of({"blocks": "many"}) is None and RunFacts.of({"match": {"deals": [1]}}) is None


def test_a_broken_tournament_json_leaves_the_facts_unknown(tmp_path: Path) -> None:
    folder = _board(tmp_path)
    (folder / "tournament.json").write_text(json.dumps({"name": "cup", "blocks": "many"}))
    doc = rate_results(folder, tmp_path / "lb", bootstrap=0).doc
    assert doc.provenance.config_name is None and doc.provenance.sources == ["results"]
    assert "- config: unknown" in (tmp_path / "lb" / "leaderboard.md").read_text()
