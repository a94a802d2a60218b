"""The collusion audit as a command shows it: results files read, the audit rendered as plain
text (flagged pairs first, with their evidence) or JSON (one writer per format, ``WRITERS``).

Entrant names are participants' text: the plain text shows them ``printable``, the JSON exactly
(``printable_json``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import orjson

from arena.errors import ResultsError
from arena.formats import AuditFormat
from arena.printable import printable, printable_json
from arena.ratings.audit import RESAMPLES, Audit, AuditPair, audit
from arena.records.reader import ReadNotes, read_audit_inputs


@dataclass(frozen=True)
class AuditOutput:
    """The audit as text, and notes for the user (stderr) about what was read."""

    text: str
    notes: list[str]


def audit_paths(paths: Sequence[str | os.PathLike[str]], *, fmt: AuditFormat = AuditFormat.PLAIN,
                resamples: int = RESAMPLES, seed: int = 0) -> AuditOutput:
    """``arena audit``: read the results in ``paths`` (games.jsonl files, results directories,
    a league's export) and render their audit."""
    notes = ReadNotes()
    results = list(read_audit_inputs(paths, notes))
    if not results:
        raise ResultsError(f"no game results in {', '.join(str(p) for p in paths)}")
    return AuditOutput(render_audit(audit(results, resamples=resamples, seed=seed), fmt),
                       notes.messages())


def audit_results(results: Iterable[Mapping[str, object]], *,
                  fmt: AuditFormat = AuditFormat.PLAIN, resamples: int = RESAMPLES,
                  seed: int = 0) -> str:
    """The rendered audit of audit inputs (``league audit``)."""
    return render_audit(audit(results, resamples=resamples, seed=seed), fmt)


def render_audit(found: Audit, fmt: AuditFormat = AuditFormat.PLAIN) -> str:
    """The audit in format ``fmt``."""
    return WRITERS[fmt](found)


def audit_json(found: Audit) -> dict[str, object]:
    """The audit as JSON-able data: ``{"pairs": [{"beneficiary", "helper", "effect", "low",
    "high", "p", "flagged", "deals"}]}``, in the audit's order (flagged first)."""
    return {"pairs": [{"beneficiary": pair.beneficiary, "helper": pair.helper,
                       "effect": _finite(pair.effect), "low": _finite(pair.low),
                       "high": _finite(pair.high), "p": pair.p, "flagged": pair.flagged,
                       "deals": pair.deals} for pair in found.pairs]}


def _json(found: Audit) -> str:
    return printable_json(orjson.dumps(audit_json(found), option=orjson.OPT_INDENT_2).decode()
                          ) + "\n"


def evidence(pair: AuditPair) -> str:
    """One pair's figures in words: effect, interval, p, games together, deals compared."""
    if pair.effect is None:
        return (f"{pair.games:,} game{'s' * (pair.games != 1)} together; nothing to compare "
                f"(no comparison with an expectation once their games together are set aside)")
    what = ("duplicate counterparts without the helper" if pair.counterparts
            else "at the helper's tables")
    if pair.p is None:
        return (f"{pair.effect:+.4f} points per deal, not tested: too few duplicate sets with "
                f"or without the helper; {pair.games:,} game{'s' * (pair.games != 1)} together, "
                f"{pair.deals:,} deals compared ({what})")
    return (f"{pair.effect:+.4f} points per deal ({_signed(pair.elo)} Elo), 95% "
            f"[{_signed(pair.low, 4)}, {_signed(pair.high, 4)}], p {_p(pair.p)} (Holm); "
            f"{pair.games:,} game{'s' * (pair.games != 1)} together, {pair.deals:,} deals "
            f"compared ({what})")


def _plain(found: Audit) -> str:
    lines: list[str] = []
    flagged = found.flagged
    if flagged:
        lines.append(f"FLAGGED: {len(flagged)} pair{'s' * (len(flagged) != 1)} "
                     f"(beneficiary helped by helper)")
        for pair in flagged:
            lines.append(f"  {printable(pair.beneficiary)} helped by {printable(pair.helper)}: "
                         f"{evidence(pair)}")
        lines.append("")
    else:
        lines.append("No pair flagged.")
        lines.append("")
    rest = [pair for pair in found.pairs if not pair.flagged]
    if rest:
        lines.append("Other pairs (beneficiary / helper: effect):")
        for pair in rest:
            lines.append(f"  {printable(pair.beneficiary)} / {printable(pair.helper)}: "
                         f"{evidence(pair)}")
        lines.append("")
    lines.append(f"{found.games:,} games, {found.entrants} entrants, {len(found.pairs)} ordered "
                 f"pairs of different owners that sat together. Effect: points per deal above "
                 f"what the deals model, fitted without the pair's games together, expects; "
                 f"flagged where p < {found.alpha:g} after Holm's correction over the pairs and "
                 f"the effect is at least {found.min_effect:g} (docs/audit.md).")
    lines.append(f"Intervals and p from {found.resamples} bootstrap resamples of whole duplicate "
                 f"sets (seed {found.seed}).")
    if found.same_owner:
        lines.append(f"{found.same_owner} ordered pairs of one owner sat together: not audited.")
    return "\n".join(lines) + "\n"


WRITERS: dict[AuditFormat, Callable[[Audit], str]] = {
    AuditFormat.PLAIN: _plain,
    AuditFormat.JSON: _json,
}
"""One writer for each format of the audit."""


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _signed(value: float | None, digits: int = 1) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.{digits}f}"


def _p(value: float) -> str:
    return f"{value:.2g}" if value >= 0.001 else f"{value:.1e}"
