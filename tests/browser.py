"""Headless Chromium for the tests that look at a page as a person does (Playwright driving Debian's
`chromium`, which `.ci/run` installs when missing). Where no browser is found a test is skipped,
except under CI, where it fails: CI must run them."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


def chromium_path() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        message = "no chromium on PATH (apt-get install chromium, or set CHROMIUM=/path/to/chrome)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@contextmanager
def browser() -> Iterator[object]:
    """A Playwright browser, closed when the block ends."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path())
        try:
            yield launched
        finally:
            launched.close()


class WatchedPage:
    """A new page of `browser` that records every console error and uncaught exception."""

    def __init__(self, browser, width: int = 1400, height: int = 900) -> None:
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.errors: list[str] = []
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
