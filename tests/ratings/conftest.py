import os
import sys

# Let test modules import the local ``simulate`` helper.
sys.path.insert(0, os.path.dirname(__file__))
