"""The analysis's defaults, light to import (the command line's options read them)."""

DEFAULT_SAMPLES = 64
"""Samples of the unseen cards per decision: see docs/analysis.md (the bench's standard error
against samples, and the time of one seat of a 4-player Blackout game)."""
DEFAULT_GAMES = 10
"""Games of the entrant analysed by default (``--games``)."""
