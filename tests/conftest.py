from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # corpus_factory

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def _isolated_mlflow(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Runs made by tests go to a throwaway database, never the repository's mlflow.db."""
    db = tmp_path_factory.mktemp("mlflow") / "mlflow.db"
    os.environ["MLFLOW_TRACKING_URI"] = f"sqlite:///{db}"
    os.environ.pop("DVC_ROOT", None)


@pytest.fixture
def corpus_zip(tmp_path: Path) -> Path:
    from corpus_factory import write_zip

    return write_zip(tmp_path / "fra-eng.zip")
