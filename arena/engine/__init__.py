"""The pure Cinch rules engine: no I/O, no processes, no clocks, no global randomness.

Drive a game with ``Game``: read ``game.to_act`` and ``game.choice`` (the
legal choice), ``game.view(seat)`` (what that seat may know), and call
``game.apply(action)``. Forced decisions are applied by the engine itself.
"""

from .actions import (
    PASS,
    Action,
    Bid,
    BidChoice,
    Call,
    CallChoice,
    Choice,
    Discard,
    DiscardChoice,
    IllegalAction,
    NameTrump,
    Pass,
    Play,
    PlayChoice,
    Rob,
    RobChoice,
    SuitBidChoice,
    TakeWidow,
    TrumpChoice,
    WidowChoice,
    action_from_dict,
    action_to_dict,
)
from .cards import JOKER, SUITS, Card, card_str, cards_str, parse_card, parse_cards, parse_suit
from .chance import DealKey, DeckSource, KeyedSource, derive_key
from .deal import Deal
from .dealfile import DealFile, FileSource
from .game import DEFAULT_MAX_DEALS, Game
from .kinds import AUCTION_PHASES, SUIT_NAME, DecisionKind, Narrator, ReplayWriter, cards_text, decision_kind, event_kind, option_text, register_kind, unregister_kind
from .prose import RULES, Rule, forced_bid, rules_text
from .info import DECISION_KINDS, DealFacts, PointCapture, ProfileInfo, deal_facts, profile_info
from .profile import PROFILES, PointValues, RuleProfile, get_profile, profile_names, register_profile, variant
from .record import (
    RECORD_VERSION,
    ReplayMismatch,
    deal_record,
    deal_sides,
    game_record,
    load_record,
    recorded_decisions,
    recorded_source,
    replay,
)
from .view import DealSummary, TrickView, View

__all__ = [
    "RULES", "Rule", "forced_bid", "rules_text", "AUCTION_PHASES", "SUIT_NAME", "DecisionKind", "Narrator", "ReplayWriter", "cards_text", "decision_kind", "event_kind", "option_text", "register_kind", "unregister_kind",
    "DECISION_KINDS", "DealFacts", "PointCapture", "ProfileInfo", "deal_facts", "profile_info",
    "Action", "Bid", "BidChoice", "Card", "Choice", "DEFAULT_MAX_DEALS", "Deal", "DealFile", "DealSummary", "JOKER",
    "Call", "CallChoice", "DeckSource", "Discard", "DiscardChoice", "FileSource", "Game", "IllegalAction", "KeyedSource", "NameTrump", "PASS", "PROFILES", "Pass",
    "Play", "PlayChoice", "PointValues", "RECORD_VERSION", "ReplayMismatch", "Rob", "RobChoice", "RuleProfile", "SuitBidChoice",
    "SUITS", "TakeWidow", "TrickView", "TrumpChoice", "View", "WidowChoice", "action_from_dict", "action_to_dict", "card_str", "cards_str",
    "deal_record", "deal_sides", "DealKey", "derive_key", "game_record", "get_profile", "profile_names", "register_profile", "load_record", "parse_card", "parse_cards",
    "parse_suit", "recorded_decisions", "recorded_source", "replay", "variant",
]
