"""Colluding partners in a real round robin, channel by channel and level by level (issue 31).

Each test runs `arena run` on a round robin of hostile/collude.py (self-partnered, both seats of
one side) against bots/random and bots/heuristic, then counts the hands the receivers claimed
exactly against the game records (collusion.py). The sender passes its dealt hand (nine cards,
one of C(52, 9) = 3.7e9): an exact claim by chance has odds of about 1 in 5.6e8 (the receiver
knows its own nine cards), so where a channel is noisy a few exact hands already prove it.

Thresholds, for 2 blocks of 3-deal games (the colluder plays 2 pairings x 2 blocks x 2 games x
3 deals = 24 hands):

* quiet counters (cookies, the shmem inode counter of memfds and shared anonymous maps): the link
  is stop-and-wait (a window is sent only after the receiver read the last one), so load slows
  it and loses nothing; a hand is lost when its game ends before its windows are through (3 of
  about 4 windows a deal), or when another process on the same CPU draws from the counter in a
  window. Measured 20-24 of 24; asserted 12.
* pipe inodes (get_next_ino, which every pipe and socket on the CPU draws from) and pidfd inodes
  (one host-wide sequence moved by every process and thread the host starts): noisy under load by
  nature. Asserted: at least 2 exact hands (measured 12-16 pipes, 2-7 pidfds), each beyond
  chance by eight orders of magnitude.
* page-cache marks read by fault-around: no timing at all, so exact unless something else reads
  the marked pages. Measured 24 of 24 (pagemap, smaps), 20 (statm, whose resident count also
  moves with the bot's own heap); asserted 18 and 12.
* read timing (cached 7-50 us, cold 48-71 us here): noisy under load. Asserted: 3 exact hands
  and at least 5 of the 9 cards right per claim on average (chance: 1.9). Measured 22-23 of 24.

At level gvisor every channel must pass 0 hands. At bwrap, the channels the seccomp filter can
close (cookies, memfd_create, pidfd_open, CLONE_PIDFD: issue 31 item 6) must be refused or pass
0 hands, with a control at level none proving the same bots pass them there.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from . import collusion

#: Refused by the filter at bwrap (issue 31 item 6), so 0 hands there; a control at none.
RULED = ("cookie", "memfd", "pidfd", "clonepidfd")
#: Still open at bwrap: one kernel's counter no rule can close without breaking runtimes.
OPEN = ("shmanon", "pipe")
#: Host-wide or shared with every pipe and socket: a demonstration, not a count.
NOISY = {"pipe": 2, "pidfd": 1, "clonepidfd": 1}
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
@pytest.mark.slow
@pytest.mark.parametrize("channel", RULED + OPEN)
@pytest.mark.parametrize("level", ["none", "bwrap", "gvisor"])
def test_counter_channel(tmp_path: Path, channel: str, level: str) -> None:
    if level == "none" and channel in OPEN:
        pytest.skip("open at bwrap already: its bwrap test is the proof")
    t = run(tmp_path, channel, level)
    print(f"{channel} at {level}: {t}")
    if level == "gvisor" or (level == "bwrap" and channel in RULED):
        expect_nothing(t, channel)
    else:
        expect_passes(t, channel)


@pytest.mark.slow
def test_counter_channel_with_idle_seats_frozen(tmp_path: Path) -> None:
    """time.pause_idle: a seat not on move is stopped. The link waits for the receiver's reading,
    not for time, so freezing carries the hands all the same."""
    t = run(tmp_path, "shmanon", "bwrap", pause_idle=True)
    print(f"shmanon at bwrap, pause_idle: {t}")
    expect_passes(t, "shmanon")


# ------------------------------------------------------------------ page cache
@pytest.mark.parametrize(("reader", "level", "quick"), [
    pytest.param("pagemap", "bwrap", True, id="pagemap-bwrap-quick"),
    *[pytest.param(r, lv, False, marks=pytest.mark.slow, id=f"{r}-{lv}")
      for r in ("pagemap", "smaps", "statm", "timing") for lv in ("bwrap", "gvisor")],
])
def test_page_cache_channel(tmp_path: Path, reader: str, level: str, quick: bool) -> None:
    """The sender reads one byte of the pages that stand for its cards (in a rarely read host file
    and the interpreter's own sources, evicted first); the receiver sees which are cached: by the
    kernel's fault-around (pagemap, smaps, statm) or by how fast a 1-byte read answers (timing).
    In the second game of each duplicate block it also reads the marks the first game's
    colluders left: the hands its opponents now hold (recall)."""
    env = collusion.marks_env()
    env["MARKS_READ"] = reader
    # quick (the default suite's share): one block against bots/random, 6 hands
    t = run(tmp_path, "timing" if reader == "timing" else "faultaround", level, env,
            **({"blocks": 1, "opponents": ("random",)} if quick else {}))
    print(f"{reader} at {level}: {t}")
    if level == "gvisor":
        expect_nothing(t, reader)
        if reader == "timing" and t.claims:  # chance is 9 * 9 / 43 = 1.9 cards of 9
            assert t.overlap / t.claims < 4, t
        return
    hands = t.deals
    assert not t.refused, t
    if reader == "timing":
        assert t.exact >= 3 and t.overlap >= 5 * t.claims, t
        return
    floor = {"statm": 12}.get(reader, 18) * hands // 24
    assert t.exact >= floor and t.recall_exact >= floor, t


@pytest.mark.slow
def test_page_cache_channel_with_idle_seats_frozen(tmp_path: Path) -> None:
    env = collusion.marks_env()
    t = run(tmp_path, "faultaround", "bwrap", env, pause_idle=True)
    print(f"pagemap at bwrap, pause_idle: {t}")
    assert t.exact >= 18 and t.recall_exact >= 18, t
