"""Writes an endless line (no newline) to stdout."""
import sys
chunk = b"x" * 65536
while True:
    sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()
