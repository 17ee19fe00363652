"""The Transformer encoder-decoder (Vaswani et al. 2017, "Attention Is All You Need", §3; d2l
§11.7), pre-norm: each sub-layer reads `LayerNorm(x)` and adds its output to x, and a final
LayerNorm closes each stack (Xiong et al. 2020, "On Layer Normalization in the Transformer
Architecture": gradients stay bounded at initialisation, so it trains without the long warm-up
the paper's post-norm needs, which matters when the whole run is a 21-minute budget).

Embeddings are scaled by √H and added to sinusoidal positions (§3.4, §3.5). The decoder's
`step` runs any number of new tokens against its cache of earlier steps' self-attention keys and
values, so search pays for one position per step and teacher forcing runs all steps at once
(a causal mask keeps each position from reading later ones). Shapes: see the package notation.

`self_attention` gives the encoder's and the decoder's self-attention weights of a pair, for a
translation already chosen: a pass of its own, asked for by heatmaps, never run by training or search.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import Tensor, nn

from attention_lab.data.special_tokens import PAD_ID
from attention_lab.model.decoder import OutputLayer
from attention_lab.model.attention import by_sentence
from attention_lab.model.encoder_decoder import (
    EncoderDecoder,
    check_tying,
    init_embedding,
    sentence_rows,
    xavier_init,
)
from attention_lab.model.multi_head_attention import MultiHeadAttention
from attention_lab.model.params import ModelParams, TransformerParams
from attention_lab.model.positional_encoding import sinusoids


class TransformerState(NamedTuple):
    """A decoder's state: per layer, the cross-attention keys and values of the source (B, M, S, Z),
    projected once per sentence, and the self-attention keys and values of the t steps so far
    (N, M, t, Z) of each of the N = B·W rows (W hypotheses per sentence in beam search)."""
    memory_keys: tuple[Tensor, ...]
    memory_values: tuple[Tensor, ...]
    self_keys: tuple[Tensor, ...]
    self_values: tuple[Tensor, ...]
    src_len: Tensor  # (B,)

    def select(self, index: Tensor) -> TransformerState:
        """Rows `index` (N',) within their sentences: the source's keys and values stay as they are."""
        return self._replace(self_keys=tuple(t.index_select(0, index) for t in self.self_keys),
                             self_values=tuple(t.index_select(0, index) for t in self.self_values))

    def keep(self, index: Tensor) -> TransformerState:
        """Sentences `index` (B',) and their rows."""
        rows = sentence_rows(index, self.self_keys[0].shape[0] // len(self.src_len))  # (B'·W,)
        memory = (tuple(t.index_select(0, index) for t in group) for group in self[:2])
        return TransformerState(*memory, self.self_keys, self.self_values, self.src_len[index]).select(rows)

    @property
    def steps(self) -> int:
        return self.self_keys[0].shape[2]


def embed_positions(embedding: nn.Embedding, tokens: Tensor, first: int, dropout: nn.Dropout) -> Tensor:
    """tokens (B, T) at positions first, first + 1, ... -> `dropout(√H e + PE)` (B, T, H)."""
    size = embedding.embedding_dim
    positions = torch.arange(first, first + tokens.shape[1], device=tokens.device)
    return dropout(embedding(tokens) * math.sqrt(size) + sinusoids(positions, size).to(embedding.weight.dtype))


class FeedForward(nn.Sequential):
    """Position-wise `W_2 dropout(ReLU(W_1 x))` (§3.3): (..., H) -> (..., F) -> (..., H)."""

    def __init__(self, size: int, ffn_size: int, dropout: float) -> None:
        super().__init__(nn.Linear(size, ffn_size), nn.ReLU(), nn.Dropout(dropout), nn.Linear(ffn_size, size))


class EncoderBlock(nn.Module):
    def __init__(self, p: TransformerParams) -> None:
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(p.model_size), nn.LayerNorm(p.model_size)
        self.attention = MultiHeadAttention(p.model_size, p.heads, p.dropout)
        self.ffn = FeedForward(p.model_size, p.ffn_size, p.dropout)
        self.dropout = nn.Dropout(p.dropout)

    def forward(self, x: Tensor, src_len: Tensor, need_weights: bool = False) -> tuple[Tensor, Tensor | None]:
        """x (B, S, H), src_len (B,) -> (B, S, H), and with `need_weights` the self-attention weights
        (B, M, S, S) (a row per query, zero at padded keys), else None; no position attends to padding."""
        h = self.norm1(x)
        context, weights = self.attention(h, h, h, src_len, need_weights)
        x = x + self.dropout(context)
        return x + self.dropout(self.ffn(self.norm2(x))), weights


class DecoderBlock(nn.Module):
    def __init__(self, p: TransformerParams) -> None:
        super().__init__()
        self.norm1, self.norm2, self.norm3 = (nn.LayerNorm(p.model_size) for _ in range(3))
        self.self_attention = MultiHeadAttention(p.model_size, p.heads, p.dropout)
        self.cross_attention = MultiHeadAttention(p.model_size, p.heads, p.dropout)
        self.ffn = FeedForward(p.model_size, p.ffn_size, p.dropout)
        self.dropout = nn.Dropout(p.dropout)

    def forward(self, x: Tensor, past_keys: Tensor, past_values: Tensor, memory_keys: Tensor,
                memory_values: Tensor, src_len: Tensor, need_weights: bool,
                self_weights: bool = False) -> tuple[Tensor, Tensor, Tensor, Tensor | None, Tensor | None]:
        """x (N, T, H): T new steps after the t cached ones (N, M, t, Z) -> x (N, T, H), the keys
        and values of all t + T steps (N, M, t + T, Z), cross-attention weights (N, M, T, S) or None,
        and with `self_weights` the masked self-attention weights (N, M, T, t + T) (zero at the keys a
        step may not read), else None; the source's keys and values (B, M, S, Z) are read once per
        sentence (`by_sentence`)."""
        h = self.norm1(x)
        keys, values = self.self_attention.project(h, h)  # (N, M, T, Z)
        past, steps = past_keys.shape[2], x.shape[1]
        if past:  # teacher forcing and search's first step have nothing cached: no copy
            keys, values = (torch.cat([past_keys, keys], dim=2),
                            torch.cat([past_values, values], dim=2))  # (N, M, t + T, Z)
        # Causal: new step i reads the t cached steps and new steps up to i. One new step reads all;
        # with nothing cached (teacher forcing) `is_causal` keeps the fused kernel and builds no mask.
        readable = (None if steps == 1 or not past
                    else (past + torch.arange(1, steps + 1, device=x.device)).expand(x.shape[0], -1))  # (N, T)
        context, own = self.self_attention.attend(h, keys, values, readable, self_weights,
                                                  causal=steps > 1 and not past)
        x = x + self.dropout(context)
        context, weights = by_sentence(lambda q: self.cross_attention.attend(q, memory_keys, memory_values, src_len,
                                                                             need_weights), self.norm2(x), len(src_len))
        x = x + self.dropout(context)
        return x + self.dropout(self.ffn(self.norm3(x))), keys, values, weights, own


class TransformerEncoder(nn.Module):
    def __init__(self, vocab_size: int, p: TransformerParams) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, p.model_size, padding_idx=PAD_ID)
        self.dropout = nn.Dropout(p.dropout)
        self.blocks = nn.ModuleList(EncoderBlock(p) for _ in range(p.layers))
        self.norm = nn.LayerNorm(p.model_size)

    def forward(self, src: Tensor, src_len: Tensor) -> Tensor:
        """src (B, S), src_len (B,) -> memory (B, S, H); rows at padding are never attended."""
        return self.attending(src, src_len, need_weights=False)[0]

    def attending(self, src: Tensor, src_len: Tensor, need_weights: bool) -> tuple[Tensor, Tensor | None]:
        """src (B, S), src_len (B,) -> memory (B, S, H), and with `need_weights` every layer's and
        head's self-attention weights (B, R, S, S) (R = L·M, layer-major; row = query, column = key,
        zero at padded keys; the rows of padded queries mean nothing), else None."""
        x = embed_positions(self.embedding, src, 0, self.dropout)
        weights = []
        for block in self.blocks:
            x, w = block(x, src_len, need_weights)
            weights.append(w)
        return self.norm(x), torch.stack(weights, dim=1).flatten(1, 2) if need_weights else None  # (B, R, S, S)


class TransformerDecoder(nn.Module):
    """`step(tokens (B, T), state)` -> features (B, T, H), the next state, and the cross-attention
    weights (B, T, R, S) of every layer and head (R = L·M, layer-major), or None when
    `need_weights` is False."""

    def __init__(self, vocab_size: int, p: TransformerParams, tie_output: bool) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, p.model_size, padding_idx=PAD_ID)
        self.dropout = nn.Dropout(p.dropout)
        self.blocks = nn.ModuleList(DecoderBlock(p) for _ in range(p.layers))
        self.norm = nn.LayerNorm(p.model_size)
        self.output = OutputLayer(p.model_size, vocab_size, self.embedding if tie_output else None, 0.0)
        self.attention_layout = (p.layers, p.heads)  # (L, M): how the R maps of `step` are laid out

    def init_state(self, memory: Tensor, src_len: Tensor) -> TransformerState:
        """memory (B, S, H) -> the state before step 1, with no steps cached."""
        memory_keys, memory_values = zip(*(block.cross_attention.project(memory, memory) for block in self.blocks))
        empty = memory_keys[0][:, :, :0]  # (B, M, 0, Z)
        no_steps = (empty,) * len(self.blocks)
        return TransformerState(memory_keys, memory_values, no_steps, no_steps, src_len)

    def step(self, tokens: Tensor, state: TransformerState,
             need_weights: bool = True) -> tuple[Tensor, TransformerState, Tensor | None]:
        x = embed_positions(self.embedding, tokens, state.steps, self.dropout)  # (B, T, H)
        keys, values, weights = [], [], []
        for i, block in enumerate(self.blocks):
            x, k, v, w, _ = block(x, state.self_keys[i], state.self_values[i], state.memory_keys[i],
                                  state.memory_values[i], state.src_len, need_weights)
            keys.append(k)
            values.append(v)
            weights.append(w)
        state = state._replace(self_keys=tuple(keys), self_values=tuple(values))
        if need_weights:
            weights = torch.stack(weights, dim=1).flatten(1, 2).transpose(1, 2)  # (B, T, R, S)
        return self.norm(x), state, weights if need_weights else None

    def teacher_forced(self, tgt_in: Tensor, state: TransformerState) -> Tensor:
        """Decoder inputs (B, T) -> features (B, T, H), all steps in one `step`."""
        return self.step(tgt_in, state, need_weights=False)[0]

    def self_attention(self, tgt_in: Tensor, state: TransformerState) -> Tensor:
        """Decoder inputs (B, T) teacher-forced from a state with no steps cached -> every layer's and
        head's masked self-attention weights (B, R, T, T) (R = L·M, layer-major): row t is the step
        that reads inputs 0..t, so everything above the diagonal is zero."""
        if state.steps:
            raise ValueError(f"self_attention reads all steps at once: got a state with {state.steps} cached")
        x = embed_positions(self.embedding, tgt_in, 0, self.dropout)  # (B, T, H)
        weights = []
        for i, block in enumerate(self.blocks):
            x, _, _, _, w = block(x, state.self_keys[i], state.self_values[i], state.memory_keys[i],
                                  state.memory_values[i], state.src_len, need_weights=False, self_weights=True)
            weights.append(w)
        return torch.stack(weights, dim=1).flatten(1, 2)  # (B, R, T, T)

    def forward(self, tgt_in: Tensor, state: TransformerState) -> Tensor:
        """Teacher forcing: decoder inputs (B, T) (`<bos>` + target) -> logits (B, T, V)."""
        return self.output(self.teacher_forced(tgt_in, state))


class TransformerSeq2Seq(EncoderDecoder):
    """Transformer encoder + decoder with `params.transformer`'s sizes; embeddings tied as
    `params.tie_embeddings` says."""

    def __init__(self, params: ModelParams, src_vocab_size: int, tgt_vocab_size: int) -> None:
        super().__init__()
        check_tying(params.tie_embeddings, src_vocab_size, tgt_vocab_size)
        self.params = params
        self.encoder = TransformerEncoder(src_vocab_size, params.transformer)
        self.decoder = TransformerDecoder(tgt_vocab_size, params.transformer, params.tie_embeddings != "none")
        self.apply(xavier_init)
        for embedding in (self.encoder.embedding, self.decoder.embedding):
            init_embedding(embedding)  # scaled by √H on the way in
        self.tie_embeddings(params.tie_embeddings)

    self_attends = True

    def encode(self, src: Tensor, src_len: Tensor) -> TransformerState:
        return self.decoder.init_state(self.encoder(src, src_len), src_len)

    def self_attention(self, src: Tensor, src_len: Tensor, tgt_in: Tensor) -> tuple[Tensor, Tensor]:
        """Sources (B, S), src_len (B,) and decoder inputs (B, T) (`<bos>` + the chosen output) ->
        the encoder's self-attention (B, R, S, S) and the decoder's masked self-attention (B, R, T, T),
        every layer and head (R = L·M, layer-major). A pass of its own, which builds the score matrices
        that the fused kernel of training and search never does: it costs nothing unless called."""
        memory, encoder = self.encoder.attending(src, src_len, need_weights=True)
        return encoder, self.decoder.self_attention(tgt_in, self.decoder.init_state(memory, src_len))
