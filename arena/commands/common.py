"""What every command shares: argument parsing that never exits on its own, and exit codes.

Exit codes (the same for every command unless its docs say otherwise):
0 done; 1 the thing checked failed (a non-conforming bot, an incomplete
run, a reproduced fault); 2 bad input (arguments, config, files, results)
with a one-line message naming the file and the fix; 3 an error of the
harness or of this machine (the sandbox cannot start, Ray failed); 130
interrupted. ``arena sprt`` keeps its own: 0 passed, 1 failed, 2
inconclusive, 3 error (bad input included).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, NoReturn, Sequence

if TYPE_CHECKING:
    from .._json import JsonObject

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class CommandError(Exception):
    """A problem to report as one line (``arena CMD: message``) with an exit code."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


class HelpShown(Exception):
    """--help was printed: the command is done."""


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so the dispatcher owns every exit code."""

    def error(self, message: str) -> NoReturn:
        raise CommandError(f"{message} (see arena {self.prog.split(' ', 1)[-1]} --help)")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            sys.stderr.write(message)
        raise HelpShown()


def parser(name: str, description: str) -> Parser:
    return Parser(prog=f"arena {name}", description=description)


def parse(p: argparse.ArgumentParser, argv: Sequence[str]) -> Any:
    return p.parse_args(list(argv))


def sandbox_option(p: argparse.ArgumentParser, default: str = "bwrap") -> None:
    p.add_argument("--sandbox", default=default, choices=["gvisor", "bwrap", "rlimit", "none"],
                   help=f"isolation level (default {default}; see docs/sandbox.md)")


def decision_ms_option(p: argparse.ArgumentParser, default: int | None = None) -> None:
    p.add_argument("--decision-ms", type=int, default=default, metavar="MS",
                   help="CPU time a decision may take (match.time.decision_ms; default "
                        + (f"{default})" if default else "the config's, else 1000)"))


def time_options(p: argparse.ArgumentParser, tempo: str | None = None) -> None:
    """The time control of the games a command plays (match.time), parsed alike by `arena run` and `arena sprt`:
    what is given replaces the config's field, what is not keeps it (``time_from_args``)."""
    p.add_argument("--tempo", choices=["free", "fixed"], default=tempo,
                   help="fixed: every answer is released a slot after its request, so no seat can signal by how"
                        " long it takes (docs/sandbox.md, Tempo); free: at once"
                        + (f" (default {tempo})" if tempo else " (default: the config's, else free)"))
    decision_ms_option(p)
    p.add_argument("--slot-ms", type=int, metavar="MS",
                   help="with --tempo fixed: wall ms from a request to the release of its answer, above"
                        " --decision-ms (default: the config's, else 3 x decision_ms + 50)")


def time_from_args(args: Any) -> JsonObject:
    """The match.time fields the command line gave (validated with the rest of the config)."""
    given: JsonObject = {"tempo": args.tempo, "decision_ms": args.decision_ms, "slot_ms": args.slot_ms}
    return {k: v for k, v in given.items() if v is not None}


def profile_option(p: argparse.ArgumentParser) -> None:
    from ..engine import profile_names

    p.add_argument("--profile", default="pagat62", metavar="NAME",
                   help=f"rule profile to play (default pagat62; registered: {', '.join(profile_names())})")


def profile_from_args(args: Any) -> Any:
    """The ``RuleProfile`` named by ``--profile``; an unknown name is bad input, with the closest name."""
    from ..engine import get_profile

    try:
        return get_profile(args.profile)
    except ValueError as e:
        raise CommandError(f"--profile: {e}") from None
