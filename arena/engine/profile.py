"""Rule profiles: the rule variants of the seeds as data, not code forks.

``pagat62`` is the default and the only profile whose every field is the
docs/rules.md default. Fields whose other values are not implemented yet are
still modelled so a variant is a parameter change; asking for an
unimplemented value is refused at validation time, naming the field.
"""

from __future__ import annotations

from functools import cached_property, lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .cards import RANK_2, RANK_5, RANK_A, RANK_J, RANK_T, TRUMP_TABLES, make_card, sister


class PointValues(BaseModel):
    """Points carried by each point card (all of them trumps)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    high: int = 1
    jack: int = 1
    game: int = 1
    right_pedro: int = 5
    left_pedro: int = 5
    low: int = 1

    @property
    def total(self) -> int:
        return self.high + self.jack + self.game + self.right_pedro + self.left_pedro + self.low


class RuleProfile(BaseModel):
    """One set of Cinch rules; docs/rules.md, section Profiles, lists them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "pagat62"
    target: int = Field(62, ge=1, description="score that wins the game (rules 8)")
    deciding_threshold: int = Field(
        55, description="both sides at or above this before a deal make it a deciding deal (bidder goes out)"
    )
    min_bid: int = Field(7, ge=1)
    max_bid: int = Field(14, ge=1)
    dealer_forced_bid: int | None = Field(
        7, description="bid the dealer must make when the other three pass; None would mean a redeal"
    )
    hand_size: int = Field(6, ge=1, description="cards each hand is filled to after the discard")
    points: PointValues = PointValues()
    low_goes_to: Literal["holder", "capturer"] = "holder"
    scoring: Literal["standard", "difference"] = "standard"
    extra_trumps: Literal["play_under", "discard"] = "play_under"
    rob_from: Literal["stock", "stock_and_discards"] = "stock"

    @model_validator(mode="after")
    def _check(self) -> "RuleProfile":
        if self.min_bid > self.max_bid:
            raise ValueError(f"min_bid ({self.min_bid}) is above max_bid ({self.max_bid})")
        if self.dealer_forced_bid is None:
            raise ValueError("dealer_forced_bid: None (redeal when all pass) is not implemented yet")
        if not self.min_bid <= self.dealer_forced_bid <= self.max_bid:
            raise ValueError(
                f"dealer_forced_bid ({self.dealer_forced_bid}) is outside the bid range "
                f"{self.min_bid}-{self.max_bid}"
            )
        if self.extra_trumps != "play_under":
            raise ValueError("extra_trumps: only 'play_under' is implemented yet")
        if self.rob_from != "stock":
            raise ValueError("rob_from: only 'stock' is implemented yet")
        if self.hand_size != 6:
            raise ValueError("hand_size: only 6 is implemented yet")
        return self

    @cached_property
    def _tables(self) -> tuple[tuple[tuple[int, ...], frozenset[int]], ...]:
        """Point table and pointless trumps per trump suit, built once per profile
        (hashing a pydantic model per deal would cost more than the deal's scoring)."""
        return tuple((_point_table(self.points, t), _pointless(self.points, t)) for t in range(4))

    def point_table(self, trump: int) -> tuple[int, ...]:
        """Points of each of the 52 cards once ``trump`` is named."""
        return self._tables[trump][0]

    def low_card(self, trump: int) -> int:
        return make_card(RANK_2, trump)

    def pointless_trumps(self, trump: int) -> frozenset[int]:
        """Trumps that may be played under the top card (rules 6, extra cards)."""
        return self._tables[trump][1]


@lru_cache(maxsize=64)
def _point_table(p: PointValues, trump: int) -> tuple[int, ...]:
    table = [0] * 52
    table[make_card(RANK_A, trump)] = p.high
    table[make_card(RANK_J, trump)] = p.jack
    table[make_card(RANK_T, trump)] = p.game
    table[make_card(RANK_5, trump)] = p.right_pedro
    table[make_card(RANK_5, sister(trump))] = p.left_pedro
    table[make_card(RANK_2, trump)] = p.low
    return tuple(table)


@lru_cache(maxsize=64)
def _pointless(p: PointValues, trump: int) -> frozenset[int]:
    pts = _point_table(p, trump)
    return frozenset(c for c in TRUMP_TABLES[trump].trumps if pts[c] == 0)


#: The registered profiles by name. Add one with ``register_profile``.
PROFILES: dict[str, RuleProfile] = {"pagat62": RuleProfile()}


def register_profile(profile: RuleProfile) -> RuleProfile:
    """Make ``profile`` known by its name (a name taken by a different profile is refused)."""
    known = PROFILES.get(profile.name)
    if known is not None and known != profile:
        raise ValueError(f"rule profile {profile.name!r} is already registered with other parameters")
    PROFILES[profile.name] = profile
    return profile


def profile_names() -> list[str]:
    """Registered profile names, sorted."""
    return sorted(PROFILES)


def get_profile(name: str) -> RuleProfile:
    try:
        return PROFILES[name]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(name, PROFILES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown rule profile {name!r}{hint}; known: {', '.join(profile_names())}") from None
