"""The one compiled part of the project: the exact solver's core (bots/sdk/cinch_bot/_solver.c).

Everything else is configured in pyproject.toml. The module is optional: without a C compiler
the install goes on and cinch_bot.solver answers in pure Python (the same answers, slower).
The source's SHA-256 is compiled in, so the SDK loads the module only when it was built from the
source it ships (a bot's identity digest covers that source: arena.players.manifest).
"""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "bots/sdk/cinch_bot/_solver.c"
sha = hashlib.sha256(Path(__file__).with_name("bots").joinpath("sdk", "cinch_bot", "_solver.c").read_bytes()).hexdigest()

setup(ext_modules=[Extension(
    "cinch_bot._solver", [SOURCE], optional=True,
    define_macros=[("SOURCE_SHA256", f'"{sha}"')],
    extra_compile_args=["-O2", "-std=c99"],
)])
