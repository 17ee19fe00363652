"""The training loss: cross-entropy per target token, padding excluded (d2l §10.7.3), label-smoothed or not."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor

from attention_lab.data.special_tokens import PAD_ID


def token_losses(logits: Tensor, targets: Tensor, label_smoothing: float = 0.0) -> tuple[Tensor, Tensor]:
    """(the loss trained on, the negative log-likelihood), each a mean over the non-padding target
    tokens: logits (B, T, V), targets (B, T). With label smoothing ε (Szegedy et al. 2016, §7) the
    loss is (1 - ε) · NLL + ε · the mean over the vocabulary of -log p, as `F.cross_entropy`
    computes it; the NLL is what validation measures, so the two curves compare. One log-softmax
    serves both; without smoothing they are the same tensor."""
    log_probs = F.log_softmax(logits.flatten(0, 1), dim=-1)  # (B·T, V), float32 under autocast
    flat = targets.flatten()  # (B·T,)
    nll = F.nll_loss(log_probs, flat, ignore_index=PAD_ID)
    if not label_smoothing:
        return nll, nll
    words = flat != PAD_ID  # (B·T,)
    uniform = -log_probs.sum(dim=-1).masked_fill(~words, 0.0).sum() / words.sum()
    return (1 - label_smoothing) * nll + uniform * (label_smoothing / log_probs.shape[-1]), nll


def token_loss(logits: Tensor, targets: Tensor, label_smoothing: float = 0.0) -> Tensor:
    """The loss of `token_losses` alone."""
    return token_losses(logits, targets, label_smoothing)[0]
