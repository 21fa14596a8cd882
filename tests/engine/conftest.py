import os
import sys

# Let test modules import the local ``engine_helpers`` module.
sys.path.insert(0, os.path.dirname(__file__))
