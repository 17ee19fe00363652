"""A model that reads nothing and wants to write a script: at output step t it favours the t-th token of its
sentence's script by `margin` nats over seeded random logits, whatever came before. Given a script that swaps or
merges the source's numbers, it is the adversary of the number constraint (tests/test_number_constraint.py)."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attention_lab.data.special_tokens import EOS_ID
from attention_lab.model.encoder_decoder import EncoderDecoder


class State:
    """The rows' sentences (n,) and the output step; `width` rows a sentence (EncoderDecoder's `select`, `keep`)."""

    def __init__(self, sentence: Tensor, step: int, width: int, source_len: int) -> None:
        self.sentence, self.step, self.width, self.source_len = sentence, step, width, source_len

    def select(self, index: Tensor) -> State:
        width = self.width or len(index) // len(self.sentence)  # the first select expands each sentence to W rows
        return State(self.sentence[index], self.step, width, self.source_len)

    def keep(self, kept: Tensor) -> State:
        rows = (kept[:, None] * self.width + torch.arange(self.width)).flatten()
        return State(self.sentence[rows], self.step, self.width, self.source_len)


class Decoder(nn.Module):
    def __init__(self, logits: Tensor) -> None:
        super().__init__()
        self.logits = logits  # (B, T, V)
        self.embedding = nn.Embedding(logits.shape[-1], 1)
        self.output = nn.Identity()
        self.attention_layout = (1, 1)

    def step(self, tokens: Tensor, state: State) -> tuple[Tensor, State, Tensor]:
        step = min(state.step, self.logits.shape[1] - 1)
        features = self.logits[state.sentence, step][:, None]  # (n, 1, V): the logits themselves
        weights = torch.full((len(tokens), 1, state.source_len), 1.0 / state.source_len)
        return features, State(state.sentence, state.step + 1, state.width, state.source_len), weights


class Scripted(EncoderDecoder):
    def __init__(self, scripts: list[list[int]], vocab_size: int, steps: int, seeds: list[int],
                 margin: float = 8.0) -> None:
        """`scripts`: each sentence's favoured tokens, `<eos>` after them; `steps` output steps at most; `seeds`:
        each sentence's random logits (a sentence alone is scored as in a batch)."""
        super().__init__()
        logits = torch.stack([torch.randn(steps, vocab_size, generator=torch.Generator().manual_seed(seed))
                              for seed in seeds])  # (B, T, V)
        for b, script in enumerate(scripts):
            for t, token in enumerate([*script, EOS_ID][:steps]):
                logits[b, t, token] += margin
        self.decoder = Decoder(logits)

    def encode(self, src: Tensor, src_len: Tensor) -> State:
        return State(torch.arange(len(src)), 0, 0, src.shape[1])
