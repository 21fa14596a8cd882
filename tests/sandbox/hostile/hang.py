"""Never answers: sleeps forever with a child doing the same."""
import os, time
if os.fork() == 0:
    time.sleep(3600)
time.sleep(3600)
