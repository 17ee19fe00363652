"""A Transformer's teacher-forced training pass under `torch.compile` (`trainer.compile`).

Between its matrix products, a GPU-sized Transformer's step on a card spends about a third of its
time in small kernels that each read and write the activations once more: layer norms, residual
sums, dropout, autocast's casts and the softmax over the vocabulary (docs/speed.md's profile).
Inductor fuses them. The logits and the loss are compiled together, so the (B, T, V) logits'
log-softmax and the loss run fused, and their backward too.

Attention runs between the compiled graphs (`multi_head_attention.fused_heads` is kept out of
them): its kernel is fused already, and a packed row's sentences, a number from each batch's shape,
would recompile a graph that held it. The graphs of a block serve every layer. Shapes are dynamic
from the first batch: batches differ in B, S and T, and one set of graphs serves them all (packed
batches whose last sentences attend apart hand the graph after attention a copy of the contexts
rather than a view, which compiles it once more). Compiling takes the first steps' time, inside
the budget's clock.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor, nn

from attention_lab.model.loss import token_losses

BACKEND = "inductor"  # torch.compile's; the tests trace through a cheaper one


def compiled_losses(model: nn.Module, label_smoothing: float) -> Callable[..., tuple[Tensor, Tensor]]:
    """`losses(src (B, S), src_len (B,), tgt_in (B, T), tgt_out (B, T))` -> (loss, NLL), as
    `token_losses` gives them for `model`'s logits, compiled."""

    def losses(src: Tensor, src_len: Tensor, tgt_in: Tensor, tgt_out: Tensor) -> tuple[Tensor, Tensor]:
        return token_losses(model(src, src_len, tgt_in), tgt_out, label_smoothing)

    compiled = torch.compile(losses, backend=BACKEND, dynamic=True)

    def call(src: Tensor, src_len: Tensor, tgt_in: Tensor, tgt_out: Tensor) -> tuple[Tensor, Tensor]:
        # Sizes equal by chance in the batch that compiles a graph (S = T, say) would be taken for one
        # size ("duck sizing"), and the first batch where they differ would compile it again.
        with torch.fx.experimental._config.patch(use_duck_shape=False):
            return compiled(src, src_len, tgt_in, tgt_out)

    return call
