"""Writes argv[1] bytes to stderr, then reports on stdout and exits."""
import os, sys
total = int(sys.argv[1])
chunk = b"e" * 65536
left = total
while left:
    left -= os.write(2, chunk[: min(left, len(chunk))])
print("done", flush=True)
