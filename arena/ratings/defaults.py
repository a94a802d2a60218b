"""The ratings' defaults that a command's options show, apart from the model so that ``--help``
needs no numpy."""

RESAMPLES = 1000
"""Bootstrap resamples for the intervals and LOS, unless a command is given another number."""
