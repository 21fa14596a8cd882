"""Allocates and touches argv[1] MiB in 8 MiB steps, reporting progress."""
import sys
want = int(sys.argv[1])
hold = []
try:
    for i in range(0, want, 8):
        hold.append(bytearray(8 * 1024 * 1024))  # zero-filled: pages touched
        print(i + 8, flush=True)
except MemoryError:
    print("memoryerror", flush=True)
    sys.exit(1)
print("allocated-all", flush=True)
