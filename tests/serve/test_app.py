"""The server's app factory stays a factory (its pages are templates: tests/publish/test_no_markup.py)."""

from __future__ import annotations


def test_make_app_only_creates_the_app_includes_routers_and_mounts() -> None:
    import inspect

    from arena.serve.app import make_app

    assert len(inspect.getsource(make_app).splitlines()) < 40
