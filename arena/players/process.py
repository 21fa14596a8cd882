"""A bot process as a seat's player: protocol, time control and fault verdicts.

Time is judged on the bot's own CPU time (its whole process tree) with a
wall-clock ceiling, so running as many matches as cores does not make a
well-behaved bot lose on time. The player talks through a ``Transport``:
a sandboxed process by default, a scripted ``MockTransport`` in tests.
"""

from __future__ import annotations

import math
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from .._json import JsonObject
from ..engine import Action, RuleProfile, action_from_dict
from ..engine.jsontext import loads
from ..protocol import PROTOCOL_VERSIONS, ActionReply, HelloReply, MalformedMessage, decode_from_bot, wire
from ..protocol.codec import read_action
from ..protocol.wire import Notice, Request
from ..sandbox import BotExited, CommandNotFound, Limits, LimitsError, LineTooLong, ReadTimeout, SandboxSpec, WriteTimeout, effective_limits
from ..sandbox.files import FolderRefused
from .base import Decision, Fault, Player, PlayerReport
from .manifest import BotEntry, library_path, library_root
from .timecontrol import WALL_MARGIN_MS, TimeSettings
from .transport import ProcessTransport, Transport

HARNESS_NAME = "cinch-arena"
_POLL_S = 0.05
#: tempo free: a seat's wait for a core is read only for an answer not in by this time (its first poll).
#: An answer in sooner is idle on move for less than this, below what the tempo audit can see
#: (docs/sandbox.md, "What a decision's time is"), and reading a gvisor seat's dozens of threads took
#: 80-250 us a decision, more than the rest of its round trip.
FIRST_POLL_S = 0.001
_HARD_WALL_FACTOR = 10  # even a starved machine cannot hold a decision longer than this
_REPLY_KEEP = 2000
#: An action reply in its plainest form, cut into its id and its action's text: a reply whose action
#: text was read before (``_KNOWN``) is taken without reading it again (``ProcessPlayer._decide``).
_PLAIN_REPLY = re.compile(rb'\{"type":"action","id":(0|[1-9][0-9]{0,17}),"action":(\{[^\\]*\})\}\n?').fullmatch
#: An action's text -> the action it was read as, kept only for a text that is one JSON object and was
#: taken by the plain reading (``read_action`` and ``action_from_dict``): the same line with another id
#: gets the same verdict from them, so it is not read again. Bounded: a bot sending ever new texts
#: (spaces, key orders) fills it once and is then read the long way.
_KNOWN: dict[bytes, Action] = {}
_KNOWN_MAX = 4096
STDERR_TAIL = 2000  # characters of the bot's stderr kept with each fault
#: Wall seconds a bot has after ``bye`` to read the last notices and exit by itself before it is
#: killed (docs/protocol.md). The four seats of a game are closed side by side: the graces overlap.
BYE_GRACE_S = 0.5

#: Makes the transport of one bot: (argv, environment, extra read-only paths, bot folder, limits).
Launcher = Callable[[list[str], dict[str, str], list[str], str, Limits], Transport]


def _text(line: bytes) -> str:
    return line[:_REPLY_KEEP].decode(errors="replace")


def harness_version() -> str:
    from .. import __version__

    return f"{HARNESS_NAME} {__version__}"


def bot_launch_args(entry: BotEntry) -> tuple[list[str], dict[str, str], list[str]]:
    """argv, environment and extra read-only paths for one bot.

    ``{python}`` is the harness's own interpreter; the libraries a manifest
    asks for are mounted read-only and put on PYTHONPATH.
    """
    m = entry.manifest
    uses_python = any("{python}" in a for a in m.command)
    argv = [a.replace("{python}", sys.executable) for a in m.command]
    ro: list[str] = []
    pypath: list[str] = []
    if uses_python:
        import os

        ro += sorted({sys.prefix, sys.base_prefix, os.path.realpath(sys.executable).rsplit("/bin/", 1)[0]})
    for lib in m.libraries:
        ro.append(str(library_path(lib)))
        pypath.append(str(library_root(lib)))
        if lib == "engine":  # the engine needs pydantic, from the harness's own environment
            import pydantic

            site = str(Path(pydantic.__file__).resolve().parents[1])
            ro += _engine_packages()  # just these: a sandbox that copies what it shows copies little
            pypath.append(site)
    env = dict(m.env)
    if pypath:
        env["PYTHONPATH"] = ":".join(dict.fromkeys(pypath))
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    return argv, env, ro


