"""A bot that runs the probe commands it is sent, one JSON object per line.

Each request names an action; the answer is a JSON object with the outcome.
This lets one test drive several containment checks in one launch.
"""
import json, os, signal, socket, sys


def attempt(fn):
    try:
        return {"ok": True, "value": fn()}
    except OSError as exc:
        return {"ok": False, "errno": exc.errno, "error": str(exc)}


def read(path, size=200):
    with open(path, "rb") as fh:
        return fh.read(size).decode("latin-1")


def write(path, size=1):
    with open(path, "wb") as fh:
        fh.write(b"x" * size)
    return size


def connect_tcp(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(1.0)
    try:
        s.connect(("127.0.0.1", port))
        return "connected"
    finally:
        s.close()


_held = []


def listen_abstract(name):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0" + name)
    s.listen(1)
    _held.append(s)
    return "listening"


def connect_abstract(name):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect("\0" + name)
        return "connected"
    finally:
        s.close()


def status():
    with open("/proc/self/status") as fh:
        return dict(line.rstrip("\n").split(":\t", 1) for line in fh if ":\t" in line)


def statfs(path):
    st = os.statvfs(path)
    return {"bfree": st.f_bfree, "bavail": st.f_bavail, "frsize": st.f_frsize, "ffree": st.f_ffree}


def eventfd_id():
    """The id /proc/self/fdinfo shows for a new eventfd (None where it shows none)."""
    fd = os.eventfd(0)
    try:
        with open(f"/proc/self/fdinfo/{fd}") as fh:
            for line in fh:
                if line.startswith("eventfd-id:"):
                    return int(line.split()[1])
        return None
    finally:
        os.close(fd)


ACTIONS = {
    "read": lambda a: attempt(lambda: read(a["path"])),
    "write": lambda a: attempt(lambda: write(a["path"], a.get("size", 1))),
    "exists": lambda a: {"ok": True, "value": os.path.exists(a["path"])},
    "listdir": lambda a: attempt(lambda: sorted(os.listdir(a["path"]))),
    "connect_tcp": lambda a: attempt(lambda: connect_tcp(a["port"])),
    "listen_abstract": lambda a: attempt(lambda: listen_abstract(a["name"])),
    "connect_abstract": lambda a: attempt(lambda: connect_abstract(a["name"])),
    "kill": lambda a: attempt(lambda: os.kill(a["pid"], a.get("sig", signal.SIGKILL))),
    "status": lambda a: {"ok": True, "value": status()},
    "ids": lambda a: {"ok": True, "value": {"pid": os.getpid(), "ppid": os.getppid(),
                                             "uid": os.getuid(), "cwd": os.getcwd()}},
    "env": lambda a: {"ok": True, "value": dict(os.environ)},
    "netdev": lambda a: attempt(lambda: read("/proc/net/dev", 65536)),
    "statfs": lambda a: attempt(lambda: statfs(a["path"])),
    "eventfd_id": lambda a: attempt(eventfd_id),
}

print(json.dumps({"hello": True}), flush=True)
for line in sys.stdin:
    req = json.loads(line)
    print(json.dumps(ACTIONS[req["action"]](req)), flush=True)
