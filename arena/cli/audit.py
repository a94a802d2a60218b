"""`arena audit`: the collusion audit of finished games."""

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.options import format_option
from arena.formats import AuditFormat

AUDIT_RESAMPLES = 200
"""The audit's default resamples (``arena.ratings.audit.RESAMPLES``, not imported here: numpy
loads only for the command that runs)."""


def audit_command(
    paths: Annotated[
        list[Path],
        typer.Argument(help="games.jsonl files, results directories holding one, or a league's "
                            "export.", metavar="PATH", show_default=False),
    ],
    fmt: Annotated[AuditFormat, format_option(AuditFormat, "Output format: {}.")] = AuditFormat.PLAIN,
    resamples: Annotated[int, typer.Option(
        help="Bootstrap resamples of whole duplicate sets, for the intervals and p-values.",
        min=50, max=100_000)] = AUDIT_RESAMPLES,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap's resampling.",
                                      min=0, max=2**63 - 1)] = 0,
) -> None:
    """Does an entrant score more when another sits at its table? Every ordered pair of entrants
    of different owners that sat together: the beneficiary's deal results beside the helper
    against what the deals model (fitted without their games together) expects of it against
    the same opponents, or against the same cards played without the helper where a schedule
    played them (a match's baseline games). The effect in points per deal and Elo, a 95%
    interval from the set bootstrap, a one-sided p-value corrected over the pairs (Holm); a pair
    is flagged where that p is below 0.05 and the effect at least the documented minimum.
    Flagged pairs first, with the evidence. Owners come from the records' owners (else each
    bot is its own owner). See docs/audit.md for what it can and cannot see.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from arena.ratings.audit_text import audit_paths

    output = audit_paths(paths, fmt=fmt, resamples=resamples, seed=seed)
    for note in output.notes:
        print(f"arena: note: {note}", file=sys.stderr)
    sys.stdout.write(output.text)
