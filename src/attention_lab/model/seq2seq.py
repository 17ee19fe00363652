"""The encoder-decoder translation model (Sutskever et al. 2014; with attention, Bahdanau et al.
2014 and Luong et al. 2015), a plain `nn.Module`, and its validated config. Shapes: see the
package notation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import Tensor, nn

from attention_lab.config import param
from attention_lab.data.special_tokens import PAD_ID
from attention_lab.model.attention import check_attention
from attention_lab.model.decoder import DECODERS, DecoderState
from attention_lab.model.encoder import Encoder


@dataclass(frozen=True)
class ModelParams:
    rnn: Literal["gru", "lstm"] = "gru"
    embed_size: int = param(32, ge=1)
    hidden_size: int = param(32, ge=1)
    num_layers: int = param(2, ge=1)
    dropout: float = param(0.1, ge=0, lt=1)
    bidirectional: bool = False
    decoder: Literal["bahdanau", "luong"] = "bahdanau"
    attention: Literal["additive", "dot", "scaled_dot", "general", "location"] = "additive"
    attention_size: int | None = param(None, ge=1)  # additive scorer's hidden size; null = hidden_size
    io_dropout: float = param(0.0, ge=0, lt=1)  # on embeddings and before the output layer (d2l: none)
    # Press and Wolf 2017: `output` ties the target embedding to the output layer; `all` also
    # shares it with the source embedding (needs a joint subword vocabulary).
    tie_embeddings: Literal["none", "output", "all"] = "none"
    max_source_tokens: int = param(256, ge=1)  # location attention scores this many positions at most

    def validate(self) -> None:
        try:
            check_attention(self.attention, self.hidden_size, self.key_size)
        except ValueError as exc:
            suffix = " (the encoder is bidirectional)" if self.bidirectional else ""
            raise ValueError(f"attention: {exc}{suffix}") from None

    @property
    def key_size(self) -> int:
        return self.hidden_size * (2 if self.bidirectional else 1)


class Seq2Seq(nn.Module):
    """Encoder + attention decoder."""

    def __init__(self, params: ModelParams, src_vocab_size: int, tgt_vocab_size: int) -> None:
        super().__init__()
        if params.tie_embeddings == "all" and src_vocab_size != tgt_vocab_size:
            raise ValueError(f"tie_embeddings: 'all' needs one vocabulary for both languages, got "
                             f"{src_vocab_size} source and {tgt_vocab_size} target tokens (use a joint subword vocab)")
        self.params = params
        self.encoder = Encoder(src_vocab_size, params.embed_size, params.hidden_size, params.num_layers,
                               params.dropout, params.rnn, params.bidirectional, params.io_dropout)
        self.decoder = DECODERS[params.decoder](
            vocab_size=tgt_vocab_size, embed_size=params.embed_size, hidden_size=params.hidden_size,
            key_size=params.key_size, num_layers=params.num_layers, dropout=params.dropout,
            io_dropout=params.io_dropout, rnn=params.rnn, attention=params.attention,
            attention_size=params.attention_size or params.hidden_size, max_src_len=params.max_source_tokens,
            tie_output=params.tie_embeddings != "none")
        self.apply(xavier_init)
        if params.tie_embeddings != "none":
            # A tied embedding is also the output layer: N(0, 1/E) keeps its first logits O(1).
            nn.init.normal_(self.decoder.embedding.weight, std=params.embed_size**-0.5)
            with torch.no_grad():
                self.decoder.embedding.weight[PAD_ID].zero_()
        if params.tie_embeddings == "all":
            self.encoder.embedding = self.decoder.embedding

    def encode(self, src: Tensor, src_len: Tensor) -> DecoderState:
        """src (B, S), src_len (B,) -> the decoder's initial state."""
        return self.decoder.init_state(*self.encoder(src, src_len), src_len)

    def forward(self, src: Tensor, src_len: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher-forced logits (B, T, V) for sources (B, S) and decoder inputs (B, T)."""
        return self.decoder(tgt_in, self.encode(src, src_len))


def xavier_init(module: nn.Module) -> None:
    """d2l's `xavier_init_weights`: Xavier-uniform linear and recurrent weight matrices."""
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
    elif isinstance(module, (nn.GRU, nn.LSTM)):
        for name, weight in module.named_parameters():
            if name.startswith("weight"):
                nn.init.xavier_uniform_(weight)
