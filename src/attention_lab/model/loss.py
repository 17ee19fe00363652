"""The training loss: cross-entropy per target token, padding excluded (d2l §10.7.3)."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor

from attention_lab.data.special_tokens import PAD_ID


def token_loss(logits: Tensor, targets: Tensor, label_smoothing: float = 0.0) -> Tensor:
    """Mean cross-entropy over non-padding target tokens: logits (B, T, V), targets (B, T)."""
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=PAD_ID,  # (B·T, V), (B·T,)
                           label_smoothing=label_smoothing)
