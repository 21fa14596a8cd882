"""HTML is written only as templates (arena/publish/templates): no tag in a Python string of the packages that
write pages (arena/publish, and the server's arena/serve), one check parameterised by package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ARENA = Path(__file__).resolve().parents[2] / "arena"
PUBLISH = ARENA / "publish"
TAGS = ("a abbr b body br caption circle code details div em h1 h2 h3 h4 h5 h6 head header html img input label li "
        "line link main meta nav noscript ol option p path polyline pre rect script section select small span strong "
        "style summary svg table tbody td text textarea th thead title tr ul").split()
TAG = re.compile(r"<\s*/?\s*(?:" + "|".join(TAGS) + r")(?:\s[^<>]*)?/?>|<!DOCTYPE", re.IGNORECASE)


def tags_in(source: str) -> list[str]:
    """Every HTML tag written in a string literal (f-strings included) of ``source``, docstrings aside."""
    tree = ast.parse(source)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    found = sorted((n.lineno, n.col_offset, m) for n in ast.walk(tree)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
                   for m in TAG.findall(n.value))
    return [f"line {line}: {m}" for line, _, m in found]


def test_the_detector_finds_markup_in_every_kind_of_string() -> None:
    src = ('"""Module: matchups/<a>--<b>.html."""\na = "<td class=\\"l\\">"\nb = f"</tr>{x}"\n'
           'c = """\n<svg width="3">\n"""\nd = "bots/<bot>.html"\n')
    assert [t.split(": ", 1)[1] for t in tags_in(src)] == ['<td class="l">', "</tr>", '<svg width="3">']


@pytest.mark.parametrize("package", ["publish", "serve"])
def test_no_python_file_of_a_page_writing_package_writes_markup(package: str) -> None:
    folder = ARENA / package
    files = sorted(folder.rglob("*.py"))
    assert len(files) > 10
    found = {str(p.relative_to(folder)): t for p in files if (t := tags_in(p.read_text()))}
    assert found == {}, "HTML belongs in arena/publish/templates, rendered by arena.publish.render"
    assert not [p for p in files if "html.escape" in p.read_text()], "autoescape does the escaping"


def test_every_value_in_a_site_link_goes_through_urlencode() -> None:
    """A page name or id placed in an href or src is percent-encoded (``root`` is the page's own ``../``)."""
    links = [a for t in sorted((PUBLISH / "templates" / "site").glob("*.html"))
             for a in re.findall(r'(?:href|src)="([^"]*)"', t.read_text())]
    assert len(links) > 5
    values = [v.strip() for a in links for v in re.findall(r"\{\{(.*?)\}\}", a)]
    assert values and all(v == "root" or v.endswith("| urlencode") for v in values), values
