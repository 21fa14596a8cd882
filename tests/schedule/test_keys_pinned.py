"""Every key a tournament derives, pinned for a fixed config: the seed as the config holds it,
the block keys, the bots' seeds, a table's seat order, the substitute's draws and the games
they deal. The values were computed with the code before the keys got a module of their own
(issue 35): moving or typing the derivations must change none of them, on any path.
"""

from __future__ import annotations

import hashlib
import json
from itertools import combinations
from pathlib import Path
from typing import Any

from arena.match import MatchSettings, bot_seed
from arena.results import comparable
from arena.schedule import BlockTask, block_key, load_config, plan_tasks, run_block
from arena.schedule.tables import Table, seat_order

from .conftest import Policy, fake_entry, policy_factory, write_config
from .test_tables import CT3, _bots

#: block_key("2024", b) for b = 0, 1, 2; block 0 is also a test vector of docs/records.md.
BLOCK_KEYS = ["b6f97b9d5d7064af81557dce", "fd39509eba82e594570842cd", "fcfd64ed3ffef1cfcdeb195a"]
#: bot_seed(BLOCK_KEYS[0], half, seat), half 0 then 1, seats 0..3.
BOT_SEEDS = [[6266615294875427, 2284598206386189, 7147113100889391, 7610406312640991],
             [7169264257680795, 1696884308338398, 6048393242440160, 3211000189459688]]
#: the seat order (rotation 0) of each table of three of four entrants, block by block.
TABLE_ORDERS = {
    0: [["b1", "b2", "b0"], ["b3", "b1", "b0"], ["b3", "b2", "b0"], ["b3", "b1", "b2"]],
    1: [["b1", "b0", "b2"], ["b3", "b1", "b0"], ["b3", "b0", "b2"], ["b3", "b1", "b2"]],
}
#: sha256 of what the keys shape in the played lines below (seeds, records, outcomes, substitutes).
#: Re-pinned by issue 34, whose cut-throat scores Low for the seat that captures it: the cutthroat-3
#: table's scores changed with it (the same keys, seeds and plays); the pairs' lines are as before.
PLAYED = "d600d82fae7e3388f9eb037bbc0cc3cc5c835258d59b2454129d0bbfb6dba108"


def test_the_seed_is_text_whether_written_as_an_integer_or_as_text(tmp_path: Path) -> None:
    (tmp_path / "int").mkdir()
    (tmp_path / "text").mkdir()
    as_int = load_config(write_config(tmp_path / "int", seed=2024, blocks=3))
    as_text = load_config(write_config(tmp_path / "text", seed="2024", blocks=3))
    assert as_int.config.seed == as_text.config.seed == "2024"
    assert type(as_int.config.seed) is str
    assert as_int.config_hash() == as_text.config_hash()
    assert [t.block_key for t in plan_tasks(as_int)] == [t.block_key for t in plan_tasks(as_text)] == BLOCK_KEYS


def _spec(*parts: object) -> str:
    """A derived key as docs/records.md describes it (BLAKE2b, 12-byte digest, of the parts joined)."""
    text = "cinch/v1|key|" + "|".join(map(str, parts))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def test_block_keys_and_bot_seeds_are_pinned() -> None:
    assert [block_key("2024", b) for b in range(3)] == BLOCK_KEYS == [_spec("2024", "block", b) for b in range(3)]
    assert BOT_SEEDS[1][2] == int(_spec("bot-seed", BLOCK_KEYS[0], 1, 2), 16) % 2**53
    assert [[bot_seed(BLOCK_KEYS[0], h, s) for s in range(4)] for h in (0, 1)] == BOT_SEEDS
    assert all(0 <= x < 2**53 for row in BOT_SEEDS for x in row)


