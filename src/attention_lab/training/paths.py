"""The folders a training run reads and writes, and how to fill the first two without DVC."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from attention_lab.data.splits import CorpusParams, SplitParams, save_splits, split_corpus
from attention_lab.data.tokenizer import TOKENIZER_FILE, TokenizerParams
from attention_lab.data.tokenizer_training import build_tokenizer


@dataclass(frozen=True)
class TrainPaths:
    data: Path  # the split stage's train, valid and test files
    tokenizer: Path  # tokenizer.json
    out: Path  # model.pt, mlflow_run.json
    reports: Path  # history.csv, metrics.json
    resume: Path | None = None  # resume state; default out/.resume

    @property
    def checkpoints(self) -> Path:
        return self.resume or self.out / ".resume"


def prepare_data(corpus: str | Path, split: SplitParams, root: Path,
                 tokenizer: TokenizerParams = TokenizerParams()) -> TrainPaths:
    """The split and train_tokenizer stages in one call, into `root` (any corpus checksum accepted): what
    a benchmark or a test trains on without running DVC."""
    splits, _ = split_corpus(corpus, CorpusParams(sha256=None), split)
    save_splits(root / "data", splits, split)
    trained, _ = build_tokenizer(splits, tokenizer)
    trained.save(root / "tokenizer" / TOKENIZER_FILE)
    return TrainPaths(root / "data", root / "tokenizer", root / "model", root / "reports")
