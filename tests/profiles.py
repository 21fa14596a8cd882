"""A variant rule profile for the plumbing tests, and the profiles every check covers.

The variant uses only parameters the engine implements today, each set away
from its pagat62 value, so a test that passes under it cannot be leaning on
pagat62's numbers. It is registered only while a test needs it (the
``variant`` fixture), so the registry other tests see stays as shipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from arena.engine import PROFILES, PointValues, RuleProfile, profile_names, register_profile

VARIANT = RuleProfile(
    name="testvariant",
    target=31,
    deciding_threshold=25,
    min_bid=6,
    max_bid=14,
    dealer_forced_bid=6,
    points=PointValues(jack=2, game=2),
    low_goes_to="capturer",
    scoring="difference",
    set_rule="points_plus_bid",
)


@pytest.fixture
def variant() -> Iterator[RuleProfile]:
    """``VARIANT``, registered by name for the test's duration."""
    added = VARIANT.name not in PROFILES
    register_profile(VARIANT)
    try:
        yield VARIANT
    finally:
        if added:
            PROFILES.pop(VARIANT.name, None)


def profiles_under_test() -> list[RuleProfile]:
    """Every registered profile and the variant: profiles registered later are covered as they come."""
    out = [PROFILES[n] for n in profile_names()]
    return out + ([VARIANT] if VARIANT.name not in PROFILES else [])


def four_seat_profiles_under_test() -> list[RuleProfile]:
    """The profiles of two fixed pairs among ``profiles_under_test``: what the SDK's four-hand
    models (its follow rule, the solver) are written for."""
    return [p for p in profiles_under_test() if p.sides == "pairs" and p.players == 4]


#: One profile of each mechanism family (rob kinds, discard kinds, play rules, kitty, widow, joker,
#: bids in the dark, tables of three and five, the called partner) and the variant. A per-profile
#: check that takes a second or more runs on these in the default suite and on every profile under
#: ``-m slow``, which CI runs as well: the default suite keeps its two minutes as profiles are added.
QUICK_PROFILES = frozenset({
    "pagat62", "california", "bicycle", "eighty-three-joker", "lipton", "louisiana-dark", "monterey-widow",
    "oregon", "pidro", "ru51", "cutthroat-3", "five-hand", "railroad", VARIANT.name,
})


def quick_first(items: list[Any], quick: frozenset[str] = QUICK_PROFILES) -> list[Any]:
    """``items`` (profiles or their names) for a parametrize: those outside ``quick`` marked slow."""
    return [x if getattr(x, "name", x) in quick else pytest.param(x, marks=pytest.mark.slow)
            for x in items]
