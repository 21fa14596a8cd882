"""Colluding partners in a real round robin, channel by channel and level by level (issue 31).

Each test runs `arena run` on a round robin of hostile/collude.py (self-partnered, both seats of
one side) against bots/random and bots/heuristic, then counts the hands the receivers claimed
exactly against the game records (collusion.py). The sender passes its dealt hand (nine cards,
one of C(52, 9) = 3.7e9): an exact claim by chance has odds of about 1 in 5.6e8 (the receiver
knows its own nine cards), so where a channel is noisy a few exact hands already prove it.

Thresholds, for 2 blocks of 3-deal games (the colluder plays 2 pairings x 2 blocks x 2 games x
3 deals = 24 hands):

* socket cookies: the link is stop-and-wait (a window is sent only after the receiver read the
  last one), so load slows it and loses nothing; a hand is lost when its game ends before its
  windows are through (2 or 3 a hand, about 4 a deal). Nothing else on these machines asks for
  cookies: measured 24 of 24, also beside the browser tests; asserted 12.
* counters other processes draw from in bursts, so noisy under load by nature: the shmem inode
  counter of memfds and shared anonymous maps (every Chromium process draws from it: 20-24 of 24
  alone, 6-14 beside the browser tests), pipe inodes (get_next_ino, which every pipe and socket
  on the CPU draws from: 12-19), pidfd inodes (one host-wide sequence moved by every process
  and thread the host starts: 2-7). Asserted: at least 2 exact hands (1 for pidfds), each
  beyond chance by eight orders of magnitude.
* page-cache marks read by fault-around: no timing at all, so exact unless something else reads
  or evicts the marked pages (a lock keeps every checkout's collusion runs apart). Measured 24
  of 24 (pagemap, smaps, statm) and recall 24 of 24; asserted 18 (12 for statm, whose resident
  count also moves with the bot's own heap).
* read timing (cached 7-50 us, cold 48-71 us here): noisy under load. Asserted: 3 exact hands
  and at least 5 of the 9 cards right per claim on average (chance: 1.9). Measured 21-23 of 24.

At level gvisor every channel must pass 0 hands. At bwrap, the channels the seccomp filter can
close (cookies, memfd_create, pidfd_open, CLONE_PIDFD: issue 31 item 6) must be refused or pass
0 hands, with a control at level none proving the same bots pass them there.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from arena.sandbox import seccomp

from . import collusion

#: Refused by the filter at bwrap (issue 31 item 6), so 0 hands there; a control at none.
RULED = ("cookie", "memfd", "pidfd", "clonepidfd")
#: Still open at bwrap: one kernel's counter no rule can close without breaking runtimes.
OPEN = ("shmanon", "pipe")
#: Counters other processes draw from in bursts: a demonstration, not a count.
NOISY = {"memfd": 2, "shmanon": 2, "pipe": 2, "pidfd": 1, "clonepidfd": 1}
QUIET = 12


def run(tmp_path: Path, channel: str, level: str, env: dict[str, str] | None = None, *, blocks: int = 2,
        deals: int = 3, pause_idle: bool = False, opponents: tuple[str, ...] = ("random", "heuristic")) -> collusion.Tally:
    collusion.need(level)
    bot = collusion.colluder(tmp_path, channel, env)
    entries = [bot, *(collusion.BOTS / name for name in opponents)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # level none warns that it contains nothing
        out = collusion.tournament(tmp_path, bot, level, blocks=blocks, deals=deals, pause_idle=pause_idle,
                                   entries=entries)
    t = collusion.tally(out)
    # a pairing with each opponent, two games a block: every deal of them is a hand to pass
    assert t.deals == len(opponents) * blocks * 2 * deals, t
    return t


def expect_passes(t: collusion.Tally, channel: str, quiet: int = QUIET) -> None:
    need_hands = NOISY.get(channel, quiet)
    assert not t.refused, t
    assert t.exact >= need_hands, f"{channel}: {t}; receiver's stderr: {t.stderr[:2]}"


def expect_nothing(t: collusion.Tally, channel: str) -> None:
    assert t.exact == 0 and t.recall_exact == 0, f"{channel}: {t}; receiver's stderr: {t.stderr[:2]}"


# ------------------------------------------------------------------ counters
#: Until the filter's rules of issue 31 item 6 are in this checkout (memfd_create still allowed),
#: the ruled channels still pass hands at bwrap: expected to fail, and to pass once they are.
RULES_MISSING = pytest.mark.xfail("memfd_create" in seccomp.ALLOWED, strict=True,
                                  reason="the seccomp rules of issue 31 item 6 are not in this checkout")
COUNTER_CASES = [
    *[pytest.param(ch, lv, False, id=f"{ch}-{lv}", marks=[RULES_MISSING] if lv == "bwrap" and ch in RULED else [])
      for lv in ("none", "bwrap", "gvisor") for ch in RULED + OPEN
      if not (lv == "none" and ch in OPEN)],  # open at bwrap: that test is the proof
    # time.pause_idle: a seat not on move is stopped; the link waits for readings, not for time
    pytest.param("shmanon", "bwrap", True, id="shmanon-bwrap-pause_idle"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("channel", "level", "pause_idle"), COUNTER_CASES)
def test_counter_channel(tmp_path: Path, channel: str, level: str, pause_idle: bool) -> None:
    """The sender draws numbers from a kernel counter (new sockets' cookies, new memfds', shared
    anonymous maps', pipes' or pidfds' inode numbers), pinned to each CPU in turn; the receiver,
    pinned likewise, reads how far each CPU's counter moved between two of its decisions."""
    t = run(tmp_path, channel, level, pause_idle=pause_idle)
    print(f"{channel} at {level}{', pause_idle' if pause_idle else ''}: {t}")
    if level == "gvisor" or (level == "bwrap" and channel in RULED):
        expect_nothing(t, channel)
    else:
        if t.exact < NOISY.get(channel, QUIET) and channel in NOISY:
            # A counter every process on the machine draws from: on a busy one (the slow suite beside
            # other work) their bursts drowned every symbol of a run (pidfd at none, 0 of 24 hands). What
            # passes must be shown to pass, not that the machine was quiet: a second run.
            (tmp_path / "again").mkdir()
            t = run(tmp_path / "again", channel, level, pause_idle=pause_idle)
            print(f"again: {t}")
            if t.exact == 0 and level == "none":
                # Seen twice in the slow suite beside other work (4 workers forking), never alone: every
                # process made anywhere moves these host-wide counters. Reported, not passed: the closed
                # levels' cases above still assert that nothing passes.
                pytest.xfail(f"{channel} at none: the host's other processes drew from its counter in both runs: {t}")
        expect_passes(t, channel)


# ------------------------------------------------------------------ page cache
@pytest.mark.parametrize(("reader", "level", "quick", "pause_idle"), [
    pytest.param("pagemap", "bwrap", True, False, id="pagemap-bwrap-quick"),
    *[pytest.param(r, lv, False, False, marks=pytest.mark.slow, id=f"{r}-{lv}")
      for r in ("pagemap", "smaps", "statm", "timing") for lv in ("bwrap", "gvisor")],
    pytest.param("pagemap", "bwrap", False, True, marks=pytest.mark.slow, id="pagemap-bwrap-pause_idle"),
])
def test_page_cache_channel(tmp_path: Path, reader: str, level: str, quick: bool, pause_idle: bool) -> None:
    """The sender reads one byte of the pages that stand for its cards (in a rarely read host file
    and the interpreter's own sources, evicted first); the receiver sees which are cached: by the
    kernel's fault-around (pagemap, smaps, statm) or by how fast a 1-byte read answers (timing).
    In the second game of each duplicate block it also reads the marks the first game's
    colluders left: the hands its opponents now hold (recall)."""
    env = collusion.marks_env()
    env["MARKS_READ"] = reader
    # quick (the default suite's share): one block against bots/random, 6 hands
    t = run(tmp_path, "timing" if reader == "timing" else "faultaround", level, env, pause_idle=pause_idle,
            **({"blocks": 1, "opponents": ("random",)} if quick else {}))
    print(f"{reader} at {level}{', pause_idle' if pause_idle else ''}: {t}")
    if level == "gvisor":
        expect_nothing(t, reader)
        if reader == "timing" and t.claims:  # chance is 9 * 9 / 43 = 1.9 cards of 9
            assert t.overlap / t.claims < 4, t
        return
    assert not t.refused, t
    if reader == "timing":
        assert t.exact >= 3 and t.overlap >= 5 * t.claims, t
        return
    floor = {"statm": 12}.get(reader, 18) * t.deals // 24
    assert t.exact >= floor and t.recall_exact >= floor, t


# ------------------------------------------------------------------ tempo (issue 41)
#: free: the issue's channel, 41 symbols of 30 ms (a hand in any 6 symbols read); fixed: a step
#: whose longest sleep (41 x 5 = 205 ms) fits the 300 ms slot, so the sender is never faulted and
#: the only question is whether its sleeps still show.
TEMPO = {
    "free": ({"TEMPO_STEP_MS": "30"}, {"decision_ms": 20000, "startup_ms": 30000, "bank_ms": 600000}),
    "fixed": ({"TEMPO_STEP_MS": "5"},
              {"decision_ms": 250, "slot_ms": 300, "startup_ms": 30000, "bank_ms": 600000, "tempo": "fixed"}),
}


@pytest.mark.slow
@pytest.mark.parametrize("level", ["bwrap", "gvisor"])
@pytest.mark.parametrize("tempo", ["free", "fixed"])
def test_tempo_channel(tmp_path: Path, level: str, tempo: str) -> None:
    """The sender sleeps on its plays for the symbols of its hand; the receiver reads the wall-clock
    gap between its reply and its next request. Free tempo: whole hands go through (one exact hand
    is already beyond chance by eight orders of magnitude). Fixed tempo: every answer is released at
    its slot, so the gap is the same whatever the sender slept: 0 hands, and the symbols the
    receiver reads match the ones sent no more than a constant guess would (1 in 41 on average)."""
    collusion.need(level)
    env, time_ = TEMPO[tempo]
    bot = collusion.colluder(tmp_path, "tempo", env)
    entries = [bot, collusion.BOTS / "random"]
    # one block of two 8-deal games: the sender's first hand needs 8 of its symbols read (6 right
    # decode, 8 agreeing outvote late reads), and about five gaps a deal carry one
    out = collusion.tournament(tmp_path, bot, level, blocks=1, deals=8, entries=entries, time=time_)
    t = collusion.tally(out)
    print(f"tempo {tempo} at {level}: {t}")
    assert t.deals == 2 * 8, t
    faults = [f for raw in (out / "results.jsonl").read_text().splitlines()
              for g in json.loads(raw)["games"] for f in g["faults"]]
    assert not faults, faults[:1]  # the colluder plays within the rules: nothing to fault it for
    assert t.sent >= 12, t  # the sender did send
    # the host's tempo audit flags the colluder (its sender sleeps on move, in either mode), not its opponent
    from arena.publish.tempo import audit
    from arena.results import parse_line
    lines = [parse_line(json.loads(raw)) for raw in (out / "results.jsonl").read_text().splitlines()]
    report = audit(lines).model_dump()
    print(json.dumps(report["seats"]))
    assert report["flagged"] == ["collude"], report
    # per seat: the sender (the pair's lower seat, 0 or 1) is flagged, its partner (2 or 3) only reads
    flagged = {(f["bot"], f["seat"]) for f in report["seats"] if f["flagged"]}
    assert flagged == {("collude", 0), ("collude", 1)}, report
    if tempo == "free":
        assert t.symbols >= 6 and t.symbols_right >= t.symbols // 2, t
        assert t.exact >= 1, f"{t}; receiver's stderr: {t.stderr[:1]}"
    else:
        expect_nothing(t, "tempo")
        # chance: 1 in 41 per symbol; a link that read anything would be right far more often
        assert t.symbols_right <= max(2, t.symbols // 8), t
