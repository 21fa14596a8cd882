"""Deal files: published sets of decks, the Cinch counterpart of an opening book.

A deal file fixes the first dealer and the deck of each deal (top card
first, after the cut), plus the key its discard reshuffles are drawn from,
so the same benchmark deals are replayed for every pairing. A game that
outlasts the file continues from its own seeded stream, and its records say
so (``origin: "key-after-file"``). Records carry each deal's reshuffle key,
so a deal-file game can be dealt again from its record without the file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .cards import ALL_CARDS, JOKER, NUM_CARDS, Card, cards_str, parse_cards
from .chance import DealKey
from .chance import deck as keyed_deck
from .chance import first_dealer as keyed_first_dealer
from .chance import reshuffle as keyed_reshuffle
from .profile import RuleProfile

DEALFILE_FORMAT = "cinch-deals"
DEALFILE_VERSION = 1


class FileDeal(BaseModel):
    model_config = ConfigDict(extra="forbid")
    deck: list[str] = Field(description="52 cards, top first; 53 with the joker JK (profiles with joker)")
    reshuffle_key: str = Field(description="reshuffle j of deal k is F(reshuffle_key, k, j)")

    @field_validator("deck")
    @classmethod
    def _full_deck(cls, v: list[str]) -> list[str]:
        cards = parse_cards(v)
        n = ALL_CARDS if JOKER in cards else NUM_CARDS
        if len(cards) != n or set(cards) != set(range(n)):
            raise ValueError("a deck must hold each of the 52 cards exactly once (and the joker JK once, "
                             f"for a profile with the joker); this one has {len(cards)} cards, {len(set(cards))} different")
        return v


class DealFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: str = DEALFILE_FORMAT
    version: int = DEALFILE_VERSION
    first_dealer: int = Field(ge=0, le=5)
    deals: list[FileDeal] = Field(min_length=1)

    @field_validator("format")
    @classmethod
    def _format(cls, v: str) -> str:
        if v != DEALFILE_FORMAT:
            raise ValueError(f"not a deal file (format {v!r}, expected {DEALFILE_FORMAT!r})")
        return v

    @field_validator("version")
    @classmethod
    def _version(cls, v: int) -> int:
        if v != DEALFILE_VERSION:
            raise ValueError(f"deal file version {v} is not supported (reads {DEALFILE_VERSION})")
        return v

    @classmethod
    def from_key(cls, key: DealKey, n: int, cards: int = NUM_CARDS) -> "DealFile":
        """Export the first ``n`` deals of a key's seeded stream (``cards``: 53 for
        profiles with the joker, see ``RuleProfile.shuffled_cards``)."""
        return cls(
            first_dealer=keyed_first_dealer(str(key)),
            deals=[FileDeal(deck=cards_str(keyed_deck(str(key), k, cards)), reshuffle_key=str(key)) for k in range(n)],
        )

    def check_profile(self, profile: RuleProfile) -> None:
        """Refuse a file whose decks the profile cannot deal (a 52-card deck for a
        profile with the joker, or the joker for one without), naming the deal."""
        want = profile.shuffled_cards
        for k, d in enumerate(self.deals):
            if len(d.deck) != want:
                has = "with the joker JK" if len(d.deck) == ALL_CARDS else "without the joker"
                needs = "the 52 cards and the joker JK" if profile.joker else "the 52 cards, no joker"
                raise ValueError(f"deals.{k}.deck: {len(d.deck)} cards ({has}), but profile {profile.name!r} deals {needs}")

    @classmethod
    def load(cls, path: str | Path) -> "DealFile":
        return cls.model_validate(json.loads(Path(path).read_text()))

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.model_dump_json(indent=1) + "\n")


class FileSource:
    """Decks from a deal file; past its end, the game's own key takes over."""

    def __init__(self, dealfile: DealFile, key: DealKey) -> None:
        self.file = dealfile
        self.key = DealKey(str(key))
        self._decks = [parse_cards(d.deck) for d in dealfile.deals]

    def first_dealer(self, players: int = 4) -> int:
        return self.file.first_dealer

    def deck(self, k: int, cards: int = NUM_CARDS) -> list[Card]:
        if k < len(self._decks):
            return list(self._decks[k])
        return keyed_deck(self.key, k, cards)

    def reshuffle(self, k: int, j: int, pile: Sequence[Card]) -> list[Card]:
        if k < len(self._decks):
            return keyed_reshuffle(self.file.deals[k].reshuffle_key, k, j, pile)
        return keyed_reshuffle(self.key, k, j, pile)

    def origin(self, k: int) -> str:
        return "file" if k < len(self._decks) else "key-after-file"

    def reshuffle_key(self, k: int) -> str | None:
        return self.file.deals[k].reshuffle_key if k < len(self._decks) else self.key
