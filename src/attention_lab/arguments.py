"""argparse types shared by the command lines: a bad value is one line naming it, exit status 2."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def key_value(text: str) -> str:
    """A `KEY=VALUE` setting, as `dvc exp run -S` takes it."""
    key, sep, _ = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return text
