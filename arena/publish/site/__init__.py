"""The competition's static site: leaderboard, bot pages, matchups, and every game replayable.

``collect`` reads results files and their runs, ``stats`` computes the Cinch
statistics from the records, ``model`` gathers every number a page shows,
``charts`` and ``pages`` make the views the templates (``arena/publish/templates/site``) render, ``build`` writes the folder. The
replay viewer (``assets/viewer.js``) reads the project's own record format.
"""

from .build import SiteBuild, build_site, replay_on_demand, write_provisional
from .collect import Competition, load_competition
from .pages import Naming
from .stats import BotStats, cinch_stats

__all__ = ["BotStats", "Competition", "Naming", "SiteBuild", "build_site", "cinch_stats", "load_competition", "replay_on_demand",
           "write_provisional"]
