"""User-facing failures and the one place that turns them, and the system's own (a full disk, a
closed pipe, Ctrl-C), into a one-line message and an exit code."""

from __future__ import annotations

import sys
from collections.abc import Callable

STDOUT = "stdout"  # the name a failed write to standard output is reported under


class UserError(Exception):
    """Bad input (a file, a param, a command-line value): reported as one line, never a traceback."""


class Terminated(BaseException):
    """The process was asked to stop (SIGTERM: `kill`, a scheduler's preemption) and did: exit 143,
    as a shell reports a process SIGTERM ended. A BaseException, as KeyboardInterrupt, so that no
    `except Exception` takes it for a failure to recover from."""


def write_stdout(text: str) -> None:
    """`sys.stdout.write`, whose failure (a full disk, a closed pipe) names stdout."""
    try:
        sys.stdout.write(text)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, STDOUT) from None  # EPIPE gives a BrokenPipeError


def run_main(main: Callable[[], None]) -> None:
    """Run a command's `main`; a failure is one line, `error: <message>`, and the exit status says
    which kind: 2 a `UserError`, 1 the system's refusal (`OSError`: a full disk, a permission, a
    closed pipe), 130 Ctrl-C. Whatever the command wrote atomically is left as it was."""
    try:
        main()
        try:  # what stdout still buffers fails here, not in the interpreter's exit, which would print more
            sys.stdout.flush()
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, STDOUT) from None
    except UserError as exc:
        fail(str(exc), 2)
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except Terminated as exc:
        fail(str(exc), 143)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        fail(f"{where}{exc.strerror or exc}", 1)


def fail(message: str, status: int) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(status)