def test_a_tables_seat_order_is_pinned(tmp_path: Path) -> None:
    e = [fake_entry(n) for n in ("b0", "b1", "b2", "b3")]
    orders = {b: [[x.name for x in seat_order(Table(tuple(c)), BLOCK_KEYS[b])] for c in combinations(e, 3)]
              for b in (0, 1)}
    assert orders == TABLE_ORDERS
    first = sorted(e[:3], key=lambda x: _spec(BLOCK_KEYS[0], "seat", x.ident))
    assert [x.name for x in first] == TABLE_ORDERS[0][0]
    # a config's tasks take their tables' seat order from the same keys
    bots = _bots(tmp_path, 4)
    t = load_config(write_config(tmp_path, match=CT3, entries=bots, blocks=2, seed=2024))
    tables = {table.key: table for block in t.tables() for table in block}
    tasks = plan_tasks(t)
    assert {x.block: x.block_key for x in tasks} == {0: BLOCK_KEYS[0], 1: BLOCK_KEYS[1]}
    assert all(x.table == tuple(y.ident for y in seat_order(tables[x.pairing], x.block_key)) for x in tasks)
    by_block = [{x.pairing: x.table for x in tasks if x.block == b} for b in (0, 1)]
    assert by_block[0] != by_block[1]  # the order is the block's


class Illegal(Policy):
    """Plays a card it does not hold: under ``faults: substitute`` the harness draws its move."""

    def decide(self, kind: str, view: dict, legal: dict) -> dict:
        if kind == "play":
            return {"type": "play", "card": "ZZ"}
        return super().decide(kind, view, legal)


def _played() -> list[dict[str, Any]]:
    base = {"sandbox": "none", "format": "deals", "deals": 3}
    pairs = MatchSettings.model_validate(base)
    substitute = MatchSettings.model_validate({**base, "faults": {"mode": "substitute", "strikes": 1000}})
    cut3 = MatchSettings.model_validate({**base, "profile": "cutthroat-3"})
    e = {n: fake_entry(n) for n in ("ra", "rb", "rc", "bad")}
    modes = {"ra": "random", "rb": "random", "rc": "random", "bad": "random"}
    random_players = policy_factory(modes)

    def factory(entry, seed):  # type: ignore[no-untyped-def]
        if entry.name != "bad":
            return random_players(entry, seed)
        from arena.players import PolicyPlayer
        return PolicyPlayer(Illegal(entry.name, "random"), seed)

    bots = {x.ident: x for x in e.values()}
    tasks = [
        BlockTask("ra~rb", b, block_key("2024", b), (e["ra"].ident, e["ra"].ident), (e["rb"].ident, e["rb"].ident),
                  pairs, "h") for b in range(2)]
    tasks.append(BlockTask("bad~rb", 0, block_key("2024", 0), (e["bad"].ident, e["ra"].ident),
                           (e["rb"].ident, e["rb"].ident), substitute, "h"))
    tasks.append(BlockTask("table", 0, block_key("2024", 0), (), (), cut3, "h",
                           table=(e["rc"].ident, e["ra"].ident, e["rb"].ident)))
    return [comparable(json.loads(run_block(t, bots, make_player=factory).line.to_json())) for t in tasks]


def test_played_blocks_are_pinned() -> None:
    lines = _played()
    assert [g["seeds"] for g in lines[0]["games"]] == BOT_SEEDS
    assert [line["block_key"] for line in lines] == [BLOCK_KEYS[0], BLOCK_KEYS[1], BLOCK_KEYS[0], BLOCK_KEYS[0]]
    subs = [f for g in lines[2]["games"] for f in g["faults"]]
    assert subs and all(f.get("substituted") for f in subs), subs[:1]
    shaped = [{"block_key": line["block_key"],
               "games": [{"seeds": g["seeds"], "record": g["record"], "winner": g["winner"], "scores": g["scores"],
                          "substitutes": [(f["seat"], f["deal"], f["decision"], f.get("substituted"))
                                          for f in g["faults"]]}
                         for g in line["games"]]} for line in lines]
    text = json.dumps(shaped, sort_keys=True, separators=(",", ":"))
    assert hashlib.sha256(text.encode()).hexdigest() == PLAYED
