"""The pairs and batches a benchmark trains on: a sample of the pipeline's splits, and the batches
the stage's DataModule deals, collated, epoch by epoch."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from attention_lab.data.splits import SplitParams, load_split, save_splits
from attention_lab.data.tokenizer import TOKENIZER_FILE, Tokenizer
from attention_lab.training.datamodule import TranslationDataModule
from attention_lab.training.params import Seq2SeqParams
from attention_lab.training.paths import TrainPaths


def sample_splits(splits: Path, vocab: Path, root: Path, pairs: int, seed: int = 0) -> TrainPaths:
    """A seeded random sample of the pipeline's splits (`pairs` training pairs, a tenth as many
    valid and test pairs) with its tokenizer: the sentence lengths the default model trains on,
    where the corpus's first lines are its shortest sentences."""
    frames = {}
    for name, count in (("train", pairs), ("valid", max(1, pairs // 10)), ("test", max(1, pairs // 10))):
        frame = load_split(splits, name)
        frames[name] = frame.sample(n=min(count, len(frame)), random_state=seed)
    save_splits(root / "data", frames, SplitParams())
    return TrainPaths(root / "data", vocab, root / "model", root / "reports")


def epoch_batches(paths: TrainPaths, params: Seq2SeqParams,
                  epochs: int) -> tuple[TranslationDataModule, Iterator[list[dict]]]:
    """The stage's DataModule and the collated training batches it deals in each epoch, dealt as they are read:
    a run that stops early deals no more."""
    data = TranslationDataModule(paths.data, Tokenizer.load(paths.tokenizer / TOKENIZER_FILE), params.data, params.seed)
    data.setup()
    loader = data.train_dataloader()

    def dealt() -> Iterator[list[dict]]:
        for epoch in range(epochs):
            loader.batch_sampler.set_epoch(epoch)
            yield list(loader)

    return data, dealt()
