"""The one template environment: escaping is on, URL values survive a query parser, typos fail loudly."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import jinja2
import pytest

from arena.publish.render import environment, render


def test_text_is_escaped_and_a_key_with_plus_survives_the_query_parser() -> None:
    key = "red@1+blue@2 ~ green@3&x=<y>"
    out = render("_probe.html", key=key, name="<script>alert(1)</script>")
    assert "<script>" not in out and "&lt;script&gt;" in out
    href = out.split('href="', 1)[1].split('"', 1)[0]
    # the page's attribute is HTML-escaped; a browser unescapes it, then parses the query
    query = urlsplit(href.replace("&amp;", "&")).query
    assert parse_qs(query) == {"key": [key]}


def test_a_missing_name_is_an_error_not_an_empty_string() -> None:
    with pytest.raises(jinja2.UndefinedError):
        render("_probe.html", key="k")


def test_the_environment_is_shared() -> None:
    assert environment() is environment()
    assert environment().autoescape
