"""The browser the page tests drive: Debian's Chromium through Playwright, one new, empty
profile per test, every request recorded and any that leaves loopback aborted (the pages
must work without internet), console errors and uncaught exceptions collected.

Without Chromium or Playwright the browser tests are skipped, saying why — except under
CI=true, where they fail (.ci/run installs Chromium).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}


def chromium_executable() -> str:
    """The system Chromium; skip (fail under CI=true) where it or Playwright is missing."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    reason = None
    if found is None:
        reason = "no chromium on PATH (apt-get install chromium chromium-driver)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "playwright is not installed (the dev extra brings it)"
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and no browser for the page tests: {reason}")
        pytest.skip(reason)
    return found


class Browsing:
    """One browser profile (a new, empty user-data-dir) that records, per page, console
    errors, uncaught exceptions and every request, aborting those that leave loopback."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.requests: list[str] = []
        context.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        url = route.request.url
        self.requests.append(url)
        if urlsplit(url).hostname not in LOOPBACK:
            self.outside.append(url)
            route.abort()
        else:
            route.continue_()

    def open(self, url: str) -> Any:
        page = self.context.new_page()
        page.on(
            "console",
            lambda message: message.type == "error" and self.errors.append(message.text),
        )
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        response = page.goto(url, wait_until="networkidle")
        assert response is not None and response.status == 200, url
        return page

    def check(self, page: Any, shot: Path) -> None:
        """No console error, nothing fetched from outside; a screenshot to look at."""
        page.screenshot(path=str(shot), full_page=False)
        assert self.errors == [], self.errors
        assert self.outside == [], self.outside


@contextmanager
def launched() -> Iterator[tuple[Any, str]]:
    """Playwright's Chromium launcher and the system Chromium's path (a module fixture)."""
    executable = chromium_executable()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright.chromium, executable


@contextmanager
def profile(chromium: tuple[Any, str], width: int = 1280, height: int = 900) -> Iterator[Browsing]:
    """A browser with a new, empty profile and a window of `width` × `height`."""
    launcher, executable = chromium
    with tempfile.TemporaryDirectory(prefix="killmath-chromium-") as directory:
        context = launcher.launch_persistent_context(
            directory,
            executable_path=executable,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": width, "height": height},
        )
        try:
            yield Browsing(context)
        finally:
            context.close()
