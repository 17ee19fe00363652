"""What every DVC stage module in `pipeline/` shares: its command line, and a quiet run (`quiet`, which
`attention-lab bench` shares): a stage prints its own progress and results, nothing a user did not ask for;
`ATTENTION_LAB_VERBOSE=1` brings back what the libraries print (design.md: What the stages print)."""

from __future__ import annotations

import argparse
import logging
import os
import warnings
from pathlib import Path

VERBOSE = "ATTENTION_LAB_VERBOSE"


def stage_args(description: str, **paths: str) -> argparse.Namespace:
    """`--params` (default params.yaml) plus one required path option per keyword: `out="folder for
    the reports"` becomes `--out PATH`; dvc.yaml passes every path, so stages hard-code none."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--params", default="params.yaml", type=Path, help="params file (default: %(default)s)")
    for name, help_text in paths.items():
        parser.add_argument(f"--{name.replace('_', '-')}", required=True, type=Path, help=help_text)
    args = parser.parse_args()
    quiet()
    return args


def quiet() -> None:
    """Unless `ATTENTION_LAB_VERBOSE` is set (not 0): no Lightning device banner, tips, `fit` stop notice, SIGTERM
    notice nor distributed start-up lines (its INFO lines), no deprecation warning Lightning raises against this
    torch (no user can act on it), no MLflow INFO lines (a new store's tables, a signature checked) nor download bars.
    MLflow reads its settings when it is first imported."""
    if os.environ.get(VERBOSE, "") not in ("", "0"):
        return
    logging.getLogger("pytorch_lightning.utilities.rank_zero").setLevel(logging.WARNING)
    # "Received SIGTERM" before the command's own line saying it stopped
    logging.getLogger("pytorch_lightning.trainer.connectors.signal_connector").setLevel(logging.WARNING)
    # "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2" from each process as a DDP run starts (its banner after,
    # "All distributed processes registered", is a rank_zero line)
    logging.getLogger("lightning_fabric.utilities.distributed").setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", message=r"`isinstance\(treespec, LeafSpec\)` is deprecated",
                            category=FutureWarning)
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    os.environ.setdefault("MLFLOW_LOGGING_LEVEL", "WARNING")
    logging.getLogger("mlflow").setLevel(logging.WARNING)  # where it was imported already
