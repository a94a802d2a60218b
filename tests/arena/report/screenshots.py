"""Save the README's screenshots of a report: `python tests/arena/report/screenshots.py SITE DOCS`.

SITE is a directory `arena report` wrote (the README's come from `make demo`'s); DOCS is where the
PNG files go. Uses the same headless Chromium as the browser tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))  # tests/, where the browser tests' module is
from browser import chromium, console_errors

SHOTS = (  # file name, page, window width, tallest height
    ("report-index.png", "index.html", 1100, 1500),
    ("report-entrant.png", "entrant-1.html", 1100, 1300),
    ("report-replay.png", "replay.html?game=r1-t0000-s0&deal=6&decision=97", 1100, 1000),
    ("report-replay-phone.png", "replay.html?game=r1-t0000-s0&deal=6&decision=97", 390, 1400),
)
ANALYSIS_SHOT = ("report-analysis.png", "replay.html?game={game}&deal={deal}&decision={decision}",
                 1100, 1500)
"""The replay with analysis (docs/analysis.md): a site whose games were analysed first (`arena
report --analyse ENTRANT`), opened at GAME's DEAL and DECISION: `python
tests/arena/report/screenshots.py SITE DOCS --analysis GAME DEAL DECISION`."""


def main(site: Path, docs: Path, shots: tuple[tuple[str, str, int, int], ...] = SHOTS) -> None:
    """Open each page, size the window to the page, save the PNG."""
    for name, page, width, tallest in shots:
        with chromium(width, 800, phone=width < 500) as browser:
            browser.get(f"{site.resolve().as_uri()}/{page}")
            browser.find_element("css selector", "main")
            height = browser.execute_script("return document.documentElement.scrollHeight")
            browser.set_window_size(width, min(height + 20, tallest))
            browser.save_screenshot(str(docs / name))
            errors = console_errors(browser)
            print(name, "console errors:" if errors else "ok", *errors)


if __name__ == "__main__":
    if sys.argv[3:4] == ["--analysis"]:
        name, page, width, tallest = ANALYSIS_SHOT
        where = dict(zip(("game", "deal", "decision"), sys.argv[4:7], strict=True))
        main(Path(sys.argv[1]), Path(sys.argv[2]), ((name, page.format(**where), width, tallest),))
    else:
        main(Path(sys.argv[1]), Path(sys.argv[2]))
