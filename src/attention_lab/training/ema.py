"""Exponential moving average of the weights, the exponential form of Polyak averaging (Polyak and
Juditsky 1992), kept by Lightning's `EMAWeightAveraging`: after each update past the warm-up,
ema = decay * ema + (1 - decay) * weights.

Every validation scores the average (the callback swaps it into the module and back), and a
checkpoint holds the average as its `state_dict` and the trained weights as `current_model_state`:
the best checkpoint, and so `model.pt`, is the average at the best validation, and a resumed run
continues from both (the callback reloads the trained weights after Lightning loaded the average).
The swaps copy values into the parameters' own storage (`.data.copy_`), which the CUDA graphs of
`cuda_graphs.py` hold, and draw no random numbers. On CUDA, torch's `AveragedModel` reads its
update count on the host at each update: one wait for the device per step.
"""

from __future__ import annotations

from typing import Any

import pytorch_lightning as pl
from pytorch_lightning.callbacks import EMAWeightAveraging


class WarmupEMA(EMAWeightAveraging):
    """The average of the whole LightningModule, starting from the weights after update `start` (the
    warm-up's last): until then it is the weights themselves. The module's parameters are its
    model's, and it has no buffers; averaging `model` alone would mean rewriting the callback's swaps
    and checkpoint keys, which pair and name the module's own."""

    def __init__(self, decay: float, start: int) -> None:
        super().__init__(decay=decay)
        self.start = start

    def on_fit_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        # Lightning makes the average in `setup`, before the strategy moves the module to its device:
        # there, each update would copy the weights off the GPU.
        if self._average_model is not None:
            self._average_model.to(pl_module.device)

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule, outputs: Any, batch: Any,
                           batch_idx: int) -> None:
        # The warm-up's weights, made with a rising rate from random ones, would stay in the average
        # for ~1 / (1 - decay) updates: until it ends the average only copies them (an AveragedModel
        # that has averaged nothing copies). Unlike Lightning's `update_starting_at_step`, which keeps
        # the initial weights until then, validations during the warm-up score the model trained so far.
        if self._average_model is not None and trainer.global_step <= self.start:
            self._average_model.n_averaged.zero_()
        super().on_train_batch_end(trainer, pl_module, outputs, batch, batch_idx)
