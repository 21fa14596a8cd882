"""Double-forks a daemon (new session, stdio closed) plus a plain child, then reports ready."""
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        time.sleep(3600)
    os._exit(0)
if os.fork() == 0:
    time.sleep(3600)
time.sleep(0.2)
print("ready", flush=True)
time.sleep(3600)
