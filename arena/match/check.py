"""The conformance checker (``arena check-bot``): is a bot ready for a tournament?

It runs the bot through the handshake, then through probe positions that
hit the protocol's edge cases (a bid history with a forced dealer bid, the
rob, the rob after the stock ran out, extra cards under the top card), and
in full mode through whole games with the bot in every seat. Every answer is
checked against the engine's legal choice; latencies are summarised.

Everything is played under the settings' rule profile: probe positions are
found by scanning seeded random games of that profile (so the same
positions are used every time, and a decision kind the profile adds gets a
probe of its own), and the hand-built reshuffle rob uses its bid range.
Each probe is sent to a fresh bot process as a single decision (bots must
be able to decide from the request alone).
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Callable

from ..engine import (
    DECISION_KINDS,
    PASS,
    Action,
    Bid,
    BidChoice,
    DealFile,
    FileSource,
    Game,
    IllegalAction,
    NameTrump,
    RuleProfile,
    SuitBidChoice,
    cards_str,
    decision_kind,
    parse_card,
    parse_suit,
    profile_info,
)
from ..engine.cards import JOKER
from ..engine.dealfile import FileDeal
from ..players import BotEntry, Fault, require_profile
from ..players.process import STDERR_TAIL
from ..protocol import wire
from .game import close_all, game_start_notice, play_game
from .keys import DealKey, bot_seed
from .settings import MatchSettings

STDERR_LINES = 12  # lines of a faulting bot's stderr shown to a person
#: The named probes (edge cases and the plain decision kinds); a profile that
#: adds a decision kind also gets a probe named after that kind, and one with
#: the joker a ``joker_play`` (JK among the legal cards).
PROBES = ("forced_bid_history", "bid", "top_bid", "trump", "rob", "rob_after_reshuffle", "extra_cards", "play")
#: At a called-partner table (five-hand, railroad) every play comes after the call and stands for one
#: of these: the called card not yet played (a defender does not know its partners, the maker not its
#: partner), the partnership public, or the maker without a partner (gone alone, or a card nobody held).
CALLED_PLAYS = ("play_partner_hidden", "play_partner_known", "play_maker_alone")


def describe_evidence(fault: Fault, indent: str = "    ") -> str:
    """The offending line and the tail of the bot's stderr, for a person to read."""
    out = ""
    if fault.reply:
        shown = fault.reply if len(fault.reply) <= 200 else fault.reply[:200] + f"... ({len(fault.reply)} chars)"
        out += f"\n{indent}the bot sent: {shown!r}"
    if fault.stderr:
        lines = fault.stderr.rstrip("\n").splitlines()[-STDERR_LINES:]
        out += f"\n{indent}its stderr ended with:" + "".join(f"\n{indent}  | {ln[:300]}" for ln in lines)
    return out


@dataclass
class Violation:
    where: str
    fault: Fault

    def line(self) -> str:
        return f"[{self.where}] {self.fault.kind}: {self.fault.text}" + describe_evidence(self.fault)


@dataclass
class CheckReport:
    bot: str
    profile: str = "pagat62"
    violations: list[Violation] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    decisions: int = 0
    probes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def latency_summary(self) -> dict[str, float]:
        xs = sorted(self.latencies_ms)
        if not xs:
            return {}

        def pct(p: float) -> float:
            return round(xs[min(len(xs) - 1, int(p * len(xs)))], 2)

        return {"n": len(xs), "p50": pct(0.5), "p90": pct(0.9), "p99": pct(0.99), "max": round(xs[-1], 2), "mean": round(statistics.fmean(xs), 2)}

    def summary(self) -> str:
        head = (f"{self.bot}: {'CONFORMS' if self.ok else 'FAILS'} under rule profile {self.profile} "
                f"({self.decisions} decisions, probes: {', '.join(self.probes)})")
        lat = self.latency_summary()
        lines = [head]
        if lat:
            lines.append("  latency ms: " + ", ".join(f"{k} {v}" for k, v in lat.items()))
        lines += ["  " + v.line() for v in self.violations]
        return "\n".join(lines)


