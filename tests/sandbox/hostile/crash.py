"""Says hello, then dies with exit code 3."""
import sys
print("hello", flush=True)
sys.exit(3)
