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


@pytest.fixture(scope="session")
def trained_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small model trained on the synthetic corpus (a few seconds), shared by the tests."""
    from corpus_factory import write_zip

    from attention_lab.bench import prepare_data
    from attention_lab.config import from_mapping
    from attention_lab.corpus import TokenizeParams
    from attention_lab.tracking import MlflowParams
    from attention_lab.training import Seq2SeqParams, train_seq2seq

    root = tmp_path_factory.mktemp("trained")
    paths = prepare_data(write_zip(root / "fra-eng.zip"), TokenizeParams(valid_fraction=0.1, test_fraction=0.1), root)
    params = from_mapping(Seq2SeqParams, {
        "data": {"batch_size": 16, "max_len": 8},
        "model": {"embed_size": 32, "hidden_size": 32, "num_layers": 1, "dropout": 0.0},
        "optim": {"lr": 0.02},
        "trainer": {"accelerator": "cpu", "max_epochs": 25, "progress_bar": False}}, "train_seq2seq")
    train_seq2seq(params, MlflowParams(enabled=False), paths)
    return paths.out