def _situation(game: Game) -> str:
    """The probe a position stands for: an edge case's name, else the decision kind (the kind says which)."""
    return decision_kind(game.choice.kind).situation(game.choice, game.deal)


_MIN_SCAN = 300  # keys scanned even once every named probe is found: a profile's own kinds turn up too
_MAX_SCAN = 5000


#: Probes that stand for another too, as the kinds declare them.
_ALIASES = {k: v for kind in DECISION_KINDS for k, v in decision_kind(kind).probe_aliases.items()}


def _expected_probes(profile: RuleProfile) -> set[str]:
    """Named probes the scan should find under ``profile`` (the hand-built one aside): each
    decision kind of the profile, as the engine declares them, says which positions it makes."""
    return set().union(*(decision_kind(k).probes(profile) for k in profile_info(profile).decision_kinds))


@lru_cache(maxsize=64)
def _scanned(profile: RuleProfile) -> dict[str, tuple[DealKey, int]]:
    """(key, decisions before it) of one seeded random position per probe, under ``profile``.

    Besides the named edge cases, every decision kind the profile offers gets
    a probe, so a profile that adds a kind is checked without a change here.
    """
    found: dict[str, tuple[DealKey, int]] = {}
    wanted = _expected_probes(profile)
    for i in range(_MAX_SCAN):
        key = DealKey(f"probe-{i}")
        game = Game(profile, key=key)
        n = 0
        while not game.over and len(game.deals) == 1:
            kind = _situation(game)
            if kind not in found:
                found[kind] = (key, n)
            game.apply(_scan_action(game, random.Random(f"{key}/{n}")))
            n += 1
        # a probe may stand for its kind's plain one too (at five or six seats the stock nearly always
        # runs out before the rob: that rob stands for it)
        got = found.keys() | {_ALIASES[k] for k in found if k in _ALIASES}
        if wanted <= got and i + 1 >= _MIN_SCAN:
            break
    return found


def _scan_action(game: Game, rng: random.Random) -> Action:
    """A random legal action that passes half the time where passing is allowed (nine in
    ten in the dark): uniform bids would almost never leave the dealer to bid after three
    passes, and the positions after a forced bid would go unprobed."""
    choice = game.choice
    if isinstance(choice, BidChoice | SuitBidChoice) and choice.can_pass:
        if rng.random() < (0.9 if game.deal.phase == "dark" else 0.5):
            return PASS
    return choice.sample(rng)


def _scanned_position(profile: RuleProfile, key: DealKey, n: int) -> Game:
    game = Game(profile, key=key)
    for i in range(n):
        game.apply(_scan_action(game, random.Random(f"{key}/{i}")))
    return game


def _reshuffle_position(profile: RuleProfile) -> Game:
    """A rob after the stock ran out during the fill (docs/rules.md 5.3), built by hand.

    Seat 0 deals; seats 1-3 hold no hearts and not the 5 of diamonds, seat 1
    bids the profile's lowest bid in hearts, so the three of them need 18
    cards from a stock of 16 (17 with the joker, dealt last).
    """
    trumps = [parse_card(r + "H") for r in "23456789TJQKA"] + [parse_card("5D")]
    plain = [c for c in range(52) if c not in trumps]
    hands = {1: plain[0:9], 2: plain[9:18], 3: plain[18:27], 0: trumps[0:3] + plain[27:33]}
    stock = trumps[3:] + plain[33:] + ([JOKER] if profile.joker else [])
    deck: list[int] = []
    for r in range(3):
        for seat in (1, 2, 3, 0):
            deck += hands[seat][3 * r : 3 * r + 3]
    deck += stock
    source = FileSource(DealFile(first_dealer=0, deals=[FileDeal(deck=cards_str(deck), reshuffle_key="probe")]), DealKey("probe"))
    game = Game(profile, source=source)
    for action in (Bid(profile.min_bid), PASS, PASS, PASS, NameTrump(parse_suit("H"))):
        game.apply(action)
    return game


def _built_position(profile: RuleProfile) -> Callable[[], Game] | None:
    """The hand-built reshuffle rob, if the engine can build it under ``profile``
    (a profile with other deals, bidding or fill rules may not have this position)."""
    try:
        game = _reshuffle_position(profile)
    except (IllegalAction, ValueError, RuntimeError):
        return None
    if game.over or _situation(game) != "rob_after_reshuffle":
        return None
    return partial(_reshuffle_position, profile)


