"""Attention decoders: Bahdanau (additive, attend-then-step) and Luong (step-then-attend).

Both share one `step()` used by greedy and beam search; teacher forcing computes the same function
in fewer, larger operations (tests hold the two equal, gradients included). The encoder outputs
are turned into attention keys once per batch (`init_state`), and the output layer runs once over
all steps of teacher forcing rather than inside the loop. Shapes: see the package notation.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attention_lab.data.special_tokens import PAD_ID
from attention_lab.model.attention import AdditiveAttention, Attention, by_sentence, make_attention
from attention_lab.model.encoder import RNNS, RNNState
from attention_lab.model.encoder_decoder import sentence_rows


class DecoderState(NamedTuple):
    hidden: RNNState  # (L, N, H), or (h, c) for LSTM: one per row (N = B·W, W hypotheses per sentence)
    keys: Tensor  # encoder outputs as the attention scorer prepares them, once per sentence: (B, S, A|H|D)
    values: Tensor  # (B, S, D) encoder outputs
    src_len: Tensor  # (B,)

    def select(self, index: Tensor) -> DecoderState:
        """Rows `index` (N',) within their sentences: the source's keys and values stay as they are."""
        hidden = (tuple(h.index_select(1, index) for h in self.hidden) if isinstance(self.hidden, tuple)
                  else self.hidden.index_select(1, index))
        return self._replace(hidden=hidden)

    def keep(self, index: Tensor) -> DecoderState:
        """Sentences `index` (B',) and their rows."""
        rows = sentence_rows(index, top_layer(self.hidden).shape[0] // len(self.src_len))  # (B'·W,)
        return DecoderState(self.hidden, self.keys[index], self.values[index], self.src_len[index]).select(rows)

    def attend(self, attention: Attention, queries: Tensor, need_weights: bool) -> tuple[Tensor, Tensor | None]:
        """queries (N, T, H) -> contexts (N, T, D), weights (N, T, S), the source read once per sentence."""
        return by_sentence(lambda q: attention.attend(q, self.keys, self.values, self.src_len, need_weights),
                           queries, len(self.src_len))


def top_layer(hidden: RNNState) -> Tensor:
    """The last layer's hidden state (B, H) of a GRU or LSTM state."""
    return (hidden[0] if isinstance(hidden, tuple) else hidden)[-1]


class OutputLayer(nn.Module):
    """Features (..., H) -> logits (..., V), after dropout. Tied (Press and Wolf 2017, "Using the
    Output Embedding to Improve Language Models"), it reuses the target embedding (V, E) as its
    weights, with a projection H -> E when the sizes differ: V·E fewer parameters, and the
    output layer, the largest matrix product of a step, shrinks from H·V to H·E + E·V."""

    def __init__(self, hidden_size: int, vocab_size: int, embedding: nn.Embedding | None, dropout: float) -> None:
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.tied = embedding
        self.out_features = vocab_size
        if embedding is None:
            self.linear = nn.Linear(hidden_size, vocab_size)
        else:
            embed_size = embedding.embedding_dim
            self.project = nn.Linear(hidden_size, embed_size, bias=False) if embed_size != hidden_size else None
            self.bias = nn.Parameter(torch.zeros(vocab_size))

    def forward(self, features: Tensor) -> Tensor:
        features = self.dropout(features)
        if self.tied is None:
            return self.linear(features)
        if self.project is not None:
            features = self.project(features)  # (..., E)
        return F.linear(features, self.tied.weight, self.bias)  # (..., V)


class Decoder(nn.Module):
    """Shared parts: target embedding, RNN, attention and output layer.

    Subclasses define `step(tokens (B, T), state) -> features (B, T, H), state, weights (B, T, S)`,
    whether the RNN reads the attention context (`context_input`) and whether teacher forcing may
    run all steps at once (`parallel`).
    """

    parallel = False
    context_input = False
    attention_layout = (1, 1)  # (L, M): one attention map per step, as the Transformer's are counted

    def __init__(self, *, vocab_size: int, embed_size: int, hidden_size: int, key_size: int, num_layers: int,
                 dropout: float, io_dropout: float, rnn: str, attention: str, attention_size: int,
                 max_src_len: int, tie_output: bool) -> None:
        super().__init__()
        self.hidden_size, self.key_size = hidden_size, key_size
        self.embedding = nn.Embedding(vocab_size, embed_size, padding_idx=PAD_ID)
        self.embed_dropout = nn.Dropout(io_dropout)
        self.attention = make_attention(attention, hidden_size, key_size, attention_size, dropout, max_src_len)
        rnn_input_size = embed_size + (key_size if self.context_input else 0)
        self.rnn = RNNS[rnn](rnn_input_size, hidden_size, num_layers, batch_first=True,
                             dropout=dropout if num_layers > 1 else 0.0)
        self.output = OutputLayer(hidden_size, vocab_size, self.embedding if tie_output else None, io_dropout)

    def embed(self, tokens: Tensor) -> Tensor:
        """tokens (B, T) -> embeddings (B, T, E)."""
        return self.embed_dropout(self.embedding(tokens))

    def init_state(self, enc_outputs: Tensor, enc_state: RNNState, src_len: Tensor) -> DecoderState:
        """enc_outputs (B, S, D), enc_state (L, B, H), src_len (B,) -> the state before step 1."""
        return DecoderState(enc_state, self.attention.prepare_keys(enc_outputs), enc_outputs, src_len)

    def step(self, tokens: Tensor, state: DecoderState,
             need_weights: bool = True) -> tuple[Tensor, DecoderState, Tensor | None]:
        raise NotImplementedError

    def forward(self, tgt_in: Tensor, state: DecoderState) -> Tensor:
        """Teacher forcing: decoder inputs (B, T) (`<bos>` + target) -> logits (B, T, V)."""
        return self.output(self.teacher_forced(tgt_in, state))  # (B, T, V)

    def teacher_forced(self, tgt_in: Tensor, state: DecoderState) -> Tensor:
        """Decoder inputs (B, T) -> features (B, T, H) of every step: `step` once over all steps
        when the decoder is `parallel`, otherwise `step` T times (what search does)."""
        if self.parallel:
            return self.step(tgt_in, state, need_weights=False)[0]  # (B, T, H)
        steps = []
        for t in range(tgt_in.shape[1]):
            out, state, _ = self.step(tgt_in[:, t : t + 1], state, need_weights=False)
            steps.append(out)
        return torch.cat(steps, dim=1)  # (B, T, H)


class BahdanauDecoder(Decoder):
    """Bahdanau et al. 2014 §3.1 and A.2.2 (d2l §11.4): the query is the previous top-layer state
    s_{t-1}, the context c_t attends over the encoder outputs, the RNN reads [e(y_{t-1}); c_t] and
    the output layer reads the RNN output. One step at a time, since c_t needs s_{t-1}."""

    context_input = True

    def step(self, tokens: Tensor, state: DecoderState,
             need_weights: bool = True) -> tuple[Tensor, DecoderState, Tensor | None]:
        """tokens (B, 1) -> RNN output (B, 1, H), next state, weights (B, 1, S)."""
        if tokens.shape[1] != 1:
            raise ValueError(f"the Bahdanau decoder steps one token at a time, got {tokens.shape[1]}")
        query = top_layer(state.hidden)[:, None, :]  # (B, 1, H)
        context, weights = state.attend(self.attention, query, need_weights)
        inputs = torch.cat([self.embed(tokens), context], dim=-1)  # (B, 1, E + D)
        outputs, hidden = self.rnn(inputs, state.hidden)  # (B, 1, H)
        return outputs, state._replace(hidden=hidden), weights

    def teacher_forced(self, tgt_in: Tensor, state: DecoderState) -> Tensor:
        """The same function as T calls of `step`, for a GRU with additive attention (the training
        hot loop) through `bahdanau_gru`'s hand-written backward. The first layer's input product
        splits in two, `W_ih [e; c] = W_e e + W_c c`: `W_e e` is one product over all steps, and
        since `c = Σ_s a_s v_s`, `W_c c = Σ_s a_s (W_c v_s)` attends over values projected once
        per batch, (B, S, 3H), and never builds c."""
        if not (isinstance(self.rnn, nn.GRU) and isinstance(self.attention, AdditiveAttention)):
            return super().teacher_forced(tgt_in, state)
        # Here, not at the top: only training teacher-forces, so translation never loads the backward.
        from attention_lab.model.bahdanau_backward import bahdanau_gru

        rnn, embed_size = self.rnn, self.embedding.embedding_dim
        x0 = F.linear(self.embed(tgt_in), rnn.weight_ih_l0[:, :embed_size], rnn.bias_ih_l0)  # (B, T, 3H)
        projected = F.linear(state.values, rnn.weight_ih_l0[:, embed_size:])  # (B, S, 3H)
        return bahdanau_gru(x0, state.keys, projected, state.src_len, state.hidden, self.attention, rnn,
                            self.training)  # (B, T, H)


class LuongDecoder(Decoder):
    """Luong et al. 2015 §3 (global attention): the RNN steps first, its output s_t is the query,
    and `s̃_t = tanh(W_c [c_t; s_t])` feeds the output layer. Without input feeding (§3.3) the RNN
    never waits for attention, so teacher forcing runs every step in one call."""

    parallel = True

    def __init__(self, **sizes: int | float | str) -> None:
        super().__init__(**sizes)
        self.W_c = nn.Linear(self.key_size + self.hidden_size, self.hidden_size, bias=False)

    def step(self, tokens: Tensor, state: DecoderState,
             need_weights: bool = True) -> tuple[Tensor, DecoderState, Tensor | None]:
        """tokens (B, T) -> attentional states s̃ (B, T, H), next state, weights (B, T, S)."""
        outputs, hidden = self.rnn(self.embed(tokens), state.hidden)  # (B, T, H)
        context, weights = state.attend(self.attention, outputs, need_weights)
        features = torch.tanh(self.W_c(torch.cat([context, outputs], dim=-1)))  # (B, T, H)
        return features, state._replace(hidden=hidden), weights


DECODERS = {"bahdanau": BahdanauDecoder, "luong": LuongDecoder}
