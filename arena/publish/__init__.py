"""Publishing results: leaderboards (``arena rate``) and regression SPRTs (``arena sprt``).

``load`` turns results lines into rating inputs, ``provenance`` gathers the
reproducibility facts, ``leaderboard`` builds and renders the documents,
``sprt`` holds the pure sequential-decision logic, ``cli`` the commands.
"""

from .leaderboard import FORMAT, VERSION, build, render_html, render_markdown
from .load import BotInfo, Conversion, LoadedResults, ResultsError, convert, load_blocks, read_results
from .sprt import MatchupStatus, MatchupTest, SPRTRun, drive

__all__ = [
    "FORMAT", "VERSION", "BotInfo", "Conversion", "LoadedResults", "MatchupStatus", "MatchupTest", "ResultsError",
    "SPRTRun", "build", "convert", "drive", "load_blocks", "read_results", "render_html", "render_markdown",
]