def probe_positions(profile: RuleProfile | None = None) -> dict[str, Callable[[], Game]]:
    """A builder of one position per probe under ``profile`` (default pagat62), the same every time."""
    profile = profile or RuleProfile()
    out: dict[str, Callable[[], Game]] = {
        k: partial(_scanned_position, profile, key, n) for k, (key, n) in _scanned(profile).items()}
    built = _built_position(profile)  # (four seats: the hand-built one; else a scanned one, if any)
    if built is not None:
        out["rob_after_reshuffle"] = built
    return dict(sorted(out.items()))


#: Faults after which no further probe can tell anything new: the bot is
#: gone, silent, or not speaking the protocol. An illegal or malformed
#: answer to one probe says nothing of the next, so those probes go on.
FATAL_KINDS = frozenset({"timeout", "crash", "protocol", "sandbox"})


def _ask(entry: BotEntry, settings: MatchSettings, game: Game, where: str, report: CheckReport, seed: int) -> bool:
    """Ask one probe in a fresh bot process; True if its verdict is fatal (stop probing).

    Any fault of the handshake is fatal, and so is a fault of `FATAL_KINDS`.
    """
    seat = game.to_act
    player = settings.player(entry, seed)
    fatal = False
    try:
        fault = player.start()
        fatal = fault is not None
        if fault is None:
            player.notify(game_start_notice(settings)(seat, seed))
            if game.deal.phase != "dark":  # a bid in the dark comes before the deal notice
                player.notify(wire.deal_start(game, seat))
            choice = game.choice
            req = wire.decide(game, seat, choice, 1)
            answer = player.decide(req)
            report.decisions += 1
            fault = answer.fault
            if fault is None:
                report.latencies_ms.append(answer.latency_s * 1000)
                if not choice.is_legal(answer.action):
                    fault = Fault("illegal", f"{answer.action} is not legal: {choice.explain()}", req, answer.reply_text)
        if fault is not None:
            fatal = fatal or fault.kind in FATAL_KINDS
            report.violations.append(Violation(where, fault))
    finally:
        (rep,) = close_all([player])
    if report.violations and report.violations[-1].where == where and report.violations[-1].fault.stderr is None:
        report.violations[-1].fault.stderr = rep.stderr[-STDERR_TAIL:] or None
    return fatal


def check_entry(entry: BotEntry, settings: MatchSettings | None = None, *, games: int = 0) -> CheckReport:
    """Run the probes (and ``games`` full games with the bot in every seat) under
    the settings' rule profile; a bot whose manifest does not list that profile
    is refused first (``ProfileRefused``), before anything is played. The
    check stops at the first fatal verdict (``FATAL_KINDS``, or any fault of
    the handshake): ``report.probes`` lists the probes actually asked."""
    settings = settings or MatchSettings()
    if settings.time.fixed:  # a check has no partner to hide tempo from: answers go at once, not a slot late
        settings = settings.model_copy(update={"time": settings.time.model_copy(update={"tempo": "free"})})
    require_profile(entry, settings.profile.name)
    report = CheckReport(entry.name, profile=settings.profile.name)
    for i, (kind, build) in enumerate(probe_positions(settings.profile).items()):
        report.probes.append(kind)
        if _ask(entry, settings, build(), f"probe {kind}", report, seed=i):
            return report  # the first fatal verdict ends the check: no probe or game would add to it
    for g in range(games):
        key = DealKey(f"check-game-{g}")
        players = [settings.player(entry, bot_seed(key, 0, s)) for s in range(settings.profile.players)]
        try:
            result = play_game(players, settings, key)
        finally:
            reports = close_all(players)
        for r in reports:
            report.latencies_ms += r.latencies_ms
            report.decisions += len(r.latencies_ms)
        for f in result.faults:
            if f.fault.stderr is None:
                f.fault.stderr = reports[f.seat].stderr[-STDERR_TAIL:] or None
            report.violations.append(Violation(f"game {key} seat {f.seat} decision {f.decision}", f.fault))
    return report
