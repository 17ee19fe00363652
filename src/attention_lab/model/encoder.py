"""RNN encoder over padded source sentences (Cho et al. 2014 §2; Bahdanau et al. 2014 §3.2, A.2.1)."""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from attention_lab.data.special_tokens import PAD_ID
from attention_lab.model.precision import recurrence_dtype

RNNState = Tensor | tuple[Tensor, Tensor]  # GRU: h (L, B, H); LSTM: (h, c), each (L, B, H)

RNNS = {"gru": nn.GRU, "lstm": nn.LSTM}


class Encoder(nn.Module):
    """Embedding + multi-layer GRU or LSTM, optionally bidirectional.

    Sequences are packed, so the final state comes from each sentence's last real token and
    never from `<pad>`. A bidirectional encoder (Bahdanau et al. 2014 §3.2) concatenates both
    directions' outputs (D = 2H features) and bridges its final states to the decoder's
    initial state with `tanh(W [h_fwd; h_bwd])` per layer.
    """

    def __init__(self, vocab_size: int, embed_size: int, hidden_size: int, num_layers: int,
                 dropout: float, rnn: str = "gru", bidirectional: bool = False, io_dropout: float = 0.0) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size, padding_idx=PAD_ID)
        self.embed_dropout = nn.Dropout(io_dropout)
        self.rnn = RNNS[rnn](embed_size, hidden_size, num_layers, batch_first=True,
                             dropout=dropout if num_layers > 1 else 0.0, bidirectional=bidirectional)
        self.bridge = nn.Linear(2 * hidden_size, hidden_size) if bidirectional else None
        self.output_size = hidden_size * (2 if bidirectional else 1)

    def forward(self, src: Tensor, src_len: Tensor) -> tuple[Tensor, RNNState]:
        """src (B, S) token ids, src_len (B,) -> outputs (B, S, D), zero at padding, and the
        decoder's initial state (L, B, H) (a pair of them for LSTM)."""
        embedded = self.embed_dropout(self.embedding(src))  # (B, S, E)
        # Packing needs the lengths on the CPU: one copy per batch, never per decoder step.
        weights = self.rnn.weight_hh_l0.dtype
        dtype = recurrence_dtype(src.device.type, weights)
        packed = pack_padded_sequence(embedded.to(dtype), src_len.cpu(), batch_first=True, enforce_sorted=False)
        if dtype == weights:
            outputs, state = self.rnn(packed)
        else:  # the weights cast for this pass; their gradients come back in their own dtype
            cast = {name: weight.to(dtype) for name, weight in self.rnn.named_parameters()}
            outputs, state = torch.func.functional_call(self.rnn, cast, (packed,))
            state = tuple(s.to(weights) for s in state) if isinstance(state, tuple) else state.to(weights)
        outputs, _ = pad_packed_sequence(outputs, batch_first=True, total_length=src.shape[1])  # (B, S, D)
        outputs = outputs.to(weights)  # the decoders' interface: the weights' dtype, whichever the recurrence ran in
        if self.bridge is not None:
            state = tuple(map(self._bridge, state)) if isinstance(state, tuple) else self._bridge(state)
        return outputs, state

    def _bridge(self, state: Tensor) -> Tensor:
        layers, batch, hidden = state.shape[0] // 2, state.shape[1], state.shape[2]
        both = state.view(layers, 2, batch, hidden).transpose(1, 2).reshape(layers, batch, 2 * hidden)  # (L, B, 2H)
        return torch.tanh(self.bridge(both))  # (L, B, H)
