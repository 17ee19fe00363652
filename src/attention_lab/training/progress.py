"""The progress bar for output that is no terminal (`dvc repro > log`, nohup, CI): plain lines, no escapes."""

from __future__ import annotations

import sys
from typing import TextIO

from pytorch_lightning.callbacks import TQDMProgressBar
from pytorch_lightning.callbacks.progress.tqdm_progress import Tqdm


class PlainProgressBar(TQDMProgressBar):
    """The training bar alone, for output that is no terminal (`dvc repro > log`, nohup, CI): the validation and
    sanity-check bars are drawn below it and moved over with cursor escapes (`ESC [A`), which a log file keeps
    as garbage; the validations' scores are in history.csv and MLflow."""

    def init_train_tqdm(self) -> Tqdm:
        # A line each refresh: tqdm's carriage returns would leave one line of a whole epoch's frames in a log.
        return Tqdm(desc=self.train_description, disable=self.is_disabled, leave=True, ncols=100,
                    file=_Lines(sys.stdout), smoothing=0, bar_format=self.BAR_FORMAT)

    def init_sanity_tqdm(self) -> Tqdm:
        return Tqdm(disable=True)

    def init_validation_tqdm(self) -> Tqdm:
        return Tqdm(disable=True)


class _Lines:
    """A stream that ends each progress frame with a newline instead of starting it with a carriage return."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        if not text.startswith("\r"):
            return self.stream.write(text)
        frame = text.replace("\r", "").rstrip(" ")  # tqdm pads a frame with spaces over a longer one before it
        return self.stream.write(frame + "\n" if frame else "")

    def flush(self) -> None:
        self.stream.flush()