#: What the engine imports from the harness's environment (pydantic and what it needs).
ENGINE_PACKAGES = ("pydantic", "pydantic_core", "typing_extensions", "annotated_types", "typing_inspection")


def _engine_packages() -> list[str]:
    """The installed folder (or module file) of each package the engine needs."""
    import importlib.util

    out = []
    for name in ENGINE_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None:
            continue
        if spec.submodule_search_locations:
            out.append(str(Path(next(iter(spec.submodule_search_locations))).resolve()))
        elif spec.origin:
            out.append(str(Path(spec.origin).resolve()))
    return out


def sandbox_launcher(spec: SandboxSpec) -> Launcher:
    """Launch bots in the sandbox ``spec`` describes (the default launcher)."""

    def launch(argv: list[str], env: dict[str, str], ro: list[str], bot_dir: str, limits: Limits) -> Transport:
        full = spec.model_copy(update={"env": {**spec.env, **env}, "extra_ro_paths": (*spec.extra_ro_paths, *ro),
                                       "limits": limits})
        return ProcessTransport(full.launch(argv, bot_dir, wait_ready=False))

    return launch


class ProcessPlayer(Player):
    """One bot process for one game. ``launch()`` spawns it and sends its
    ``hello`` without waiting; ``start()`` collects the handshake (launching
    first if needed), so a game can start its four seats side by side.

    A failure to launch (the sandbox could not start) raises ``HarnessError``
    from ``launch`` or ``start``: that is the harness's failure, never the bot's.
    """

    def __init__(
        self,
        entry: BotEntry,
        seed: int,
        time_control: TimeSettings,
        sandbox: SandboxSpec,
        *,
        launcher: Launcher | None = None,
        profile: RuleProfile | None = None,
    ) -> None:
        self.entry = entry
        #: The rules the bot will play, named with all their parameters in ``hello``.
        self.profile = profile or RuleProfile()
        self.name = entry.manifest.name
        self.version = entry.manifest.version
        self.seed = seed
        self.t = time_control
        if entry.manifest.programs:
            sandbox = sandbox.model_copy(update={"programs": tuple(entry.manifest.programs)})
        self.sandbox = sandbox
        self.bank_s = self.t.bank_ms / 1000
        self._launcher = launcher or sandbox_launcher(sandbox)
        # A seat on its own kernel is always frozen while not on move: nothing of its partner's
        # running can then be measured from it (docs/sandbox.md, level gvisor).
        # So is every seat when the tempo is fixed: a seat not on move runs nothing, and costs no CPU.
        self._pause_idle = ((self.t.pause_idle or self.t.fixed or sandbox.level.value == "gvisor")
                            and sandbox.level.value != "none")
        self.proc: Transport | None = None
        self._dead: Fault | None = None
        self._cpu_mark = 0.0
        self._write_timeout = max(self.t.decision_ms / 1000, 1.0)
        # the time settings each decision reads, read once (TimeSettings computes slot_s and fixed)
        self._fixed = self.t.fixed
        self._slot_s = self.t.slot_s
        self._decision_s = self.t.decision_ms / 1000
        self._report = PlayerReport(self.name, self.version)
        #: What the bot left that resisted cleanup (BotProcess.trouble): evidence against it.
        self.cleanup_trouble: list[str] = []
        self._launched_at: float | None = None
        self._hello: JsonObject = {}
        self._hello_fault: Fault | None = None
        self._halted = False
        self._bye_at: float | None = None
        #: Seconds the bot has after ``bye`` to exit by itself (``BYE_GRACE_S``).
        self.bye_grace_s = BYE_GRACE_S
        #: Notices for a paused bot, delivered with its next request (it stays frozen until then).
        self._held: list[bytes] = []
        self._held_first: JsonObject | Notice | None = None
        #: The tree's wait for a core read at the end of the last decision, just before the seat was
        #: frozen; a frozen seat waits for no core, so it is the next decision's start as well.
        self._tree_wait: float | None = None

    @property
    def alive(self) -> bool:
        return self._dead is None

    def launch(self) -> Fault | None:
        """Spawn the bot and send its ``hello``; do not wait for anything.

        The start-up allowance runs from here. A write that fails is judged
        in ``start``, once the sandbox is known to have come up (before
        that, a broken pipe may be the sandbox's failure, not the bot's).
        """
        if self._launched_at is not None or self._dead is not None:
            return self._dead
        if self.entry.refused:  # a folder the harness will not read: never launched
            return self._die(Fault("protocol", self.entry.refused))
        argv, env, ro = bot_launch_args(self.entry)
        try:
            limits = effective_limits(self.sandbox.limits, self.entry.manifest.limits)
        except LimitsError as e:  # the bot's own manifest asks for more than the competition allows
            return self._die(Fault("protocol", f"bot.yaml {e}"))
        try:
            self.proc = self._launcher(argv, env, ro, self.entry.dir, limits)
        except FolderRefused as e:  # a link, FIFO, device or socket in the bot folder, or over a cap
            return self._die(Fault("protocol", str(e)))
        except CommandNotFound as e:  # the manifest's command names no program: the bot's mistake
            return self._die(Fault("protocol", f"bot.yaml: {e}"))
        # The allowance runs from the spawn: what the harness did first (a private copy of the
        # folder, at gvisor a runtime image built on first use) is not the bot's time.
        self._launched_at = time.monotonic()
        self._hello = wire.hello(PROTOCOL_VERSIONS, self.seed, harness_version(), self.profile.model_dump(mode="json"))
        self._hello_fault = self._send(self._hello)
        return None

    def start(self) -> Fault | None:
        """Collect the handshake, against this bot's own start-up allowance.

        The allowance is wall clock from ``launch``, less the time every
        thread of the bot's tree waited, runnable, for a core (as a decision
        counts it): four seats starting side by side on fewer cores share
        them, which is the harness's doing. A hard ceiling of ``_HARD_WALL_FACTOR`` times the allowance
        bounds even a starved machine.
        """
        fault = self.launch()
        if fault is not None or self._dead is not None:
            return fault or self._dead
        if self._report.startup_ms is not None:
            return None  # already started
        proc, hello, t0 = self.proc, self._hello, self._launched_at
        assert proc is not None and t0 is not None
        try:
            proc.wait_ready()  # HarnessError here: the sandbox failed, not the bot
        except CommandNotFound as e:  # looked up inside the bot's own view (bwrap, gvisor)
            return self._die(Fault("protocol", f"bot.yaml: {e}"))
        if self._hello_fault is not None:
            return self._die(self._hello_fault)
        allowance = self.t.startup_ms / 1000
        line: bytes | None = None
        timeout = max(allowance - (time.monotonic() - t0), 0.001)
        while line is None:
            try:
                line = proc.read_line(timeout)
            except ReadTimeout:
                wall = time.monotonic() - t0
                # Every thread the seat has had waited for a core from nothing at its launch (a
                # reading short of a wait not yet counted only makes the allowance stricter); none of
                # it counts for a seat that lowered its own priority (its waits are its own doing).
                if ((wall - self._seat_wait(proc) >= allowance or wall >= allowance * _HARD_WALL_FACTOR)
                        or (wall >= allowance and proc.lowered())):
                    return self._die(Fault("timeout", f"no handshake within the start-up allowance of {self.t.startup_ms} ms", hello))
                timeout = _POLL_S
            except (BotExited, LineTooLong) as e:
                return self._die(self._io_fault(e, hello))
        self._report.startup_ms = (time.monotonic() - t0) * 1000
        try:
            reply = decode_from_bot(line)
        except MalformedMessage as e:
            return self._die(Fault("malformed", f"handshake: {e}", hello, _text(line)))
        if not isinstance(reply, HelloReply):
            return self._die(Fault("protocol", f"expected a hello reply, got {reply.type!r}", hello, _text(line)))
        if reply.protocol not in PROTOCOL_VERSIONS:
            reason = (
                f"protocol version {reply.protocol} is not supported: this harness speaks versions"
                f" {list(PROTOCOL_VERSIONS)}"
            )
            self._send(wire.bye(reason))
            return self._die(Fault("protocol", reason, hello, _text(line)))
        self._report.version = reply.version
        self._cpu_mark = proc.cpu_time()
        self._pause()
        return None

    def notify(self, msg: JsonObject) -> Fault | None:
        if self._dead or self.proc is None:
            return None
        return self._send(msg, wake=False)

    def notify_all(self, msgs: Sequence[JsonObject | Notice]) -> Fault | None:
        if self._dead or self.proc is None or not msgs:
            return None
        return self._send(msgs[0], b"".join(m.line if type(m) is Notice else wire.encode(m) for m in msgs),  # type: ignore[arg-type]
                          wake=False)

    def decide_request(self, request: Request) -> Decision:
        return self.decide(request)

    def decide(self, request: JsonObject | Request) -> Decision:
        """Answer a request; with ``tempo: fixed`` the answer (reply or fault) is held until its slot.

        The slot runs from before the request is written (a frozen bot's thaw is inside it). An
        answer that comes later than its slot, through no fault of the bot (it waited for a core),
        is released at the next whole number of slots: how late it lands is the machine's doing,
        and rounded (docs/sandbox.md, Tempo).
        """
        req = request if isinstance(request, Request) else Request.of(request)
        # The seat's wait for a core is read before the wall clock starts (and after it stops): a
        # wait that falls between two readings is then the machine's time, never the bot's. With a
        # free tempo it may be left unread (None): see ``_tree_start``.
        tree0 = self._tree_start()
        t0 = time.monotonic()
        answer = self._decide(req, t0, tree0)
        if self._fixed:
            slot = self._slot_s
            release = t0 + slot * max(1, math.ceil((time.monotonic() - t0) / slot - 1e-9))
            while (left := release - time.monotonic()) > 0:
                time.sleep(left)
        return answer

    def _tree_start(self) -> float | None:
        """The wait for a core of the seat's whole tree at the start of a decision: kept from the end
        of the last one while the seat has been frozen since (a frozen seat waits for no core).

        With a free tempo it is not read here (None): no verdict but the wall ceiling depends on it,
        and the audit's idle time of an answer in before ``FIRST_POLL_S`` is under that however the
        wait went. An answer not in by then has the tree read at that poll and at its end (the end
        then starts the next decision of a frozen seat): the waits counted in its first millisecond
        or so are not taken off (stricter by that much; a wait under way at the poll is counted
        whole, as any wait is), and no wait of another decision is ever counted in it (a bot could
        otherwise bank waits in fast answers and spend them on a slow one). With a fixed tempo every
        decision is read whole, as its slot's verdict depends on it."""
        proc = self.proc
        if proc is None or self._dead is not None:
            return 0.0
        if self._tree_wait is not None and proc.paused:
            return self._tree_wait
        if not self._fixed:
            return None
        return self._seat_wait(proc)

    def _seat_wait(self, proc: Transport) -> float:
        """Seconds every thread of the seat has waited for a core (the main process's alone where the
        tree is not metered: level ``none`` with a free tempo, where bots are trusted)."""
        return proc.tree_run_delay() if (self._fixed or proc.measures_cpu) else proc.run_delay()

    def _decide(self, request: Request, t0: float, tree0: float | None) -> Decision:
        if self._dead or self.proc is None:
            return Decision(None, Fault("crash", "the bot is no longer running", request.to_dict()))
        proc = self.proc
        limit = min(self._decision_s, self.bank_s)
        fixed = self._fixed
        slot = self._slot_s
        late_after = slot if fixed else limit * self.t.wall_factor + WALL_MARGIN_MS / 1000  # (the ceiling)
        request.set_time(int(self.bank_s * 1000), self.t.decision_ms)
        # CPU the bot used since its last reply (pondering) is charged here; a
        # wall clock (level none) only runs against the bot while it is on move.
        cpu0 = self._cpu_mark if proc.measures_cpu else proc.cpu_time()
        fault = self._send(request)
        if fault:
            return Decision(None, self._die(fault))
        # What the machine did not give the seat (docs/sandbox.md, "What a decision's time is"): the
        # judge's thaw of the seat and write of its request (a cgroup v1 freezer write can block on a
        # host-wide lock under load), every thread of the seat's wait for a core, and the judge's own
        # time (its game loops' run and wait) over the last two polls: a reply waits on the judge only
        # from the poll before the one that reads it (it may come while the judge, woken by that
        # poll's timeout, waits for a core); the judge's polls while the bot works are not on its way.
        # (With a free tempo the seat's wait is read only from the first poll on: ``_tree_start``. The
        # judge's own time is read always: a judge kept from a reply already in is no idle of the bot.)
        judge = [_JUDGES.spent()] * 2  # the judge's time at the start of the poll before last, and of the last
        sent = time.monotonic() - t0

        line: bytes | None = None
        timeout = _POLL_S if fixed else FIRST_POLL_S
        polled = False
        while line is None:
            try:
                line = proc.read_line(timeout)
            except ReadTimeout:
                timeout, polled = _POLL_S, True
                used = proc.cpu_time() - cpu0
                wall = time.monotonic() - t0
                if used > limit or wall >= late_after * _HARD_WALL_FACTOR:
                    return Decision(None, self._die(self._timeout(request, used, wall, limit)))
                if tree0 is None:  # free tempo, nothing read at the start: the seat's waits count from here
                    tree0 = self._seat_wait(proc)
                    continue
                # A thread's wait for a core is added to its count only once it gets one: while any
                # thread of the seat is runnable, the count may be short of the truth, so it is judged
                # once none is (a spinning bot meets its CPU limit meanwhile) or on its reply. A seat
                # that lowered its own priority gets no credit for its threads' waits at all: a thread
                # at nice 19 (or in a niced autogroup) is runnable, waiting, at little CPU all along.
                judged = wall - sent - (_JUDGES.spent() - judge[0])
                own = judged - (self._seat_wait(proc) - tree0)
                if own > late_after and not proc.runnable():
                    return Decision(None, self._die(self._late(request, used, wall, own) if fixed
                                                    else self._timeout(request, used, wall, limit)))
                if judged > late_after and proc.lowered():
                    return Decision(None, self._die(self._late(request, used, wall, judged) if fixed
                                                    else self._timeout(request, used, wall, limit)))
                judge[:] = judge[1], _JUDGES.spent()
            except (BotExited, LineTooLong) as e:
                return Decision(None, self._die(self._io_fault(e, request)))
        wall = time.monotonic() - t0
        now = proc.cpu_time()
        judged_end = sent + _JUDGES.spent() - judge[0]  # the machine's time but the seat's own waits
        if tree0 is None or not (fixed or polled):  # free tempo, in before its first poll: unread (idle under it)
            waited = max(0.0, judged_end)
            self._tree_wait = None  # so the next decision does not start from an older reading
        else:
            tree1 = self._seat_wait(proc)
            waited = max(0.0, judged_end + tree1 - tree0)
            self._tree_wait = tree1
        used = now - cpu0
        self._cpu_mark = now
        if self._pause_idle:
            proc.pause()
        self.bank_s -= used
        report = self._report
        report.latencies_ms.append(wall * 1000)
        report.cpu_ms.append(used * 1000)
        report.wait_ms.append(round(waited * 1000, 3))  # to the microsecond: a difference of two clock reads
        if used > limit:
            return Decision(None, self._die(self._timeout(request, used, wall, limit)), wall, used, line)
        if fixed and wall - waited > slot:
            return Decision(None, self._die(self._late(request, used, wall, wall - waited)), wall, used, line)
        if fixed and wall - judged_end > slot and proc.lowered():  # its threads' waits are its own doing
            return Decision(None, self._die(self._late(request, used, wall, wall - judged_end)), wall, used, line)
        cut = _PLAIN_REPLY(line)
        if cut is not None:
            known = _KNOWN.get(cut[2])
            if known is not None and int(cut[1]) == request.id:
                return Decision(known, None, wall, used, line)
        plain = read_action(line)  # the common reply, read without the models (the same verdict)
        if plain is not None and plain[0] == request.id:
            try:
                action = action_from_dict(plain[1])
            except ValueError:
                pass  # the models' path below words the verdict
            else:
                if cut is not None and len(_KNOWN) < _KNOWN_MAX and _one_object(cut[2], plain[1]):
                    _KNOWN[cut[2]] = action
                return Decision(action, None, wall, used, line)
        try:
            reply = decode_from_bot(line)
        except MalformedMessage as e:
            return self._reject(Fault("malformed", f"{e}; the line was {_quote(line)}", request.to_dict(), _text(line)),
                                wall, used, line)
        if not isinstance(reply, ActionReply):
            fault = Fault("protocol", f"expected an action reply, got {reply.type!r}", request.to_dict(), _text(line))
            return self._reject(fault, wall, used, line)
        if reply.id != request.id:
            fault = Fault("protocol", f"reply id {reply.id} does not answer request {request.id}", request.to_dict(),
                          _text(line))
            return self._reject(fault, wall, used, line)
        try:
            action = action_from_dict(vars(reply.action))  # unset fields are None, which it ignores
        except ValueError as e:
            return Decision(None, Fault("illegal", f"unreadable action: {e}", request.to_dict(), _text(line)), wall, used,
                            line)
        return Decision(action, None, wall, used, line)

    def _reject(self, fault: Fault, wall: float, used: float, line: bytes) -> Decision:
        """A reply that breaks the protocol: the stream cannot be trusted any more."""
        return Decision(None, self._die(fault), wall, used, line)

    def next_game(self) -> PlayerReport | None:
        """Keep the process for the next game, with a full time bank and a new report.

        A process that faulted, was halted or has exited is not kept: the
        caller closes it and starts a fresh one (fresh scratch too). The
        sandbox's limits are the process's, so they hold over all its games.
        """
        if self._dead is not None or self.proc is None or self._halted or self.proc.exit_status() is not None:
            return None
        done = self._report
        self._report = PlayerReport(self.name, done.version, startup_ms=0.0)
        self.bank_s = self.t.bank_ms / 1000
        return done

    def halt(self) -> None:
        """Say ``bye`` without waiting; a bot that is already judged dead is killed at once.

        ``close`` then gives the bot until ``bye_grace_s`` after the ``bye``
        to read what is left in its pipe (the last ``deal_end``,
        ``game_end`` and the ``bye``) and exit, and kills it if it has not.
        """
        if self.proc is not None and not self._halted:
            self._halted = True
            if self._dead is None and self._send(wire.bye(None)) is None:
                self._bye_at = time.monotonic()
            else:
                self.proc.halt()

    def close(self) -> PlayerReport:
        if self.proc is not None:
            self.halt()
            if self._bye_at is not None:
                self.proc.wait_exit(self._bye_at + self.bye_grace_s - time.monotonic())
                self.proc.halt()
            rep = self.proc.close()
            self.cleanup_trouble = list(rep.trouble)
            self._report.trouble = list(rep.trouble)
            self._report.stderr = rep.stderr
            self._report.stderr_dropped = rep.stderr_dropped
            self.proc = None
        return self._report

    # -- helpers -------------------------------------------------------------
    def _send(self, msg: JsonObject | Request | Notice, data: bytes | None = None, *, wake: bool = True) -> Fault | None:
        """Write ``msg`` (or ``data``, lines already encoded, the first of them ``msg``).

        A notice (``wake=False``) to a paused bot is held, not written: the
        bot stays frozen and gets it, in order, just before its next request
        (or ``bye``). So with ``pause_idle`` only the seat on move ever runs,
        and a full pipe can never block the harness on a frozen reader.
        """
        proc = self.proc
        assert proc is not None
        if data is None:
            data = msg.line() if isinstance(msg, Request) else msg.line if isinstance(msg, Notice) else wire.encode(msg)
        if not wake and proc.paused:
            assert not isinstance(msg, Request)  # (a request wakes its bot)
            self._held.append(data)
            self._held_first = self._held_first or msg
            return None
        if self._held:
            data, msg = b"".join(self._held) + data, self._held_first or msg
            self._held, self._held_first = [], None
        if proc.paused:
            proc.resume()
        try:
            proc.write_line(data, self._write_timeout)
        except (BotExited, WriteTimeout) as e:
            return self._io_fault(e, msg)
        return None

    def _pause(self) -> None:
        if self._pause_idle and self.proc is not None:
            self.proc.pause()

    def _die(self, fault: Fault) -> Fault:
        """After a timeout, crash or garbled stream the bot cannot be trusted to go on.

        The process is ended at once; what it wrote on stderr until then is
        kept with the fault, since that is usually where the cause is.
        """
        self._dead = fault
        if self.proc is not None:
            rep = self.proc.close()
            fault.stderr = rep.stderr[-STDERR_TAIL:] or None
        return fault

    def _timeout(self, request: Request, cpu: float, wall: float, limit: float) -> Fault:
        what = "the game's time bank" if limit < self.t.decision_ms / 1000 else f"the {self.t.decision_ms} ms decision limit"
        return Fault("timeout", f"exceeded {what}", request.to_dict(), measured=f"{cpu * 1000:.0f} ms CPU, {wall * 1000:.0f} ms wall")

    def _late(self, request: Request, cpu: float, wall: float, own: float) -> Fault:
        """tempo fixed: past the slot on the bot's own time (wall less its wait for a core): it
        slept or blocked on move, and how late it lands would be its choice."""
        return Fault("timeout", f"answered after its {self.t.slot_s * 1000:.0f} ms slot (tempo fixed) on its own time",
                     request.to_dict(), measured=f"{own * 1000:.0f} ms own time, {cpu * 1000:.0f} ms CPU, {wall * 1000:.0f} ms wall")

    def _io_fault(self, e: Exception, what: JsonObject | Request | Notice) -> Fault:
        msg = what.to_dict() if isinstance(what, (Request, Notice)) else what
        if isinstance(e, LineTooLong):
            return Fault("protocol", str(e), msg)
        if isinstance(e, WriteTimeout):
            return Fault("timeout", f"the bot stopped reading its input: {e}", msg)
        proc = self.proc
        status = getattr(e, "exit_status", None)
        detail = f"exit status {status}" if status is not None else "no exit status yet"
        if proc is not None and proc.memory_limit_hit():
            detail += ", killed at its memory limit"
        return Fault("crash", f"the bot exited ({detail})", msg)


