"""Headless Chromium for the browser tests (the report's pages, the served league's): Debian's
chromium and chromedriver, driven by Selenium; the tests take it as the ``driver`` fixture
(tests/conftest.py) and wait on a page with ``page_wait``.

Nothing is downloaded: the driver is given explicitly (Selenium Manager is not asked), and Chromium
runs with a fresh profile, no sync, no component updates, no background networking.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
CHROMEDRIVER = ("/usr/bin/chromedriver",)


def missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    if _first(CHROMIUM) is None:
        return f"no Chromium at {' or '.join(CHROMIUM)} (apt-get install chromium)"
    if _first(CHROMEDRIVER) is None:
        return f"no chromedriver at {CHROMEDRIVER[0]} (apt-get install chromium-driver)"
    return None


def _first(paths: tuple[str, ...]) -> str | None:
    return next((path for path in paths if Path(path).exists()), None)


@contextmanager
def chromium(width: int = 1280, height: int = 900, *, phone: bool = False) -> Iterator[Any]:
    """A headless Chromium WebDriver with console logging, closed and its profile removed after.

    ``phone``: emulate a phone's screen of ``width`` x ``height`` CSS pixels (a headless window
    cannot be made narrower than about 500 pixels).
    """
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="arena-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = _first(CHROMIUM) or CHROMIUM[0]
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--allow-file-access-from-files",
                 f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    if phone:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {
            "width": width, "height": height, "pixelRatio": 2, "mobile": True, "touch": True}})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=_first(CHROMEDRIVER) or CHROMEDRIVER[0])
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver: Any) -> list[str]:
    """The browser console's errors since the last call."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


WAIT = 60
"""Seconds a page may take to reach what a test waits for: generous, the machine may be loaded."""


def page_wait(driver: Any, condition: Any) -> Any:
    """What ``condition(driver)`` returns once it is true; a failure after ``WAIT`` seconds."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, WAIT).until(condition)
