"""The server writes HTML only as templates (arena/publish/templates/serve), as publish does."""

from __future__ import annotations

from pathlib import Path

from tests.publish.test_no_markup import tags_in

SERVE = Path(__file__).resolve().parents[2] / "arena" / "serve"


def test_no_python_file_of_serve_writes_markup() -> None:
    files = sorted(SERVE.rglob("*.py"))
    assert len(files) > 10
    found = {str(p.relative_to(SERVE)): t for p in files if (t := tags_in(p.read_text()))}
    assert found == {}, "HTML belongs in arena/publish/templates/serve, rendered by arena.publish.render"
    assert not [p for p in files if "html.escape" in p.read_text()], "autoescape does the escaping"


def test_make_app_only_creates_the_app_includes_routers_and_mounts() -> None:
    import inspect

    from arena.serve.app import make_app

    assert len(inspect.getsource(make_app).splitlines()) < 40
