"""How ``arena run`` and ``arena sprt`` show a run: each runner step's data as a line, then the progress display.

The runner (``arena.schedule.runner``) says nothing itself; this module is
its terminal face: the messages prefixed with the command's name, the
remedies that name the command's options (``--new-version``, ``--extend``,
``--skip-check``), and the progress line with the live standings.
"""

from __future__ import annotations

from typing import Any, Callable, TextIO

from ..schedule.runner import (
    Admission,
    BackendChoice,
    BotChange,
    BotsChanged,
    EntriesFailed,
    ExtensionNotAsked,
    OtherTournament,
    Plan,
    RunObserver,
    RunRefused,
)
from ..schedule.config import Tournament
from ..schedule.unit import Unit
from ..players import BotEntry
from ..results import ResultLine
from .progress import Progress


def describe_change(c: BotChange) -> str:
    """One line: the digests, the versions and which files differ."""
    shown = ", ".join(c.files[:8]) + (f" and {len(c.files) - 8} more" if len(c.files) > 8 else "")
    return (f"{c.name}: digest {c.old_digest[:12]} -> {c.new_digest[:12]} (version {c.old_version} ->"
            f" {c.new_version}); changed: {shown or 'libraries it uses'}")


def refusal_text(e: RunRefused) -> str:
    """Why the run did not start, and what to do about it with this command's options."""
    if isinstance(e, BotsChanged):
        return ("these bots changed since this folder's last run:\n  " + "\n  ".join(map(describe_change, e.changed))
                + "\nrun with --new-version to enter each as a new version (rated separately), or restore its files")
    if isinstance(e, OtherTournament):
        return f"{e}; use another 'out' folder"
    if isinstance(e, ExtensionNotAsked):
        return f"{e}; run with --extend to play the new games"
    if isinstance(e, EntriesFailed):
        return ("\n".join(f"{ident} failed the conformance check:\n{r.summary()}" for ident, r in e.failed)
                + f"\n{len(e.failed)} of {e.checked} entries failed; fix each,"
                " or run with --skip-check to let the games judge them")
    return str(e)


class RunDisplay(RunObserver):
    """Says each step on ``say`` (prefixed ``command:``) and shows the progress on ``stream``.

    ``listener`` is told (blocks done, total) after each stored block (the
    live site); ``table`` renders the provisional standings shown under the
    progress line.
    """

    def __init__(self, command: str, say: Callable[[str], None], stream: TextIO, *,
                 listener: Callable[[int, int], None] | None = None,
                 table: Callable[[list[ResultLine]], str] | None = None) -> None:
        self.command, self.say, self.stream = command, say, stream
        self.listener, self.table = listener, table
        self.progress: Progress | None = None

    def admitted(self, admission: Admission) -> None:
        if admission.kept_per_game:
            self.say(f"{self.command}: {admission.store.path.parent} was played per-game: it resumes per-game (a new"
                     " out folder plays per-lineage, the default; docs/tournaments.md, Lineages)")
        if admission.changed:
            self.say(f"{self.command}: new versions enter as new entries: "
                     + "; ".join(map(describe_change, admission.changed)))
        if admission.repaired_bytes:
            self.say(f"{self.command}: cut off a torn last line ({admission.repaired_bytes} bytes) of"
                     f" {admission.store.path}")

    def planned(self, t: Tournament, plan: Plan) -> None:
        self.say(f"{self.command}: {t.config.name}: {len(plan.tasks)} blocks ({len(plan.stored)} already done),"
                 f" {len(t.entries)} entries, backend {t.config.backend}, out {t.out}")
        self.progress = Progress(len(plan.tasks), plan.stored, self.stream, listener=self.listener, table=self.table)

    def checking(self, entries: list[BotEntry]) -> None:
        self.say(f"{self.command}: checking {len(entries)} entries (arena check-bot probes)...")

    def starting(self, choice: BackendChoice) -> None:
        if choice.why:
            self.say(f"{self.command}: {choice.why}")
        if choice.kind == "ray":
            self.say(f"{self.command}: joining the Ray cluster at {choice.address}..." if choice.address
                     else f"{self.command}: starting {choice.workers} Ray workers...")

    def started(self, capacity: int) -> None:
        if self.progress is not None:  # its rate counts from here: checks and start-up are not play
            self.progress.parallel = max(1, capacity)
            self.progress.t0 = self.progress.now()

    def line(self, line: ResultLine) -> None:
        if self.progress is not None:
            self.progress.line(line)

    def notice(self, text: str) -> None:
        if self.progress is not None:
            self.progress.notice(text)

    def retry(self, task: Unit, error: str) -> None:
        if self.progress is not None:
            self.progress.retry(task, error)

    def failure(self, task: Unit, error: str) -> None:
        if self.progress is not None:
            self.progress.failure(task, error)

    def finished(self) -> None:
        if self.progress is not None:
            self.progress.finish()
