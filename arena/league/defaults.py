"""The league's defaults that ``arena league``'s options show, apart from the modules that use
them so that ``--help`` imports none of the league (its store, matchmaker, submissions)."""

DELTA = 10.0
"""The default ``delta`` (Elo): a pair whose difference's interval lies within +-delta is a tie.
Ten points are 51.4% of the comparisons under any model (a deal under ``deals``)."""
LOCK_WAIT = 60.0
"""Seconds a submission waits for another one that is storing its bot, then gives up."""
SUSPEND_AFTER = 3
"""The default ``suspend_after``: games in a row in which an entrant failed to start, timed out or
crashed before the matchmaker stops seating it. Each such game costs the league up to a start or
move allowance (10 s by default), and a working bot almost never fails three in a row."""
