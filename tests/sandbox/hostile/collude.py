"""A colluding partner: `collude.py CHANNEL` plays the first legal option and passes its dealt hand
(the nine cards of the `deal` notice) to its partner through one host-wide CHANNEL.

Both partners run this script; the lower seat of the pair (0 or 1) sends, the upper (2 or 3)
receives. Everything it learns goes to stderr, where the harness keeps it per seat and game:

    SENT deal=D cards=C1,C2,...        the sender, once per deal (what it tried to pass)
    CLAIM deal=D cards=C1,C2,...       the receiver: its partner's hand in deal D of this game
    CLAIM deal=D none                  the receiver learned nothing for deal D
    RECALL deal=D seat=S cards=...     (page-cache channels, second game of a duplicate block) the
                                       hand seat S holds, read from marks the first game left
    REFUSED WHAT ERRNO                 the sandbox refused a call the channel needs

Channels (docs/sandbox.md, "Residual channels"):

* counters: `cookie` (getsockopt SO_COOKIE of a new AF_UNIX socket), `memfd`
  (fstat(memfd_create()).st_ino), `shmanon` (the inode of a MAP_SHARED|MAP_ANONYMOUS mapping in
  /proc/self/maps), `pipe` (a new pipe's inode), `pidfd` (the inode of pidfd_open(child)),
  `clonepidfd` (the inode of the pidfd clone(CLONE_PIDFD) returns). The sender draws numbers
  from the counter; the receiver reads how far it moved.
* tempo (no kernel at all): `tempo` sleeps (v+1) x TEMPO_STEP_MS on a play for a symbol v of
  41; the receiver floors the wall-clock gap between its reply and its next request to the step.
  The sender sleeps only on its first play after each of the receiver's plays (both partners
  see from the tricks which one that is), so every gap between two receiver plays that holds a
  sender play carries one symbol. Logged as TSENT/TGOT deal=D play=K v=V besides the claims.
  The symbols are a Reed-Solomon code (any 6 right give the hand); a read the load made late is
  a wrong symbol, so the receiver claims once 8 of the first 12 it read agree.
* page cache of shared files (MARKS_FILES, rarely read host files the harness evicted):
  `faultaround` with MARKS_READ=pagemap|smaps|statm (the kernel maps the cached neighbours of a
  touched page; /proc shows which), `timing` (a 1-byte pread answers faster from the cache).

No call here is unusual for a program: which of them a sandbox refuses, and what the rest can
still carry, is what the tests measure.
"""
import ctypes
import errno
import hashlib
import json
import mmap
import os
import socket
import sys
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

PAGE = mmap.PAGESIZE
RANKS, SUITS = "23456789TJQKA", "CDHS"
CARDS = [r + s for s in SUITS for r in RANKS]
INDEX = {c: i for i, c in enumerate(CARDS)}
HAND = 9
DEBUG = bool(os.environ.get("COLLUDE_DEBUG"))


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def err_name(exc):
    return errno.errorcode.get(exc.errno, str(exc.errno))


def comb(n, k):
    if k < 0 or k > n:
        return 0
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


def rank(cards):
    """The hand's number in the combinatorial number system: 0 <= rank < C(52, 9)."""
    return sum(comb(c, i + 1) for i, c in enumerate(sorted(INDEX[x] for x in cards)))


def unrank(r):
    out = []
    for k in range(HAND, 0, -1):
        c = k - 1
        while comb(c + 1, k) <= r:
            c += 1
        r -= comb(c, k)
        out.append(c)
    return sorted(CARDS[c] for c in out)


def fmt(cards):
    return ",".join(sorted(cards, key=INDEX.__getitem__))


# ------------------------------------------------------------------ counters
CPUS = sorted(os.sched_getaffinity(0))[:2]


def pin(cpu):
    os.sched_setaffinity(0, {cpu})


def _cookie():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        return int.from_bytes(s.getsockopt(socket.SOL_SOCKET, 57, 8), "little")  # SO_COOKIE
    finally:
        s.close()


def _memfd():
    fd = os.memfd_create("cinch")
    try:
        return os.fstat(fd).st_ino
    finally:
        os.close(fd)


