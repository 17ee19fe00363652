"""The training pass: a model's teacher-forced logits and their loss, eager or under `torch.compile`
(`trainer.compile`).

Between its matrix products, a GPU-sized Transformer's step on a card spends about a third of its
time in small kernels that each read and write the activations once more: layer norms, residual
sums, dropout, autocast's casts and the softmax over the vocabulary (docs/speed.md's profile).
Inductor fuses them. The logits and the loss are compiled together, so the (B, T, V) logits'
log-softmax and the loss run fused, and their backward too.

Attention and the heads' merge run between the compiled graphs
(`multi_head_attention.keep_out_of_compiled_graphs`): the kernel is fused already, and a packed
row's sentences, a number from each batch's shape, would recompile a graph that held it. A block's
graphs serve every layer. Shapes are dynamic from the first batch, and batches differ in B, S and
T: one set of graphs serves them all, since sizes equal by chance are not taken for one and a
batch of one sentence is padded to two (`at_least_two`). Compiling takes the first steps' time,
inside the budget's clock. Shapes: see the package notation.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from attention_lab.config import ConfigError
from attention_lab.data.special_tokens import PAD_ID
from attention_lab.model import multi_head_attention
from attention_lab.model.loss import token_losses
from attention_lab.training.cuda_graphs import pad_batch

BACKEND = "inductor"  # torch.compile's; the tests trace through a cheaper one

Losses = Callable[[Tensor, Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]


def training_losses(forward: Callable[[Tensor, Tensor, Tensor], Tensor], label_smoothing: float,
                    compile: bool = False) -> Losses:
    """`losses(src (B, S), src_len (B,), tgt_in (B, T), tgt_out (B, T))` -> (the loss trained on,
    the NLL) of `forward(src, src_len, tgt_in)`'s logits (B, T, V), as `token_losses` gives them;
    `compile`: compiled, `forward` a model whose attention is `MultiHeadAttention`'s."""

    def losses(src: Tensor, src_len: Tensor, tgt_in: Tensor, tgt_out: Tensor) -> tuple[Tensor, Tensor]:
        return token_losses(forward(src, src_len, tgt_in), tgt_out, label_smoothing)

    if not compile:
        return losses
    multi_head_attention.keep_out_of_compiled_graphs()
    compiled = torch.compile(losses, backend=BACKEND, dynamic=True)

    def call(src: Tensor, src_len: Tensor, tgt_in: Tensor, tgt_out: Tensor) -> tuple[Tensor, Tensor]:
        # Sizes equal by chance in the batch that compiles a graph (S = T, say) would be taken for one
        # size ("duck sizing"), and the first batch where they differ would compile it again.
        try:
            with torch.fx.experimental._config.patch(use_duck_shape=False):
                return compiled(*at_least_two(src, src_len, tgt_in, tgt_out))
        except torch._dynamo.exc.TorchDynamoException as exc:  # no C++ compiler or Triton, say
            cause = getattr(exc, "inner_exception", None) or exc
            raise ConfigError(f"train_seq2seq.trainer.compile: torch.compile failed ({type(cause).__name__}: "
                              f"{str(cause).strip().splitlines()[0]}); set trainer.compile: false") from exc

    return call


def at_least_two(src: Tensor, src_len: Tensor, tgt_in: Tensor,
                 tgt_out: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The batch, or where B, S or T is 1, the batch padded to at least 2 of each (`pad_batch`'s rows
    and steps, which count nowhere in the loss): dynamic shapes still treat sizes 0 and 1 apart, so
    a batch of one sentence would compile every graph again."""
    (rows, steps), length = tgt_in.shape, src.shape[1]
    if min(rows, steps, length) > 1:
        return src, src_len, tgt_in, tgt_out
    src, src_len, tgt_in = pad_batch(src, src_len, tgt_in, max(rows, 2), max(steps, length, 2))  # (B', X)
    padded = tgt_out.new_full(tgt_in.shape, PAD_ID)
    padded[:rows, :steps] = tgt_out
    return src, src_len, tgt_in, padded  # (B', X), (B',), (B', X), (B', X)
