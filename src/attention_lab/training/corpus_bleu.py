"""Validation BLEU as a torchmetrics `Metric`, so that DDP processes sum what they decoded."""

from __future__ import annotations

import torch
from torch import Tensor
from torchmetrics import Metric

from attention_lab.evaluation.bleu import bleu_from_statistics, bleu_statistics


class CorpusBLEU(Metric):
    """sacrebleu's corpus BLEU accumulated over batches (and DDP processes) through its sufficient
    statistics, so validation BLEU equals `corpus_scores` on the same sentences."""

    full_state_update = False

    def __init__(self) -> None:
        super().__init__()
        self.add_state("stats", torch.zeros(10, dtype=torch.float64), dist_reduce_fx="sum")

    def update(self, hyps: list[str], refs: list[list[str]]) -> None:
        self.stats += torch.tensor(bleu_statistics(hyps, refs), dtype=torch.float64, device=self.stats.device)

    def compute(self) -> Tensor:
        return torch.tensor(bleu_from_statistics(self.stats.tolist()))