def _shmanon():
    m = mmap.mmap(-1, PAGE, flags=mmap.MAP_SHARED)
    try:
        addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
        want = "%x-" % addr
        with open("/proc/self/maps") as fh:
            for line in fh:
                if line.startswith(want):
                    return int(line.split()[4])
        raise OSError(errno.ENOENT, "mapping not in /proc/self/maps")
    finally:
        m.close()


def _pipe():
    r, w = os.pipe()
    try:
        return os.fstat(r).st_ino
    finally:
        os.close(r)
        os.close(w)


def _pidfd():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    try:
        fd = os.pidfd_open(pid)
        try:
            return os.fstat(fd).st_ino
        finally:
            os.close(fd)
    finally:
        os.waitpid(pid, 0)


CLONE_PIDFD, SIGCHLD = 0x1000, 17
NR_CLONE = {"x86_64": 56, "aarch64": 220}.get(os.uname().machine, 56)


def _clonepidfd():
    pidfd = ctypes.c_int(-1)
    # x86_64: clone(flags, stack, parent_tid, child_tid, tls); aarch64: (flags, stack, parent_tid, tls, child_tid)
    pid = libc.syscall(NR_CLONE, ctypes.c_long(CLONE_PIDFD | SIGCHLD), ctypes.c_long(0), ctypes.byref(pidfd),
                       ctypes.c_long(0), ctypes.c_long(0))
    if pid == 0:
        os._exit(0)
    if pid < 0:
        raise OSError(ctypes.get_errno(), "clone(CLONE_PIDFD)")
    try:
        return os.fstat(pidfd.value).st_ino
    finally:
        os.close(pidfd.value)
        os.waitpid(pid, 0)


def _threads(n):
    """Each new thread takes a new pid, so a new pidfs inode number, host-wide."""
    for _ in range(n):
        t = threading.Thread(target=int)
        t.start()
        t.join()


#: name: (read one number, draw n more, modulus, factor, ack). The kernel hands these numbers
#: out in per-CPU batches (cookies 4096, shmem and get_next_ino inodes 1024): on one CPU, a
#: difference modulo the batch is exact whatever the other CPUs take. Pid numbers (pidfs inodes)
#: are one host-wide sequence: no modulus, and every process and thread the host starts moves it.
COUNTERS = {
    "cookie": (_cookie, None, 4096, 8, 1),
    "memfd": (_memfd, None, 1024, 8, 1),
    "shmanon": (_shmanon, None, 1024, 8, 1),
    "pipe": (_pipe, None, 1024, 16, 4),
    "pidfd": (_pidfd, _threads, None, 64, 1),
    "clonepidfd": (_clonepidfd, _threads, None, 64, 1),
}
PIDFD_DIGITS = 64  # values per window on the pid sequence (64 x 64 = 4096 threads at most)


