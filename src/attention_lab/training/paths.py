"""The folders a training run reads and writes, and how to fill the first two without DVC."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from attention_lab.data.splits import CorpusParams, TokenizeParams, save_splits, tokenize_corpus
from attention_lab.data.tokenizer import TOKENIZER_FILE, VocabParams
from attention_lab.data.tokenizer_training import build_tokenizer


@dataclass(frozen=True)
class TrainPaths:
    data: Path  # tokenized splits
    vocab: Path  # tokenizer.json
    out: Path  # model.pt, mlflow_run.json
    reports: Path  # history.csv, metrics.json
    resume: Path | None = None  # resume state; default out/.resume

    @property
    def checkpoints(self) -> Path:
        return self.resume or self.out / ".resume"


def prepare_data(corpus: str | Path, tokenize: TokenizeParams, root: Path,
                 vocab: VocabParams = VocabParams()) -> TrainPaths:
    """The tokenize and vocab stages in one call, into `root` (any corpus checksum accepted): what
    a benchmark or a test trains on without running DVC."""
    splits, _ = tokenize_corpus(corpus, CorpusParams(sha256=None), tokenize)
    save_splits(root / "data", splits, tokenize)
    tokenizer, _ = build_tokenizer(splits, vocab)
    tokenizer.save(root / "vocab" / TOKENIZER_FILE)
    return TrainPaths(root / "data", root / "vocab", root / "model", root / "reports")
