"""Forks until refused; prints how many children it got, then waits."""
import os, time
count = 0
while count < 10000:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(3600)
        os._exit(0)
    count += 1
print(count, flush=True)
time.sleep(3600)
