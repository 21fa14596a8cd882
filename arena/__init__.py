"""cinch-arena: tournament runner and bot-competition harness for Cinch."""

__version__ = "0.1.0"
