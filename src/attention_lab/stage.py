"""What every DVC stage module in `pipeline/` shares: its command line."""

from __future__ import annotations

import argparse
from pathlib import Path


def stage_args(description: str, **paths: str) -> argparse.Namespace:
    """`--params` (default params.yaml) plus one required path option per keyword: `out="folder for
    the reports"` becomes `--out PATH`; dvc.yaml passes every path, so stages hard-code none."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--params", default="params.yaml", type=Path, help="params file (default: %(default)s)")
    for name, help_text in paths.items():
        parser.add_argument(f"--{name.replace('_', '-')}", required=True, type=Path, help=help_text)
    return parser.parse_args()
