"""Publishing results: leaderboards (``arena rate``) and regression SPRTs (``arena sprt``).

``load`` turns results lines into rating inputs, ``provenance`` gathers the
reproducibility facts, ``leaderboard`` builds and renders the documents,
and ``rate`` ties them together for ``arena rate`` and ``arena run``.
"""

from .leaderboard import FORMAT, VERSION, build, render_html, render_markdown
from .load import BotInfo, Conversion, convert, load_blocks

__all__ = ["FORMAT", "VERSION", "BotInfo", "Conversion", "build", "convert", "load_blocks", "render_html", "render_markdown"]
