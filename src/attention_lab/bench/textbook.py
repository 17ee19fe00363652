"""The textbook baseline for `attention-lab bench --reference`: the seed model written and trained
the way d2l's chapter does it (§10.4, Bahdanau attention; §9.7 training loop), so that the
project's speed reads as a ratio measured in one process on the same batches.

What the textbook does and the project does not: every batch padded to one fixed length (no
length bucketing, the encoder runs over the padding), the attention keys projected again at every
decoder step, the embedding looked up and concatenated inside the step loop, a loss over every
padded position masked afterwards, and a plain (not fused) Adam. Shapes: see the package notation.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attention_lab.bench.budget import Repeat, every
from attention_lab.bench.flops import synchronize
from attention_lab.data.special_tokens import BOS_ID, PAD_ID
from attention_lab.model.attention import masked_softmax
from attention_lab.model.seq2seq import ModelParams, xavier_init


class TextbookSeq2Seq(nn.Module):
    """GRU encoder-decoder with additive attention, d2l 0.17.6's `Seq2SeqEncoder` and
    `Seq2SeqAttentionDecoder`: time-major RNNs, no packing."""

    def __init__(self, params: ModelParams, src_vocab_size: int, tgt_vocab_size: int) -> None:
        super().__init__()
        e, h, layers, p = params.embed_size, params.hidden_size, params.num_layers, params.dropout
        self.src_embedding = nn.Embedding(src_vocab_size, e)
        self.encoder = nn.GRU(e, h, layers, dropout=p)
        self.W_q, self.W_k = nn.Linear(h, h, bias=False), nn.Linear(h, h, bias=False)
        self.w_v = nn.Linear(h, 1, bias=False)
        self.attention_dropout = nn.Dropout(p)
        self.tgt_embedding = nn.Embedding(tgt_vocab_size, e)
        self.decoder = nn.GRU(e + h, h, layers, dropout=p)
        self.dense = nn.Linear(h, tgt_vocab_size)
        self.apply(xavier_init)

    def forward(self, src: Tensor, src_len: Tensor, tgt_in: Tensor) -> Tensor:
        """src (B, S), src_len (B,), tgt_in (B, T) -> logits (B, T, V)."""
        outputs, hidden = self.encoder(self.src_embedding(src).permute(1, 0, 2))  # (S, B, H)
        enc_outputs = outputs.permute(1, 0, 2)  # (B, S, H)
        steps = []
        for x in self.tgt_embedding(tgt_in).permute(1, 0, 2):  # T x (B, E)
            query = hidden[-1][:, None, :]  # (B, 1, H)
            features = torch.tanh(self.W_q(query)[:, :, None, :] + self.W_k(enc_outputs)[:, None, :, :])  # (B, 1, S, H)
            weights = masked_softmax(self.w_v(features).squeeze(-1), src_len)  # (B, 1, S)
            context = torch.bmm(self.attention_dropout(weights), enc_outputs)  # (B, 1, H)
            x = torch.cat((context, x[:, None, :]), dim=-1)  # (B, 1, H + E)
            out, hidden = self.decoder(x.permute(1, 0, 2), hidden)  # (1, B, H)
            steps.append(out)
        return self.dense(torch.cat(steps, dim=0)).permute(1, 0, 2)  # (B, T, V)


def pad_to(ids: Tensor, length: int) -> Tensor:
    """(B, S) -> (B, length), padded with `<pad>`."""
    return F.pad(ids, (0, length - ids.shape[1]), value=PAD_ID)


def masked_ce_loss(logits: Tensor, targets: Tensor) -> Tensor:
    """d2l's `MaskedSoftmaxCELoss` before its mean: the loss at every position, zeroed at padding:
    logits (B, T, V), targets (B, T) -> (B, T)."""
    loss = F.cross_entropy(logits.permute(0, 2, 1), targets, reduction="none")  # (B, T)
    return loss * (targets != PAD_ID)


def train_reference(model: TextbookSeq2Seq, epochs: Iterable[list[dict]], count: int, lr: float, length: int,
                    device: torch.device = torch.device("cpu"), repeat: Repeat = every) -> dict:
    """Train on `epochs` (the collated batches of each epoch, in order, `count` of them) with each batch padded
    to `length`, on `device`; tokens/s (non-padding target tokens) over the epochs after the first, which
    `repeat` (`bench/budget.py`) may end before `count`."""
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    epochs = iter(epochs)
    timed: list[tuple[int, float, float]] = []  # (target tokens, seconds, loss per token) of each epoch

    def epoch() -> float:
        """One epoch's training; its tokens/s."""
        start = time.perf_counter()
        epoch_loss, epoch_tokens = 0.0, 0
        for batch in next(epochs):
            optimizer.zero_grad()
            src, tgt = pad_to(batch["src"], length).to(device), pad_to(batch["tgt_out"], length).to(device)
            bos = torch.full((tgt.shape[0], 1), BOS_ID, device=device)
            tgt_in = torch.cat([bos, tgt[:, :-1]], dim=1)  # teacher forcing, as d2l: <eos> fed too
            loss = masked_ce_loss(model(src, batch["src_len"].to(device), tgt_in), tgt)
            loss.mean(dim=1).sum().backward()  # d2l's reduction: per-sentence means, summed
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            epoch_loss += float(loss.detach().sum())  # reported per token, as the project's loss
            epoch_tokens += batch["n_tokens"]
        synchronize(device)  # the epoch's queued kernels are training time too
        timed.append((epoch_tokens, time.perf_counter() - start, epoch_loss / epoch_tokens))
        return epoch_tokens / timed[-1][1]

    epoch()  # the first epoch warms up, as for the project's throughput
    final_loss = timed.pop()[2]
    repeat(epoch, count - 1, "epochs")
    tokens, seconds = sum(t for t, _, _ in timed), sum(s for _, s, _ in timed)
    return {"epochs": 1 + len(timed), "tokens_per_s": round(tokens / seconds, 1) if seconds else None,
            "final_train_loss": round(timed[-1][2] if timed else final_loss, 4), "padded_length": length}
