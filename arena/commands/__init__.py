"""The ``arena`` command, the top floor: argument parsing and exit codes only.

Every subcommand is a module here with ``main(argv) -> int`` that parses its
arguments and calls library functions of the layers below (never another
command's argv). This dispatcher turns every expected problem into one line
naming the file and the fix, with the exit codes of ``common``; ``--debug``
(anywhere before ``--``) shows the traceback instead.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
import warnings
from typing import Callable

from .common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, CommandError, HelpShown

COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("run", "run (or resume, or extend) a tournament from a YAML config"),
    "sprt": ("sprt", "regression-test a candidate against a baseline until an SPRT decides"),
    "check-bot": ("check", "check that a bot speaks the protocol and plays legally"),
    "play": ("play", "play one game and show it deal by deal"),
    "replay": ("play", "show a stored game again from its record alone"),
    "reproduce": ("reproduce", "re-run a recorded fault of a bot locally"),
    "rate": ("rate", "rate a results file and write leaderboards"),
    "site": ("site", "write the static site: leaderboard, bot pages, every game replayable"),
    "export-deals": ("play", "write a deal file from a key"),
    "schema": ("play", "print the protocol's JSON Schema"),
    "serve": ("serve", "run a competition: uploads, validation, team pages (docs/server.md)"),
    "submit": ("serve", "upload a bot folder to a competition and wait for its verdict"),
    "bench": ("bench", "benchmarks, each ending with one JSON line (arena bench --help lists them)"),
}
#: Commands whose module offers a function other than ``main``.
ENTRY = {"submit": "main_submit", "replay": "main_replay", "export-deals": "main_export_deals", "schema": "main_schema"}
#: Exit code for bad input, where a command reserves 2 for something else.
USAGE_CODE = {"sprt": EXIT_ERROR}


def usage() -> str:
    lines = ["usage: arena [--debug] COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<13} {desc}" for name, (_, desc) in COMMANDS.items()]
    lines += ["", "arena COMMAND --help for a command's options; docs in README.md and docs/."]
    return "\n".join(lines)


def _expected() -> tuple[type[BaseException], ...]:
    """Errors that are the user's input or this machine, reported as a sentence."""
    from ..players import ManifestError
    from ..results import ResultsError
    from ..sandbox import LimitsError, SandboxError
    from ..schedule import ConfigError
    from ..schedule.lock import FolderBusy
    from ..schedule.runner import RunRefused
    from ..publish.rate import PublishError

    return (ManifestError, ResultsError, SandboxError, LimitsError, ConfigError, FolderBusy, RunRefused, PublishError,
            OSError)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    cut = args.index("--") if "--" in args else len(args)
    debug = "--debug" in args[:cut] or bool(os.environ.get("ARENA_DEBUG"))
    if "--debug" in args[:cut]:
        args.remove("--debug")
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return EXIT_OK if args else EXIT_USAGE
    cmd, rest = args[0], args[1:]
    if cmd in ("--version", "version"):
        from .. import __version__

        print(f"cinch-arena {__version__}")
        return EXIT_OK
    if cmd not in COMMANDS:
        import difflib

        close = difflib.get_close_matches(cmd, COMMANDS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        print(f"arena: unknown command {cmd!r}{hint}\n\n{usage()}", file=sys.stderr)
        return EXIT_USAGE
    module, _ = COMMANDS[cmd]
    fn: Callable[[list[str]], int] = getattr(importlib.import_module(f"{__name__}.{module}"), ENTRY.get(cmd, "main"))
    return _guarded(cmd, fn, rest, debug)


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                      line: str | None = None) -> str:
    return f"arena: warning: {message}\n"


def _guarded(cmd: str, fn: Callable[[list[str]], int], argv: list[str], debug: bool) -> int:
    if not debug:
        warnings.formatwarning = _one_line_warning  # a sentence, not a source line
    try:
        return int(fn(argv) or 0)
    except HelpShown:
        return EXIT_OK
    except CommandError as e:
        print(f"arena {cmd}: {e}", file=sys.stderr)
        return USAGE_CODE.get(cmd, e.code) if e.code == EXIT_USAGE else e.code
    except KeyboardInterrupt:
        print(f"\narena {cmd}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`arena replay ... | head`): nothing left to say to it.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except Exception as e:  # noqa: BLE001 - the last line of defence: a sentence, not a traceback
        if debug:
            traceback.print_exc()
        from ..sandbox import HarnessError

        if isinstance(e, _expected()):
            code = EXIT_ERROR if isinstance(e, HarnessError) else USAGE_CODE.get(cmd, EXIT_USAGE)
            text = str(e)
            if isinstance(e, OSError) and e.filename is not None:
                text = f"{e.filename}: {e.strerror}"
            print(f"arena {cmd}: {text}", file=sys.stderr)
            return code
        print(f"arena {cmd}: internal error: {type(e).__name__}: {e}"
              + ("" if debug else " (run with --debug for the traceback)"), file=sys.stderr)
        return EXIT_ERROR
