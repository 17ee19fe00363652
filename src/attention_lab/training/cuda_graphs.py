"""Teacher-forced forward and backward passes replayed as CUDA graphs.

A small model's training step on a GPU is hundreds of kernel launches, each far shorter than it
takes to launch: the card waits on Python and the driver, not on arithmetic. A CUDA graph
(`torch.cuda.make_graphed_callables`) records the forward's kernels once, and the backward's, and
replays each in one launch.

A graph has fixed shapes, and batches do not: each batch is padded to the bucket that holds it
(`bucket_shape`): its longer side rounded up to one of a few lengths (S and T alike), and as
many rows as the token budget lets a batch of that length have. Padding changes neither the loss
nor a gradient: targets at PAD count nowhere, a source's padding is masked, and a padding row (a
one-token source, no target) reaches the loss nowhere. One graph per bucket, recorded the first
time a batch falls in it (three warm-up passes and the capture). Shapes: see the package notation.
"""

from __future__ import annotations

import bisect
import contextlib
import warnings

import torch
from torch import Tensor, nn

from attention_lab.data.special_tokens import PAD_ID

# Bucket lengths, about 2^(1/4) apart: a padded batch holds at most ~1.25x the tokens of the budget.
# Longer sides round up to a multiple of the last.
LENGTHS = (4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256)


def bucket_length(length: int) -> tuple[int, int]:
    """(the bucket's length, the previous bucket's, 0 for the first) for a side of `length`."""
    i = bisect.bisect_left(LENGTHS, length)
    if i < len(LENGTHS):
        return LENGTHS[i], LENGTHS[i - 1] if i else 0
    top = LENGTHS[-1]
    bucket = -(-length // top) * top
    return bucket, bucket - top


def bucket_shape(rows: int, length: int, batch_size: int, batch_tokens: int | None) -> tuple[int, int]:
    """(rows, length) of the bucket for a batch of `rows` whose longer side is `length`: a batch of
    that bucket has a side longer than the previous bucket's length, and so (collation adds one
    token to the side the sampler's budget counted) at least that many tokens on its longest side:
    the token budget lets it have at most `batch_tokens // previous` rows (rounded up to 8, and
    never fewer than the batch's own)."""
    bucket, previous = bucket_length(length)
    most = batch_size if batch_tokens is None else min(batch_size, batch_tokens // max(previous, 1))
    return max(-(-most // 8) * 8, rows), bucket


def pad_batch(src: Tensor, src_len: Tensor, tgt_in: Tensor, rows: int, length: int) -> tuple[Tensor, Tensor, Tensor]:
    """src (B, S), src_len (B,), tgt_in (B, T) -> the same padded to `rows` B' and `length` X:
    (B', X), (B',), (B', X): PAD columns, and rows of a one-token PAD source (no row may attend to
    nothing) and PAD inputs."""
    batch = src.shape[0]
    src_p = src.new_full((rows, length), PAD_ID)
    src_p[:batch, : src.shape[1]] = src
    tgt_p = tgt_in.new_full((rows, length), PAD_ID)
    tgt_p[:batch, : tgt_in.shape[1]] = tgt_in
    len_p = src_len.new_ones(rows)
    len_p[:batch] = src_len
    return src_p, len_p, tgt_p  # (B', X), (B',), (B', X)


class TeacherForced(nn.Module):
    """The model's teacher-forced logits, as one module a graph can be made of; not registered in
    the LightningModule, so checkpoints hold the model's weights once."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, src: Tensor, src_len: Tensor, tgt_in: Tensor) -> Tensor:
        return self.model(src, src_len, tgt_in)  # (B', X, V)


class GraphedTraining:
    """`model(src, src_len, tgt_in)` for training, each bucket replayed from its CUDA graph. A capture
    that fails (an operation a graph cannot hold) warns once, and training goes on without graphs."""

    def __init__(self, model: nn.Module, batch_size: int, batch_tokens: int | None,
                 autocast_dtype: torch.dtype | None) -> None:
        self.model, self.batch_size, self.batch_tokens = model, batch_size, batch_tokens
        self.autocast_dtype = autocast_dtype
        self.graphs: dict[tuple[int, int], nn.Module] = {}
        self.pool = None  # one memory pool: a bucket's passes never interleave with another's
        self.failed = False

    def __call__(self, src: Tensor, src_len: Tensor, tgt_in: Tensor) -> Tensor:
        """src (B, S), src_len (B,), tgt_in (B, T) -> logits (B, T, V)."""
        if self.failed:
            return self.model(src, src_len, tgt_in)
        batch, steps = tgt_in.shape
        shape = bucket_shape(batch, max(src.shape[1], steps), self.batch_size, self.batch_tokens)
        padded = pad_batch(src, src_len, tgt_in, *shape)
        graphed = self.graphs.get(shape) or self._capture(shape, padded)
        if graphed is None:
            return self.model(src, src_len, tgt_in)
        return graphed(*padded)[:batch, :steps]  # (B, T, V)

    def _capture(self, shape: tuple[int, int], sample: tuple[Tensor, Tensor, Tensor]) -> nn.Module | None:
        # Autocast's cache of cast weights would be freed under the graph's feet: it is off while
        # recording, as the PyTorch docs ask of graphs under autocast.
        autocast = (torch.autocast("cuda", dtype=self.autocast_dtype, cache_enabled=False)
                    if self.autocast_dtype is not None else contextlib.nullcontext())
        try:
            self.pool = self.pool or torch.cuda.graph_pool_handle()
            with autocast, warnings.catch_warnings():
                # The warm-up passes run on a side stream while the parameters' gradient accumulators
                # were made on the default one: a one-off synchronisation, which PyTorch warns of.
                warnings.filterwarnings("ignore", message="The AccumulateGrad node's stream does not match")
                graphed = torch.cuda.make_graphed_callables(TeacherForced(self.model), sample,
                                                            allow_unused_input=True, pool=self.pool)
        except RuntimeError as exc:
            self.failed = True
            warnings.warn(f"CUDA graphs off for this run, the capture failed: {str(exc).splitlines()[0]}",
                          stacklevel=2)
            return None
        self.graphs[shape] = graphed
        return graphed
