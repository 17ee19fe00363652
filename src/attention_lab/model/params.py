"""The validated config of every model: the recurrent model's keys and the Transformer's sizes.
Both architectures' modules import it, and `build_model` (in `seq2seq`) picks the one `arch` names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from attention_lab.config import param
from attention_lab.model.attention import check_attention
from attention_lab.model.multi_head_attention import check_heads


@dataclass(frozen=True)
class TransformerParams:
    layers: int = param(3, ge=1)  # L blocks in the encoder and as many in the decoder
    heads: int = param(4, ge=1)  # M
    model_size: int = param(256, ge=2)  # H, embeddings included
    ffn_size: int = param(1024, ge=1)  # F, the position-wise feed-forward layer's width
    dropout: float = param(0.1, ge=0, lt=1)  # on embeddings, attention weights and each sub-layer's output

    def validate(self) -> None:
        try:
            check_heads(self.model_size, self.heads)
        except ValueError as exc:
            raise ValueError(f"heads: {exc}") from None


@dataclass(frozen=True)
class ModelParams:
    # rnn: the recurrent encoder-decoder (`seq2seq`) (the keys up to max_source_tokens);
    # transformer: `transformer`'s sizes (`transformer`). tie_embeddings serves both.
    arch: Literal["rnn", "transformer"] = "rnn"
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
    transformer: TransformerParams = field(default_factory=TransformerParams)

    def validate(self) -> None:
        if self.arch == "transformer":  # the recurrent keys play no part: a Transformer never fails on them
            return
        try:
            check_attention(self.attention, self.hidden_size, self.key_size)
        except ValueError as exc:
            suffix = " (the encoder is bidirectional)" if self.bidirectional else ""
            raise ValueError(f"attention: {exc}{suffix}") from None

    @property
    def key_size(self) -> int:
        return self.hidden_size * (2 if self.bidirectional else 1)
