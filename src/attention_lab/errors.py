"""User-facing failures and the one place that turns them into a one-line message and an exit code."""

from __future__ import annotations

import sys
from collections.abc import Callable


class UserError(Exception):
    """Bad input (a file, a param, a command-line value): reported as one line, never a traceback."""


def run_main(main: Callable[[], None]) -> None:
    """Run a command's `main`, printing `error: <message>` and exiting 2 on a `UserError`."""
    try:
        main()
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
