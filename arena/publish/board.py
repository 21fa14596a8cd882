"""The leaderboard document as types: what ``leaderboard.json`` holds (docs/leaderboards.md), read by attribute.

The document is built once from a rating (``leaderboard.build``), marked with its versions
(``versions.mark``) and then only read: by the Markdown and HTML renderers, the live table, the site and
the server's final standings. Pydantic models because the document is written as JSON (``to_json``) and
a reader of a written file (a test, a host's script) gets it back with ``Leaderboard.model_validate``.
Field order is the file's key order, so the file stays what it was when the document was a dict.

Numbers are cleaned on the way in (``Num``: rounded to 6 places, a non-finite float becomes null), so what
a renderer prints is what the file says.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, SerializerFunctionWrapHandler, model_serializer


from .provenance import Provenance

FORMAT = "cinch-leaderboard"
VERSION = 1


def clean_number(x: Any) -> Any:
    """JSON-safe number: non-finite floats become null, floats are rounded to 6 places."""
    if isinstance(x, float):
        return round(x, 6) if math.isfinite(x) else None
    return x


#: a figure of the document: rounded, ``None`` where it is not finite (or not known)
Num = Annotated[float | None, BeforeValidator(clean_number)]
#: a figure that is always finite (a fitted rating, a score)
Fin = Annotated[float, BeforeValidator(clean_number)]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BotRow(_Doc):
    """One bot version's row: its rating, interval, counts and, once marked, whether it is ranked."""

    rank: int | None
    bot: str
    name: str
    version: str | None
    digest: str | None
    rating: Fin
    ci_low: Num
    ci_high: Num
    interval_df: int | None
    interval_withheld: str | None
    games: int
    score: Fin
    score_pct: Num
    wins: int
    draws: int
    losses: int
    forfeits: int
    faults: dict[str, int]
    faults_total: int
    latest: bool = True  # the name's ranked version (``versions.mark``)
    superseded_by: str | None = None  # the ranked version's id, for an earlier one

    @property
    def wdl(self) -> str:
        return f"{self.wins}-{self.draws}-{self.losses}"


class CrossRow(_Doc):
    """Head-to-head of two partnerships (or two bots at tables), from ``first``'s side."""

    first: str
    second: str
    games: int
    wins: int
    draws: int
    losses: int
    score: Fin
    score_pct: Num


class Anchor(_Doc):
    kind: str  # "bot" or "mean"
    bot: str | None
    rating: Fin


class RatingInfo(_Doc):
    """How the ratings were fitted and their intervals drawn."""

    scale: str
    model: str
    anchor: Anchor
    anchor_text: str
    prior: bool
    interval_level: Fin
    interval_method: str
    interval_min_df: int
    bootstrap: int
    bootstrap_failures: int
    bootstrap_unit: str
    seed: int
    interval_note: str | None
    anchor_pending: str | None = None  # early results whose anchor has not played yet: the anchor's name

    @model_serializer(mode="wrap")
    def _without_pending(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """``anchor_pending`` is in the file only when there is one (as it always was)."""
        out: dict[str, object] = handler(self)
        if self.anchor_pending is None:
            out.pop("anchor_pending", None)
        return out


class ResultsInfo(_Doc):
    file: str
    sha256: str
    lines: int
    torn_last_line: bool
    duplicates: int


class Luck(_Doc):
    """How much the cards decide (``ratings.LuckSummary``, cleaned)."""

    statistic: str
    rho: Num
    rho_ci: tuple[Num, Num] | None
    factor: Num
    factor_ci: tuple[Num, Num] | None
    blocks: int
    note: str | None
    rotations: int


class MakerAdvantage(_Doc):
    """The maker's side's fitted advantage at a called-partner table."""

    rating: Fin
    ci_low: Num
    ci_high: Num
    df: int | None
    withheld: str | None


class TableInfo(_Doc):
    """A leaderboard of tables of n seats: what its contests are and how many."""

    seats: int
    contests: str  # "finish" or "deal"
    contest_count: int
    maker_advantage: MakerAdvantage | None


class RetiredRow(_Doc):
    name: str
    digest: str
    version: str | None


class Leaderboard(_Doc):
    """The whole document (``format: cinch-leaderboard``, ``version: 1``)."""

    format: str = FORMAT
    version: int = VERSION
    provenance: Provenance
    results: ResultsInfo
    rating: RatingInfo
    games: int
    blocks: int
    flags: dict[str, int]
    bots: list[BotRow]
    crosstable: list[CrossRow]
    los: dict[str, dict[str, Num]]  # los[a][b]: how likely a is the stronger; None where withheld
    luck: Luck
    luck_points: Luck | None
    table: TableInfo | None  # a table of n seats; None for two pairs
    retired: list[RetiredRow] = []  # versions left out of the fit (``versions.mark``)

    def to_json(self) -> str:
        """``leaderboard.json``'s text."""
        return json.dumps(self.model_dump(mode="json"), indent=1, sort_keys=False) + "\n"

    def ranked(self) -> list[BotRow]:
        """The rows the ranking shows: each name's latest version."""
        return [r for r in self.bots if r.latest]

    def earlier(self) -> list[BotRow]:
        """Earlier versions: their games count, they are not ranked."""
        return [r for r in self.bots if not r.latest]

    def row(self, bot: str) -> BotRow | None:
        return next((b for b in self.bots if b.bot == bot), None)
