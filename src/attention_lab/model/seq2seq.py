"""The recurrent encoder-decoder translation model (Sutskever et al. 2014; with attention, Bahdanau
et al. 2014 and Luong et al. 2015), a plain `nn.Module`; the validated config of every model, and
`build_model`, which builds the architecture it names. Shapes: see the package notation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from torch import Tensor

from attention_lab.config import param
from attention_lab.model.attention import check_attention
from attention_lab.model.decoder import DECODERS, DecoderState
from attention_lab.model.encoder import Encoder
from attention_lab.model.encoder_decoder import EncoderDecoder, check_tying, xavier_init
from attention_lab.model.transformer import TransformerParams, TransformerSeq2Seq


@dataclass(frozen=True)
class ModelParams:
    # rnn: the recurrent encoder-decoder below (the keys up to max_source_tokens);
    # transformer: `transformer`'s sizes. tie_embeddings serves both.
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


class Seq2Seq(EncoderDecoder):
    """RNN encoder + attention decoder."""

    def __init__(self, params: ModelParams, src_vocab_size: int, tgt_vocab_size: int) -> None:
        super().__init__()
        check_tying(params.tie_embeddings, src_vocab_size, tgt_vocab_size)
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
        self.tie_embeddings(params.tie_embeddings)

    def encode(self, src: Tensor, src_len: Tensor) -> DecoderState:
        """src (B, S), src_len (B,) -> the decoder's initial state."""
        return self.decoder.init_state(*self.encoder(src, src_len), src_len)


def build_model(params: ModelParams, src_vocab_size: int, tgt_vocab_size: int) -> EncoderDecoder:
    """The architecture `params.arch` names, initialised."""
    cls = TransformerSeq2Seq if params.arch == "transformer" else Seq2Seq
    return cls(params, src_vocab_size, tgt_vocab_size)
