"""What every translation model shares: `encode` once, then a decoder that either teacher-forces
all steps (training) or `step`s through a search's prefixes (inference). Shapes: see the package
notation."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attention_lab.data.special_tokens import PAD_ID


class EncoderDecoder(nn.Module):
    """A source encoder and a decoder with `init_state`, `step`, `output` and `embedding`.

    `encode` returns the decoder's state before its first step. The state keeps what it read of
    the source once per sentence (B) and the decoder's own state per row (N = B·W, each
    sentence's W rows in a row): `select(index)` picks rows (N',) within their sentences, as
    beam search reorders and expands hypotheses, and `keep(index)` keeps the sentences (B',)
    `index` with their rows, as search drops finished sentences.
    """

    encoder: nn.Module
    decoder: nn.Module

    def encode(self, src: Tensor, src_len: Tensor):
        """src (B, S), src_len (B,) -> the decoder's initial state."""
        raise NotImplementedError

    # Whether `self_attention` gives maps: only a Transformer's encoder and decoder attend to themselves.
    self_attends = False

    def forward(self, src: Tensor, src_len: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher-forced logits (B, T, V) for sources (B, S) and decoder inputs (B, T)."""
        return self.decoder(tgt_in, self.encode(src, src_len))

    def self_attention(self, src: Tensor, src_len: Tensor, tgt_in: Tensor) -> tuple[Tensor, Tensor] | None:
        """The encoder's self-attention (B, R, S, S) and the decoder's masked self-attention (B, R, T, T)
        of sources (B, S) and decoder inputs (B, T); None for a model without self-attention (recurrent)."""
        return None

    def tie_embeddings(self, how: str) -> None:
        """Press and Wolf 2017: `output` has the decoder's output layer reuse the target embedding
        (built so by the decoder), `all` also shares it with the source embedding. A tied
        embedding is also the output layer: N(0, 1/E) keeps its first logits O(1)."""
        if how == "none":
            return
        init_embedding(self.decoder.embedding)
        if how == "all":
            self.encoder.embedding = self.decoder.embedding


def init_embedding(embedding: nn.Embedding) -> None:
    """N(0, 1/E) rows, and `<pad>`'s row zero: unit-variance inputs once scaled by √E, O(1) logits
    when the embedding is also the output layer."""
    nn.init.normal_(embedding.weight, std=embedding.embedding_dim ** -0.5)
    with torch.no_grad():
        embedding.weight[PAD_ID].zero_()


def check_tying(how: str, src_vocab_size: int, tgt_vocab_size: int) -> None:
    if how == "all" and src_vocab_size != tgt_vocab_size:
        raise ValueError(f"tie_embeddings: 'all' needs one vocabulary for both languages, got "
                         f"{src_vocab_size} source and {tgt_vocab_size} target tokens (use a joint subword vocab)")


def xavier_init(module: nn.Module) -> None:
    """d2l's `xavier_init_weights`: Xavier-uniform linear and recurrent weight matrices."""
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
    elif isinstance(module, (nn.GRU, nn.LSTM)):
        for name, weight in module.named_parameters():
            if name.startswith("weight"):
                nn.init.xavier_uniform_(weight)


def sentence_rows(index: Tensor, width: int) -> Tensor:
    """The rows (B'·W,) of sentences `index` (B',) whose W rows each lie in a row."""
    return (index[:, None] * width + torch.arange(width, device=index.device)).flatten()  # (B'·W,)