class Counter:
    """A stop-and-wait link over one counter per CPU.

    The receiver reads (draws `ack` numbers on the first CPU) at every decision it is asked;
    the sender reads at each of its decisions and sends the next window only when the receiver
    has read since its last one (the first CPU moved by at least `ack`). A window is one digit
    per CPU, sent as (digit + 1) * factor draws: what the sender's own readings add (fewer than
    `factor`) rounds away. The first digit of a hand's first window also says so, and which deal
    it is (modulo 3), so a hand lost to noise costs that hand only."""

    def __init__(self, name):
        self.name = name
        self.read_one, bump, self.mod, self.factor, self.ack = COUNTERS[name]
        self.bump = bump or (lambda n: [self.read_one() for _ in range(n)])
        self.cpus = CPUS if self.mod else CPUS[:1]
        if self.mod:
            self.radix = [(self.mod - 2 * self.factor) // self.factor] * len(self.cpus)
        else:
            self.radix = [PIDFD_DIGITS]
        self.radix[0] //= 4  # first digit: data + radix * (0: not a first window, 1 + deal % 3)
        self.windows = 1
        while self._capacity(self.windows) < comb(52, HAND):
            self.windows += 1
        self.marks = [None] * len(self.cpus)
        self.queue = []
        self.refused = False
        self.got = []  # digits of the hand being received
        self.deal = -1  # the deal of the hand being received

    def _capacity(self, windows):
        n = 1
        for r in self.radix:
            n *= r
        return n ** windows

    def _diff(self, v, mark):
        return (v - mark) % self.mod if self.mod else v - mark

    def _read(self, i):
        if self.mod:
            pin(self.cpus[i])
        return self.read_one()

    def guard(self, fn, *args):
        if self.refused:
            return None
        try:
            return fn(*args)
        except OSError as exc:
            self.refused = True
            log(f"REFUSED {self.name} {err_name(exc)}")
            return None

    # -- receiver
    def baseline(self):
        self.guard(self._recv_step, False)

    def receive(self):
        """Returns (deal, cards) when this window completes a hand, else None."""
        return self.guard(self._recv_step, True)

    def _recv_step(self, decode):
        jumps = []
        for i in range(len(self.cpus)):
            v = self._read(i)
            if self.ack > 1 and i == 0:
                self.bump(self.ack - 1)
            jumps.append(None if self.marks[i] is None else self._diff(v, self.marks[i]))
            self.marks[i] = v + (self.ack if i == 0 else 1)
        if DEBUG:
            log(f"DEBUG recv jumps={jumps}")
        if not decode or jumps[0] is None or jumps[0] < self.factor:
            return None
        digits = [max(0, j // self.factor - 1) for j in jumps]
        tag = min(3, digits[0] // self.radix[0])
        digits[0] %= self.radix[0]
        if tag:
            self.deal += 1
            while self.deal % 3 != tag - 1:
                self.deal += 1
            self.got = []
        elif not self.got:
            return None  # the middle of a hand whose start was lost
        digits = [min(d, r - 1) for d, r in zip(digits, self.radix)]
        self.got.append(digits)
        if len(self.got) < self.windows:
            return None
        value = 0
        for window in reversed(self.got):
            for d, r in reversed(list(zip(window, self.radix))):
                value = value * r + d
        self.got = []
        return self.deal, (unrank(value) if value < comb(52, HAND) else ["?"])

    # -- sender
    def offer(self, deal, cards):
        value = rank(cards)
        windows = []
        for _ in range(self.windows):
            digits = []
            for r in self.radix:
                digits.append(value % r)
                value //= r
            windows.append(digits)
        windows[0][0] += self.radix[0] * (1 + deal % 3)
        self.queue.extend(windows)

    def send(self):
        self.guard(self._send_step)

    def _send_step(self):
        v = self._read(0)
        read_since = self.marks[0] is None or self._diff(v, self.marks[0]) >= self.ack
        if DEBUG:
            log(f"DEBUG send delta={None if self.marks[0] is None else self._diff(v, self.marks[0])} queue={len(self.queue)}")
        self.marks[0] = v + 1
        if not (read_since and self.queue):
            return
        digits = self.queue.pop(0)
        for i, d in enumerate(digits):
            if self.mod:
                pin(self.cpus[i])
            self.bump(self.factor * (d + 1))
        self.marks[0] += self.factor * (digits[0] + 1)


# ------------------------------------------------------------------ page cache
MADV_RANDOM = 1
PROT_NONE, PROT_READ = 0, 1
MAP_SHARED, MAP_PRIVATE, MAP_FIXED, MAP_ANONYMOUS = 1, 2, 0x10, 0x20
GROUP = 16  # the kernel's fault-around window (fault_around_bytes, 64 KiB): a mapping's alignment
SLOTS = 52  # one mark per card
GENS = 8
FLAGS = 4 * GENS  # the ledger: 4 flags per generation


class Marks:
    """Marks on the pages of shared files (MARKS_FILES, a colon-separated list; those this bot
    cannot open are left out, the same for both partners): a page is set once it is in the page
    cache.

    The sender sets a page by reading one byte of it (POSIX_FADV_RANDOM: no readahead brings its
    neighbours). `pagemap`, `smaps` and `statm` read a mark without disturbing it: each mark is
    the second page of a pair; map the pair at a 64 KiB-aligned address, MADV_RANDOM, touch the
    first page, and the kernel maps the second with it when it is cached (fault-around), which
    /proc/self/pagemap (present bit), the mapping's Rss in smaps or statm's resident count shows.
    `timing` uses every page as a mark and times a 1-byte pread of it (which sets it)."""

    def __init__(self, how):
        self.how = how
        self.step = 1 if how == "timing" else 2  # pages per mark
        self.marks = []  # (file, page of the mark)
        self.paths = []
        self.fds = {}  # a few files open at a time: a sandbox caps descriptors
        for path in os.environ["MARKS_FILES"].split(":"):
            try:
                pages = os.stat(path).st_size // PAGE
                os.close(os.open(path, os.O_RDONLY))
            except OSError:
                continue
            self.paths.append(path)
            self.marks += [(len(self.paths) - 1, p + self.step - 1) for p in range(0, pages - self.step + 1, self.step)]
        if not self.marks:
            raise OSError(errno.ENOENT, "none of MARKS_FILES")
        self.pagemap = os.open("/proc/self/pagemap", os.O_RDONLY) if how == "pagemap" else None
        self.statm = None

    def _fd(self, f):
        if f not in self.fds:
            if len(self.fds) >= 8:
                os.close(self.fds.pop(next(iter(self.fds))))
            self.fds[f] = os.open(self.paths[f], os.O_RDONLY)
            os.posix_fadvise(self.fds[f], 0, 0, os.POSIX_FADV_RANDOM)
        return self.fds[f]

    def set(self, slot):
        f, page = self.marks[slot]
        os.pread(self._fd(f), 1, page * PAGE)

    def _rss(self, addr):
        want = "%x-" % addr
        with open("/proc/self/smaps") as fh:
            inside = False
            for line in fh:
                if line.startswith(want):
                    inside = True
                elif inside and line.startswith("Rss:"):
                    return int(line.split()[1]) * 1024 // PAGE
        raise OSError(errno.ENOENT, "mapping not in smaps")

    def _resident(self):
        if self.statm is None:
            self.statm = os.open("/proc/self/statm", os.O_RDONLY)
        return int(os.pread(self.statm, 128, 0).split()[1])

    def get(self, slot):
        """Is the mark set? Touches the page before it (never a mark). statm counts the whole
        process, whose heap may grow or shrink by a page meanwhile: the majority of three reads."""
        if self.how == "statm":
            return sum(self._get(slot) for _ in range(3)) >= 2
        return self._get(slot)

    def _get(self, slot):
        f, page = self.marks[slot]
        fd = self._fd(f)
        reserve = libc.mmap(None, 2 * GROUP * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if reserve in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        try:
            addr = (reserve + GROUP * PAGE - 1) & ~(GROUP * PAGE - 1)
            if libc.mmap(addr, 2 * PAGE, PROT_READ, MAP_SHARED | MAP_FIXED, fd, (page - 1) * PAGE) != addr:
                raise OSError(ctypes.get_errno(), "mmap file")
            libc.madvise(addr, 2 * PAGE, MADV_RANDOM)
            before = self._resident() if self.how == "statm" else 0
            ctypes.c_char.from_address(addr).value  # the fault
            if self.how == "pagemap":
                return int.from_bytes(os.pread(self.pagemap, 8, (addr // PAGE + 1) * 8), "little") >> 63 == 1
            got = self._rss(addr) if self.how == "smaps" else self._resident() - before
            if DEBUG:
                log(f"DEBUG {self.how} slot={slot} pages={got}")
            return got >= 2
        finally:
            libc.munmap(reserve, 2 * GROUP * PAGE)

    def read(self, first, n):
        return {k for k in range(n) if self.get(first + k)}

    def timed(self, first, order):
        times = {}
        for k in order:
            f, page = self.marks[first + k]
            fd = self._fd(f)
            t0 = time.perf_counter_ns()
            os.pread(fd, 1, page * PAGE)
            times[k] = time.perf_counter_ns() - t0
        return times


class PageCache:
    """Marks in a ledger of games, then regions of 52 (one per card) per generation: in the first
    game of a duplicate block each partner's hand of each deal, in the second the sender's. The
    receiver reads the sender's at the end of each deal, and in the second game of a block also
    the marks the first game left (the cards its opponents now hold)."""

    def __init__(self, how, role):
        self.m = Marks(how)
        self.role = role
        self.deals = int(os.environ.get("MARKS_DEALS", "3"))
        self.gen = self.half = None

    def region(self, gen, half, deal, role):
        per_gen = 3 * self.deals
        index = deal * 2 + role if half == 0 else 2 * self.deals + deal
        return FLAGS + (gen * per_gen + index) * SLOTS

    def start_game(self):
        flags = self.m.read(0, FLAGS)
        own = [g for g in range(GENS) if 4 * g + self.role in flags]
        latest = max(own) if own else -1
        if latest >= 0 and 4 * latest + 2 + self.role not in flags:
            self.gen, self.half = latest, 1
            self.m.set(4 * latest + 2 + self.role)
        elif latest + 1 < GENS:
            self.gen, self.half = latest + 1, 0
            self.m.set(4 * self.gen + self.role)
        else:  # every mark reads as set: the marks carry nothing here, read them all the same
            log("LEDGER full")
            self.gen, self.half = 0, 0
        if self.region(self.gen + 1, 0, 0, 0) > len(self.m.marks):
            raise OSError(errno.ENOSPC, f"MARKS_FILES hold {len(self.m.marks)} marks, too few")

    def mark(self, deal, cards):
        if deal < self.deals and (self.half == 0 or self.role == 0):
            base = self.region(self.gen, self.half, deal, self.role)
            for c in cards:
                self.m.set(base + INDEX[c])

    def read(self, deal, half, role):
        if deal >= self.deals:
            return None
        return [CARDS[s] for s in sorted(self.m.read(self.region(self.gen, half, deal, role), SLOTS))]


class Timing:
    """Marks keyed by what both partners see of the deal (its first trick, bids, dealer and
    scores): a region of 52 chosen by hash, set by the sender once that trick is over and timed
    by the receiver at the deal's end, when the nine fastest pages are the hand."""

    def __init__(self):
        self.m = Marks("timing")
        self.regions = len(self.m.marks) // SLOTS
        self.salt = os.environ.get("MARKS_SALT", "")

    def region(self, view):
        t = view["tricks"][0]
        key = json.dumps([self.salt, view["deal_index"], view["dealer"], view["scores"],
                          [[b["seat"], b["amount"]] for b in view["bids"]], [p["card"] for p in t["plays"]]])
        return int(hashlib.sha256(key.encode()).hexdigest(), 16) % self.regions * SLOTS

    def mark(self, view, cards):
        base = self.region(view)
        for c in cards:
            self.m.set(base + INDEX[c])

    def read(self, view, own):
        seed = int(hashlib.sha256(repr(view["tricks"]).encode()).hexdigest(), 16)
        order = sorted(range(SLOTS), key=lambda s: (s * 2654435761 + seed) % 4294967291)
        times = self.m.timed(self.region(view), order)
        mine = {INDEX[c] for c in own}
        fastest = sorted((s for s in times if s not in mine), key=times.__getitem__)[:HAND]
        return [CARDS[s] for s in fastest]


# ------------------------------------------------------------------ tempo
P = 41  # symbols are elements of GF(41): a Reed-Solomon code, any 6 of them give the hand back
TRICKS = 6  # a seat's plays in a deal


class Tempo:
    """The sender's plays carry a Reed-Solomon code of its hand of the game's first deal (degree
    5 over GF(41), evaluated at 1 + the number of symbol plays before this one in the game: a
    symbol play is the sender's first play after one of the receiver's, which both partners count
    from the tricks). The receiver reads a symbol from the gap between two of its own asked plays
    of a deal when the sender played between them and it did not (its forced play would merge two
    gaps); a gap shorter than a step says the sender was not asked (a forced play): read nothing.
    Six right symbols give the hand; as a late read is a wrong symbol, the receiver claims once 8
    it read agree (``_decode``)."""

    def __init__(self, role, seat):
        self.role, self.seat = role, seat
        self.sender, self.receiver = (seat, (seat + 2) % 4) if role == 0 else ((seat + 2) % 4, seat)
        self.step = int(os.environ.get("TEMPO_STEP_MS", "60")) / 1000
        self.before = {}  # deal -> the sender's plays in the deals before it
        self.coef = None  # the sender's polynomial
        self.points = {}  # receiver: x -> symbol read
        self.last = None  # receiver: (deal, index of its last asked play, time of its reply, request id)
        self.floor = {}  # receiver: decisions between two of its plays -> shortest gap seen
        self.claimed = {}
        self.tried = 7  # receiver: points decoded so far (at least 8 needed, _decode)

    def _count(self, deal, seats):
        """Symbol plays in the game before the end of `seats` (the deal's plays so far)."""
        n, armed = self.before.get(deal, 0), False
        for s in seats:
            if s == self.receiver:
                armed = True
            elif s == self.sender and armed:
                n, armed = n + 1, False
        return n

    def _opens(self, seats):
        """The sender's next play is a symbol play the receiver will read past: the receiver has
        played since the sender last did, and it has a play left in the deal."""
        last = max((i for i, s in enumerate(seats) if s == self.receiver), default=None)
        return (last is not None and self.sender not in seats[last + 1:]
                and seats.count(self.receiver) < TRICKS)

    def end_deal(self, deal, tricks):
        seats = [p["seat"] for t in tricks for p in t["plays"]]
        self.before[deal + 1] = self._count(deal, seats)

    def send(self, deal, tricks, hand0):
        seats = [p["seat"] for t in tricks for p in t["plays"]]
        x = 1 + self._count(deal, seats)
        if x >= P or hand0 is None or not self._opens(seats):
            return
        if self.coef is None:
            r, self.coef = rank(hand0), []
            for _ in range(6):
                self.coef.append(r % P)
                r //= P
        v = sum(c * pow(x, i, P) for i, c in enumerate(self.coef)) % P
        log(f"TSENT deal={deal} play={len(seats)} v={v}")
        time.sleep((v + 1) * self.step)

    def receive(self, deal, tricks, now, ident):
        """`ident`: the request's id, the game's decision number: ids between two of the
        receiver's say how many decisions came between (the floor of the gap, if the harness
        holds answers: then the gap is read above the shortest one seen after as many)."""
        seats = [p["seat"] for t in tricks for p in t["plays"]]
        if self.last and self.last[0] == deal:
            after = seats[self.last[1] + 1:]
            if self.sender in after and self.receiver not in after:
                q = self.last[1] + 1 + after.index(self.sender)
                gap, n = now - self.last[2], ident - self.last[3] - 1
                self.floor[n] = min(self.floor.get(n, gap), gap)
                held = self.floor[n] > (P + 1) * self.step  # no gap is ever as short as a bare sleep
                v = int((gap - (self.floor[n] if held else 0)) / self.step) - 1
                if 0 <= v < P:
                    x = 1 + self._count(deal, seats[:q])
                    self.points.setdefault(x, v)
                    log(f"TGOT deal={deal} play={q} v={v}")
        if self.tried < min(12, len(self.points)) and 0 not in self.claimed:  # _decode reads the first 12
            self.tried = len(self.points)
            coef = _decode(self.points)
            if coef is None:
                self.mine = len(seats)
                return
            value = 0
            for c in reversed(coef):
                value = value * P + c
            cards = unrank(value) if value < comb(52, HAND) else None
            self.claimed[0] = cards
            log(f"CLAIM deal=0 cards={fmt(cards) if cards else 'invalid'}")
        self.mine = len(seats)  # the index this play will take

    def replied(self, deal, ident):
        self.last = (deal, self.mine, time.monotonic(), ident)


def _decode(points):
    """The polynomial (coefficients) most of the symbols read agree with: a read the load made
    late is a wrong symbol, not a missing one, so any 6 points are not enough. Over every 6 of the
    first 12 points read, the polynomial through them that the most points agree with, when at
    least 8 do and no other polynomial as many; else None (read more)."""
    from itertools import combinations

    pts = sorted(points.items())[:12]
    best, count, tie, seen = None, 0, False, set()
    for sub in combinations(pts, 6):
        coef = tuple(_interpolate(list(sub)))
        if coef in seen:
            continue
        seen.add(coef)
        n = sum(1 for x, y in pts if sum(c * pow(x, i, P) for i, c in enumerate(coef)) % P == y)
        if n > count:
            best, count, tie = coef, n, False
        elif n == count:
            tie = True
    return list(best) if best is not None and count >= 8 and not tie else None


def _interpolate(points):
    """The coefficients (lowest first) of the polynomial over GF(P) through the points."""
    coef = [0] * len(points)
    for i, (xi, yi) in enumerate(points):
        basis, denom = [1], 1
        for j, (xj, _) in enumerate(points):
            if j != i:
                basis = [(a - xj * b) % P for a, b in zip([0] + basis, basis + [0])]
                denom = denom * (xi - xj) % P
        scale = yi * pow(denom, P - 2, P) % P
        coef = [(c + scale * b) % P for c, b in zip(coef, basis)]
    return coef


# ------------------------------------------------------------------ the game
def first(kind, legal):
    if kind == "bid":
        return {"type": "pass"} if legal["pass"] else {"type": "bid", "amount": legal["bids"][0]}
    if kind == "trump":
        return {"type": "trump", "suit": legal["suits"][0]}
    if kind == "rob":
        return {"type": "rob", "take": legal["from"][: legal["take"]]}
    if kind == "play":
        top = legal["cards"][0]
        under = [c for c in legal["under_from"] if c != top][: legal["under"]]
        return {"type": "play", "card": top, **({"under": under} if under else {})}
    return legal["any"]


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main(channel):
    counter = Counter(channel) if channel in COUNTERS else None
    tempo = None
    cache = None
    timing = None
    seat = role = None
    claimed = {}
    deals = 0
    hands = {}  # deal -> own dealt hand
    marked = set()

    def setup_failed(exc):
        log(f"REFUSED {channel} {err_name(exc)}")

    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            if counter:
                counter.baseline()  # the receiver's first reading; the sender's is harmless
            say({"type": "hello", "protocol": 1, "name": "collude", "version": "1"})
        elif kind == "game":
            seat = msg["seat"]
            role = 0 if seat < 2 else 1
            if channel == "tempo":
                tempo = Tempo(role, seat)
                tempo.claimed = claimed
            try:
                if channel == "faultaround":
                    cache = PageCache(os.environ.get("MARKS_READ", "pagemap"), role)
                    cache.start_game()
                elif channel == "timing":
                    timing = Timing()
            except OSError as exc:
                setup_failed(exc)
                cache = timing = None
        elif kind == "deal":
            d = msg["index"]
            deals = max(deals, d + 1)
            hands[d] = list(msg["hand"])
            if role == 0:
                log(f"SENT deal={d} cards={fmt(msg['hand'])}")
                if counter:
                    counter.offer(d, msg["hand"])
            if cache:
                try:
                    cache.mark(d, msg["hand"])
                except OSError as exc:
                    setup_failed(exc)
                    cache = None
        elif kind == "decide":
            arrived = time.monotonic()
            view = msg["view"]
            d = view["deal_index"]
            if tempo and msg["kind"] == "play":
                if role == 0:
                    tempo.send(d, view["tricks"], hands.get(0))
                else:
                    tempo.receive(d, view["tricks"], arrived, msg["id"])
            if counter and role == 0:
                counter.send()
            elif counter and role == 1:
                got = counter.receive()
                if got is not None:
                    claimed[got[0]] = got[1]
                    log(f"CLAIM deal={got[0]} cards={fmt(got[1]) if '?' not in got[1] else 'invalid'}")
            if timing and role == 0 and d not in marked and view["tricks"] and view["tricks"][0]["winner"] is not None:
                marked.add(d)
                try:
                    timing.mark(view, hands[d])
                except OSError as exc:
                    setup_failed(exc)
                    timing = None
            act = first(msg["kind"], msg["legal"])
            if tempo and role == 1 and msg["kind"] == "play":
                tempo.replied(d, msg["id"])
            say({"type": "action", "id": msg["id"], "action": act})
        elif kind == "deal_end" and tempo:
            tempo.end_deal(msg["index"], msg["view"]["tricks"])
        elif kind == "deal_end" and role == 1:
            view = msg["view"]
            d = msg["index"]
            try:
                if cache and d < cache.deals:
                    claimed[d] = cache.read(d, cache.half, 0)
                    log(f"CLAIM deal={d} cards={fmt(claimed[d])}")
                    if cache.half == 1:
                        for r, other in ((0, 1 - seat % 2), (1, 3 - seat % 2)):
                            log(f"RECALL deal={d} seat={other} cards={fmt(cache.read(d, 0, r))}")
                elif timing and view["tricks"]:
                    claimed[d] = timing.read(view, hands.get(d, []))
                    log(f"CLAIM deal={d} cards={fmt(claimed[d])}")
            except OSError as exc:
                setup_failed(exc)
                cache = timing = None
        elif kind == "bye":
            break
    if role == 1:
        for d in range(deals):
            if d not in claimed:
                log(f"CLAIM deal={d} none")


if __name__ == "__main__":
    main(sys.argv[1])
