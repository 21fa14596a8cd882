"""One generic conformance check every rule profile must pass.

In the spirit of OpenSpiel's random-simulation test: seeded random games
under the profile, checking at every decision and every deal what must hold
whatever the rules' parameters are. ``check_profile`` returns a report and,
by default, raises ``ConformanceError`` listing the first failures.

What is checked:

* **card conservation**: hands, played cards, stock and discard pile hold
  each card at most once, and a card missing from all of them was laid
  face up (out of play);
* **points per deal**: the two sides' points plus the points out of play
  that count for nobody equal the profile's deal total; a redeal scores
  nothing;
* **information hiding**: a seat's view names only cards that seat has seen
  (dealt to it, held by it, played to a trick, laid face up, or, for the
  dealer, the cards it robbed from), and its hand is exactly its cards;
* **forced decisions are never asked**: every pending choice has at least
  two legal actions;
* **illegal actions are refused** and leave the game unchanged;
* **replay**: each game's record, through JSON, replays to the same record;
* **termination**: each deal ends within a bounded number of decisions and
  each game within its deal cap; six full tricks are played (with
  ``play: trumps_only``, only trumps, every trick closed);
* **extra cards**: under cards only in a long hand's first play, or (with
  ``extra_trumps: one_per_trick``) one under each of its first plays.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from .actions import PASS, Action, BidChoice, Choice, Discard, DiscardChoice, Play, Rob, RobChoice, SuitBidChoice
from .deal import Deal
from .chance import DealKey
from .game import Game
from .jsontext import dumps, loads
from .profile import RuleProfile
from .record import deal_record, game_record, load_record, recorded_decisions, replay

MAX_DECISIONS_PER_DEAL = 200
"""More decisions than any deal can need (4 bids x rounds, trump, 4 discards, rob, 24 cards)."""


class ConformanceError(AssertionError):
    """A profile broke an invariant; the message lists the failures with their game keys."""


@dataclass
class ConformanceReport:
    profile: str
    games: int = 0
    deals: int = 0
    redeals: int = 0
    decisions: int = 0
    finished: int = 0  # games ended by the profile's rules (not by the deal cap)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        head = (
            f"{self.profile}: {self.games} games, {self.deals} deals ({self.redeals} redeals), "
            f"{self.decisions} decisions, {self.finished} games finished by the rules"
        )
        if self.ok:
            return head + ": conforms"
        shown = "\n  ".join(self.failures[:10])
        more = f"\n  ... and {len(self.failures) - 10} more" if len(self.failures) > 10 else ""
        return f"{head}: {len(self.failures)} failure(s)\n  {shown}{more}"


def check_profile(
    profile: RuleProfile, games: int = 50, seed: int = 0, max_deals: int = 40, raise_on_failure: bool = True
) -> ConformanceReport:
    """Play ``games`` seeded random games under ``profile`` and check every invariant above."""
    report = ConformanceReport(profile.name)
    for i in range(games):
        key = f"conformance-{profile.name}-{seed}-{i}"
        try:
            _check_game(profile, key, random.Random(f"{seed}/{i}"), max_deals, report)
        except Exception as e:  # an engine crash is a failure of the profile, reported with its key
            report.failures.append(f"{key}: {type(e).__name__}: {e}")
        report.games += 1
        if len(report.failures) >= 20:
            break
    if raise_on_failure and report.failures:
        raise ConformanceError(report.summary())
    return report


def _fail(report: ConformanceReport, key: str, deal: Deal, what: str) -> None:
    report.failures.append(f"{key} deal {deal.index}: {what}")


def _check_game(profile: RuleProfile, key: str, rng: random.Random, max_deals: int, report: ConformanceReport) -> None:
    game = Game(profile, key=DealKey(key), max_deals=max_deals)
    seen: list[set[int]] = [set() for _ in range(profile.players)]
    current = -1
    in_deal = 0
    asked = 0
    while not game.over:
        deal = game.deal
        if deal.index != current:
            current, in_deal = deal.index, 0
            for s in range(deal.n):
                seen[s] = set(deal.dealt[s])
        in_deal += 1
        if in_deal > MAX_DECISIONS_PER_DEAL:
            _fail(report, key, deal, f"more than {MAX_DECISIONS_PER_DEAL} decisions: the deal does not end")
            return
        choice = game.choice
        seat = game.to_act
        if choice.seat != seat:
            _fail(report, key, deal, f"the choice is for seat {choice.seat} but seat {seat} is to act")
        if not _has_two_options(choice):
            _fail(report, key, deal, f"seat {seat} is asked a forced {choice.kind} decision: {choice.explain()}")
        _check_cards(report, key, deal)
        for s in range(deal.n):
            seen[s].update(deal.hands[s])
        _check_view(report, key, game, seat, seen[seat])
        if in_deal % 7 == 0:
            _check_illegal_refused(report, key, game, choice)
        game.apply(_random_action(choice, rng, deal.phase == "dark"))
        asked += 1
        report.decisions += 1
        if game.deal is not deal or deal.done:
            _check_deal_end(report, key, deal)
            report.deals += 1
            report.redeals += deal.redeal
    if game.end_reason != "cap":
        report.finished += 1
    if len(game.deals) > max_deals:
        report.failures.append(f"{key}: {len(game.deals)} deals played with a cap of {max_deals}")
    rec = json.loads(json.dumps(game_record(game)))
    again = replay(rec)
    if game_record(again) != rec:
        report.failures.append(f"{key}: the record does not replay to itself")
    if len(recorded_decisions(load_record(rec))) != asked:
        report.failures.append(f"{key}: the record lists a different number of asked decisions than were asked")


def _random_action(choice: Choice, rng: random.Random, dark: bool = False) -> Action:
    """Uniform over the legal options, except that a seat that may pass passes
    half the time: uniform bids are almost all high and set, so games would
    rarely end and all-pass redeals would never happen. Before the deal
    (``dark``) it passes nine times in ten: a blind bid of every point is
    nearly always set, and games of them would never reach the target."""
    if isinstance(choice, (BidChoice, SuitBidChoice)) and choice.can_pass and rng.random() < (0.9 if dark else 0.5):
        return PASS
    return choice.sample(rng)


def _has_two_options(choice: Choice) -> bool:
    """Whether the choice offers a real decision, counted from its constraints
    (not from ``only()``, the engine's own test for a forced decision)."""
    if isinstance(choice, RobChoice):
        return bool(choice.or_all) or 0 < choice.count < len(set(choice.candidates))
    if isinstance(choice, DiscardChoice):
        n = len(set(choice.candidates))
        return choice.least < choice.most or 0 < choice.least < n
    return len(set(choice.actions())) >= 2


def _check_cards(report: ConformanceReport, key: str, deal: Deal) -> None:
    places: list[int] = [c for h in deal.hands for c in h]
    for t in deal.tricks:
        for _, top, under in t.plays:
            places.append(top)
            places.extend(under)
    places += deal.stock
    places += deal.pile
    for widow in deal.widows:  # face down before a seat that has not bid yet
        places += widow
    if len(places) != len(set(places)):
        _fail(report, key, deal, "a card is in two places at once")
    missing = set(deal.deck) - set(places) - set(deal.kitty)
    if set(deal.deck) != deal.profile.deck_cards or len(deal.deck) != deal.profile.deck_size:
        _fail(report, key, deal, "the deck is not the profile's deck")
    face_up = {c for cards in deal.shown for c in cards}
    if not missing <= face_up:
        _fail(report, key, deal, f"{len(missing - face_up)} card(s) vanished without being laid face up")


def _check_view(report: ConformanceReport, key: str, game: Game, seat: int, seen: set[int]) -> None:
    deal = game.deal
    view = game.view(seat)
    public = {c for t in deal.tricks for _, top, under in t.plays for c in (top, *under)}
    public |= {c for cards in deal.shown for c in cards}
    allowed = seen | public | set(deal.received[seat]) | set(deal.discarded[seat])
    if seat == deal.dealer and deal.rob_stock:
        allowed |= set(deal.rob_stock)
    if seat == deal.dealer and deal.phase == "rob":
        allowed |= set(deal.rob_pool())
    leaked = view.cards_named() - allowed
    if leaked:
        _fail(report, key, deal, f"seat {seat}'s view names {len(leaked)} card(s) it never saw")
    if sorted(view.hand) != sorted(deal.hands[seat]):
        _fail(report, key, deal, f"seat {seat}'s view shows a hand that is not its hand")
    wire = view.to_dict()
    if loads(dumps(wire)) != wire:  # through the encoder the harness sends views with (about 3x faster)
        _fail(report, key, deal, "a view does not survive JSON")
    if deal.profile.sides == "called" and deal.phase != "done" and not deal.revealed and seat != deal.partner:
        hidden = [s for s in range(deal.n) if s not in (deal.maker, seat) and view.sides is not None and view.sides[s] is not None]
        if hidden or (view.partner is not None):
            _fail(report, key, deal, f"seat {seat}'s view shows the called partner before its card is played")


def _check_illegal_refused(report: ConformanceReport, key: str, game: Game, choice: object) -> None:
    """Offer an action no rule allows (a card from nowhere, a wrong count) and
    require the refusal to leave the record unchanged."""
    deal = game.deal
    seat = game.to_act
    foreign = [c for c in sorted(deal.profile.deck_cards) if c not in deal.hands[seat]]
    kind = getattr(choice, "kind", "")
    if kind == "play":
        bad: object = Play(foreign[0])
    elif kind == "rob":
        bad = Rob(tuple(foreign[:1]) + tuple(getattr(choice, "candidates", ())))
    elif kind == "discard":
        bad = Discard(tuple(foreign[:1]))
    else:
        bad = Play(deal.hands[seat][0]) if deal.hands[seat] else Play(0)
    before = (dumps(deal_record(deal)), game.scores, len(game.deals))  # a refusal could only touch this deal
    try:
        game.apply(bad)  # type: ignore[arg-type]
    except ValueError:
        pass
    else:
        _fail(report, key, deal, f"the illegal action {bad} was accepted")
        return
    if (dumps(deal_record(deal)), game.scores, len(game.deals)) != before:
        _fail(report, key, deal, "a refused action changed the game")


def _check_deal_end(report: ConformanceReport, key: str, deal: Deal) -> None:
    p = deal.profile
    if deal.redeal:
        if deal.scores_after != deal.scores_before or deal.maker is not None:
            _fail(report, key, deal, "a redeal changed the scores or has a maker")
        return
    if deal.points is None or deal.scores_after is None:
        _fail(report, key, deal, "a finished deal has no points")
        return
    if sum(deal.points) + deal.lost != p.deal_points:
        _fail(report, key, deal, f"points {deal.points} + {deal.lost} out of play != {p.deal_points} a deal")
    if p.play == "follow" and (len(deal.tricks) != p.hand_size or any(len(t.plays) != deal.n for t in deal.tricks)):
        _fail(report, key, deal, f"a deal did not play {p.hand_size} full tricks")
    if p.play != "follow" and (any(t.winner is None for t in deal.tricks) or len(deal.tricks) > 6):
        _fail(report, key, deal, "a trick was left open, or more than six were played")
    if p.play == "trumps_only":
        trumps = deal.table.trumps if deal.table else frozenset()
        played = [c for t in deal.tricks for _, c, _ in t.plays]
        if any(c not in trumps for c in played) or any(t.winner is None for t in deal.tricks):
            _fail(report, key, deal, "a plain card was played, or a trick was left open, when only trumps are played")
    if any(deal.hands):
        _fail(report, key, deal, "cards are left in a hand after the last trick")
    for seat in range(deal.n):  # extras go under the first card, or one under each until gone (one_per_trick)
        unders = [len(u) for t in deal.tricks for s, _, u in t.plays if s == seat]
        ok = (all(n <= 1 for n in unders) and unders == sorted(unders, reverse=True)) if p.extra_trumps == "one_per_trick" \
            else not any(unders[1:])
        if not ok:
            _fail(report, key, deal, f"seat {seat} played cards under its plays {unders}, against extra_trumps {p.extra_trumps!r}")