class _JudgeTime:
    """Seconds the judge threads of this process (each game loop's) have waited for a core or run,
    together: a harness starved on a busy machine, or busy with its own work, sees a reply late, which
    is no more the bot's doing than its own wait. Together, because a worker may play several games
    at once in threads (a fixed tempo): a game loop kept from its reply by another that holds the
    interpreter lock (running, collecting garbage, or waiting for a core with it) is kept by the
    judge. Each thread's file is kept open (closed once the thread has ended, when another starts
    judging); a thread's time as last read stays counted after it ends, so the sum never goes back."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fds: dict[int, int] = {}  # judge thread id -> its schedstat, open
        self._last: dict[int, int] = {}  # judge thread id -> its time run and waited in ns, as last read
        self._gone = 0  # ns of judge threads that have ended
        self._mine = threading.local()

    def spent(self) -> float:
        if not getattr(self._mine, "known", False):
            self._mine.known = True
            try:
                fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                return 0.0
            with self._lock:
                tid = threading.get_native_id()
                live = {t.native_id for t in threading.enumerate()}
                for old in [t for t in self._fds if t not in live or t == tid]:  # ended (an id may be reused)
                    os.close(self._fds.pop(old))
                    self._gone += self._last.pop(old, 0)
                self._fds[tid] = fd
        with self._lock:
            total = self._gone
            last = self._last
            for tid, fd in self._fds.items():  # (not changed while the lock is held)
                try:
                    parts = os.pread(fd, 128, 0).split()
                    last[tid] = now = int(parts[0]) + int(parts[1])
                except (OSError, IndexError, ValueError):  # unreadable: its last reading stands
                    now = last.get(tid, 0)
                total += now
        return total / 1e9


_JUDGES = _JudgeTime()


def _one_object(text: bytes, action: object) -> bool:
    """True if ``text`` is one JSON object, the action read: then the reply it came in had no key after
    its action (a second ``id`` there would be the reply's id, not the one cut out before it)."""
    try:
        return bool(loads(text) == action)
    except ValueError:
        return False


def _quote(line: bytes, keep: int = 120) -> str:
    """The start of an offending line, quoted, so the author sees what was sent."""
    text = line[:keep].decode(errors="replace")
    return repr(text) + (f" (+{len(line) - keep} more bytes)" if len(line) > keep else "")
