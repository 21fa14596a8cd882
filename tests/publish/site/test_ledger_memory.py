"""A site's state is read without holding its ledger whole: what reading it holds beyond the entries it keeps
does not grow with the ledger (a ladder's store grows for weeks, and a server's RSS keeps its peak).

Measured by tracemalloc (allocations, never time), on the ledger of a real build made N and 4N lines long."""

from __future__ import annotations

import json
import shutil
import tracemalloc
from pathlib import Path

import pytest

from arena.publish.site import ledger
from arena.publish.site.collect import source_paths


def _grown(site: Path, dest: Path, times: int) -> tuple[Path, int]:
    """The site's state with its ledger's lines repeated ``times`` times (the cache says so): (state, bytes)."""
    shutil.copytree(site / ledger.STATE, dest)
    raw = (dest / "ledger.jsonl").read_bytes()
    lines = raw.splitlines(keepends=True)
    big = raw * times
    (dest / "ledger.jsonl").write_bytes(big)
    cache = json.loads((dest / "cache.json").read_text())
    cache["ledger_bytes"], cache["entries"] = len(big), len(lines) * times
    (dest / "cache.json").write_text(json.dumps(cache))
    return dest, len(big)


def _transient(state: Path, paths: list[Path]) -> tuple[int, int]:
    """(entries read, bytes held at the peak of reading the state beyond what it keeps once read)."""
    key = json.loads((state / "cache.json").read_text())["key"]
    tracemalloc.start()
    try:
        st = ledger.SiteState.open(state, key, paths)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not st.fresh, "the state was not carried on: the test measures nothing"
    return len(st.entries), peak - kept


def test_reading_a_state_holds_no_more_for_a_ledger_four_times_as_long(site: Path, competition: Path,
                                                                        tmp_path: Path) -> None:
    paths = source_paths([competition])
    small, small_bytes = _grown(site, tmp_path / "n", 40)
    large, large_bytes = _grown(site, tmp_path / "4n", 160)
    n_small, held_small = _transient(small, paths)
    n_large, held_large = _transient(large, paths)
    assert n_large == 4 * n_small > 0
    # the whole file and its lines held at once: at least twice the bytes the ledger gained
    assert held_large - held_small < (large_bytes - small_bytes) / 10, (held_small, held_large, large_bytes)


def test_a_ledger_shorter_than_its_cache_says_is_built_again(site: Path, competition: Path, tmp_path: Path) -> None:
    state, size = _grown(site, tmp_path / "cut", 2)
    with open(state / "ledger.jsonl", "r+b") as f:
        f.truncate(size - 5)  # the last line cut
    key = json.loads((state / "cache.json").read_text())["key"]
    st = ledger.SiteState.open(state, key, source_paths([competition]))
    assert st.fresh and st.entries == []


@pytest.mark.parametrize("extra", [b"", b"{\"s\":0}\n"])
def test_a_ledger_longer_than_its_cache_says_is_read_to_the_cache_s_end(site: Path, competition: Path,
                                                                         tmp_path: Path, extra: bytes) -> None:
    """A build killed after appending its entries, before its cache: the entries past the cache are not read."""
    state, _ = _grown(site, tmp_path / "long", 1)
    with open(state / "ledger.jsonl", "ab") as f:
        f.write(extra)
    key = json.loads((state / "cache.json").read_text())["key"]
    st = ledger.SiteState.open(state, key, source_paths([competition]))
    assert not st.fresh and len(st.entries) == len((site / ledger.STATE / "ledger.jsonl").read_bytes().splitlines())
