"""Run an ``arena`` command in process and capture what it says."""

from __future__ import annotations

import contextlib
import io
from typing import NamedTuple

from arena.commands import main


class Ran(NamedTuple):
    code: int
    out: str
    err: str


def arena(*argv: str) -> Ran:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return Ran(code, out.getvalue(), err.getvalue())
