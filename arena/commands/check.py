"""``arena check-bot``: is a bot ready for a tournament?"""

from __future__ import annotations

import json
from typing import Any

from ..engine import RuleProfile
from ..match import MatchSettings
from ..match.check import check_entry
from ..players import BotEntry, load_entry
from ..players.manifest import command_entry
from .common import (EXIT_FAILED, EXIT_OK, CommandError, decision_ms_option, parse, parser, profile_from_args, profile_option,
                     sandbox_option)


def settings_from_args(args: Any, profile: RuleProfile | None = None) -> MatchSettings:
    """Sandbox and time from the arguments; ``profile`` default pagat62 (reproduce takes the record's)."""
    return MatchSettings.model_validate({"sandbox": args.sandbox, "time": {"decision_ms": args.decision_ms},
                                         "profile": profile or RuleProfile()})


def main(argv: list[str]) -> int:
    cmd: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, cmd = argv[:i], argv[i + 1 :]
    ap = parser("check-bot", "Check a bot against the protocol and the rules: handshake, probe positions "
                "for every edge case, then whole games with the bot in every seat.")
    ap.add_argument("bot", nargs="?", help="bot folder or bot.yaml (or use -- COMMAND [ARGS...])")
    ap.add_argument("--name", default="cli-bot", help="name for a bot given as a command")
    sandbox_option(ap)
    profile_option(ap)
    decision_ms_option(ap, 1000)
    ap.add_argument("--games", type=int, default=2, help="full games with the bot in every seat (default 2)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parse(ap, argv)
    entry: BotEntry
    if cmd:
        entry = command_entry(cmd, name=args.name)
    elif args.bot:
        entry = load_entry(args.bot)
    else:
        raise CommandError("give a bot folder (or its bot.yaml), or -- COMMAND [ARGS...]")
    settings = settings_from_args(args, profile_from_args(args))
    settings.limits_for(entry.manifest.limits)  # refused up front, naming the field (LimitsError)
    report = check_entry(entry, settings, games=args.games)
    if args.json:
        print(json.dumps({"bot": report.bot, "profile": report.profile, "ok": report.ok, "probes": report.probes, "decisions": report.decisions,
                          "latency_ms": report.latency_summary(),
                          "violations": [{"where": v.where, **v.fault.to_dict(), "stderr": v.fault.stderr}
                                         for v in report.violations]}))
    else:
        print(report.summary())
    return EXIT_OK if report.ok else EXIT_FAILED
