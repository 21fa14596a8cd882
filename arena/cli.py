"""The ``arena`` command: a thin shell that hands each subcommand to its module.

Each subcommand module owns its own argument parser (``main(argv) -> int``),
so this file only knows names and one-line descriptions.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("arena.schedule.runner:main", "run a tournament from a YAML config (resumable)"),
    "play": ("arena.match.show:main_play", "play one game and show it deal by deal"),
    "replay": ("arena.match.show:main_replay", "show a stored game again from its record alone"),
    "check-bot": ("arena.players.check:main", "check that a bot speaks the protocol and plays legally"),
    "reproduce": ("arena.players.reproduce:main", "re-run a recorded fault of a bot locally"),
    "export-deals": ("arena.match.show:main_export_deals", "write a deal file from a key"),
    "rate": ("arena.publish.cli:main_rate", "rate a results file and write leaderboards"),
    "sprt": ("arena.publish.cli:main_sprt", "regression-test a candidate against a baseline with an SPRT"),
}
BENCHES: dict[str, str] = {
    "engine": "arena.bench.engine:main",
    "protocol": "arena.bench.protocol:main",
    "scheduler": "arena.bench.scheduler:main",
    "bots": "arena.bench.bots:main",
    "fairtime": "arena.bench.fairtime:main",
}


def _call(target: str, argv: list[str]) -> int:
    module, func = target.split(":")
    return int(getattr(importlib.import_module(module), func)(argv) or 0)


def _usage() -> str:
    lines = ["usage: arena COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<13} {desc}" for name, (_, desc) in COMMANDS.items()]
    lines += [f"  {'bench':<13} benchmarks: {', '.join(BENCHES)}", "", "arena COMMAND --help for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(_usage())
        return 0 if args else 2
    cmd, rest = args[0], args[1:]
    if cmd in ("--version", "version"):
        from . import __version__

        print(f"cinch-arena {__version__}")
        return 0
    if cmd == "bench":
        if not rest or rest[0] not in BENCHES:
            print(f"usage: arena bench {{{','.join(BENCHES)}}} [ARGS...]", file=sys.stderr)
            return 2
        return _call(BENCHES[rest[0]], rest[1:])
    if cmd not in COMMANDS:
        print(f"arena: unknown command {cmd!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    return _call(COMMANDS[cmd][0], rest)


if __name__ == "__main__":
    sys.exit(main())
