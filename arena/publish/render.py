"""One Jinja2 environment for every HTML page the project writes.

The site, the leaderboard's HTML and the server's pages all render through
``environment()``: templates live in ``arena/publish/templates``, autoescape
is always on (a bot's name or a team's text can never become markup), and a
value placed in a URL goes through the ``urlencode`` filter (a pairing key
holds ``+``, which a query string would read as a space).
"""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import quote

import jinja2


def _urlencode(value: Any) -> str:
    """Percent-encode a value for a path segment or a query value: every reserved character, ``+`` too."""
    return quote(str(value), safe="")


@functools.cache
def environment() -> jinja2.Environment:
    """The shared environment (built once): package templates, autoescape, strict undefined names."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("arena.publish", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["urlencode"] = _urlencode
    return env


def render(template: str, /, **context: Any) -> str:
    """Render one template of ``arena/publish/templates`` with ``context``."""
    return environment().get_template(template).render(**context)
