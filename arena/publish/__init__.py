"""Publishing results: leaderboards (``arena rate``) and regression SPRTs (``arena sprt``).

``load`` turns results lines into rating inputs, ``provenance`` gathers the
reproducibility facts, ``board`` types the leaderboard document, ``leaderboard`` builds and renders it,
and ``rate`` ties them together for ``arena rate`` and ``arena run``.
"""

from .board import FORMAT, VERSION, BotRow, Leaderboard
from .leaderboard import build, render_html, render_markdown
from .load import BotInfo, Conversion, convert, load_blocks

__all__ = ["FORMAT", "VERSION", "BotInfo", "BotRow", "Leaderboard", "Conversion", "build", "convert", "load_blocks", "render_html", "render_markdown"]
