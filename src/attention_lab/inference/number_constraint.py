"""Numbers copied, never made up: a constraint on the digits a search may write.

A decoder that writes a number one digit piece at a time keeps no count of the digits it copied:
an undertrained one writes `100` for `10`, `55` for `5`, `1777` for `1977`, and nothing tells a
reader. With this constraint a translation writes digits only as the digit groups of its source
(data/numbers.py), whole: each run of digit pieces spells a prefix of one of them, and the run ends
(any other token, `<eos>` included) only where a group is complete; a source without digits gets
none in its translation. A number may still move, take the French form (`2:30` -> `2 h 30`,
`10,000` -> `10 000`), be written out in words or be left out: the number check
(`Translation.missing_numbers`) reports those.

Each sentence's groups make a trie of digits, and each hypothesis row carries its node in it (-1:
outside a run). It needs a vocabulary whose digit pieces are single digits (SentencePiece with
`split_digits`); a word vocabulary, whose numbers are whole words, is searched without it. Shapes
as in `search.py`.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Sequence

import torch
from torch import Tensor

from attention_lab.data.numbers import digit_groups
from attention_lab.data.tokenizer import Codec

WORD_START = "▁"  # SentencePiece's mark of a piece that begins a word


class NumberConstraint:
    def __init__(self, children: Tensor, need: Tensor, roots: Tensor, limits: Tensor, digit_of: Tensor,
                 starts_word: Tensor, mixed: Tensor, width: int) -> None:
        """children (M, 10): the node after each digit, -1 for none; need (M,): digits still to write
        from a node to the end of a group (0: a group ends there); roots (B,): each sentence's root;
        limits (B,): its output tokens at most, so that no run is cut off unfinished; digit_of (V,):
        each token's digit, -1 for a token without one; starts_word (V,): the piece begins a word;
        mixed (V,): a piece of digits and other characters, never written; `width` rows per sentence."""
        self.children, self.need, self.roots, self.limits = children, need, roots, limits
        self.digit_of, self.starts_word, self.mixed, self.width = digit_of, starts_word, mixed, width
        self.digit_ids = (digit_of >= 0).nonzero()[:, 0]  # (D,)
        self.state = torch.full((len(roots) * width,), -1, dtype=torch.long, device=roots.device)  # (N,)
        self.steps = 0  # tokens each row has written

    @classmethod
    def build(cls, sources: Sequence[str], codec: Codec, limits: Tensor, width: int) -> NumberConstraint | None:
        """The constraint for a batch of `sources` whose outputs have at most `limits` (B,) tokens,
        `width` rows each; None for a vocabulary whose numbers are not spelled digit by digit."""
        vocabulary = digit_pieces(codec)
        if vocabulary is None:
            return None
        children: list[list[int]] = []
        ends: list[bool] = []

        def node() -> int:
            children.append([-1] * 10)
            ends.append(False)
            return len(children) - 1

        roots = []
        for source in sources:
            roots.append(node())
            for group in digit_groups(source):
                at = roots[-1]
                for digit in map(int, group):
                    if children[at][digit] < 0:
                        children[at][digit] = node()
                    at = children[at][digit]
                ends[at] = True
        need = [0] * len(children)
        for at in reversed(range(len(children))):  # a node's children come after it
            need[at] = 0 if ends[at] else 1 + min((need[c] for c in children[at] if c >= 0), default=len(children))
        device = limits.device
        digit_of, starts_word, mixed = (t.to(device) for t in vocabulary)
        return cls(torch.tensor(children, device=device), torch.tensor(need, device=device),
                   torch.tensor(roots, device=device), limits, digit_of, starts_word, mixed, width)

    def mask(self, rows: Tensor, log_probs: Tensor) -> None:
        """Set to -inf, in place, the log-probabilities (n, V) of the tokens rows `rows` (n,) may not write."""
        state = self.state[rows]  # (n,)
        root = self.roots[rows // self.width]  # (n,)
        inside = state >= 0
        may_end = ~inside | (self.need[state.clamp(min=0)] == 0)  # (n,)
        # A digit piece glued to the one before goes on with the run (or starts one after a non-digit);
        # one that starts a word starts a run, where the run before it may end. Either way the group
        # must be finished within the tokens left.
        digits = self.digit_of[self.digit_ids]  # (D,)
        room = (self.limits[rows // self.width] - self.steps - 1)[:, None]  # (n, 1) tokens left after this one

        def reachable(nodes: Tensor) -> Tensor:  # (n, D) nodes after each digit -> allowed
            return (nodes >= 0) & (self.need[nodes.clamp(min=0)] <= room)

        goes_on = reachable(self.children[torch.where(inside, state, root)][:, digits])  # (n, D)
        starts = reachable(self.children[root][:, digits]) & may_end[:, None]  # (n, D)
        blocked = (~may_end)[:, None] | self.mixed[None, :]  # (n, V)
        blocked[:, self.digit_ids] = ~torch.where(self.starts_word[self.digit_ids][None, :], starts, goes_on)
        log_probs.masked_fill_(blocked, float("-inf"))

    def advance(self, origin: Tensor, tokens: Tensor) -> None:
        """Each row (N,) now extends row `origin` (N,) (within its sentence) with `tokens` (N,)."""
        before = self.state[origin]  # (N,)
        root = self.roots[torch.arange(len(origin), device=origin.device) // self.width]  # (N,)
        digit = self.digit_of[tokens]  # (N,)
        going_on = (before >= 0) & ~self.starts_word[tokens]
        after = self.children[torch.where(going_on, before, root), digit.clamp(min=0)]  # (N,)
        self.state = torch.where(digit >= 0, after, -1)
        self.steps += 1


@functools.cache
def digit_pieces(codec: Codec) -> tuple[Tensor, Tensor, Tensor] | None:
    """(digit_of, starts_word, mixed) (V,) each, as `NumberConstraint` takes them, for `codec`'s
    vocabulary; None when a piece is several digits (numbers are not spelled digit by digit)."""
    pieces = [codec.piece(i) for i in range(len(codec))]
    bare = [piece.removeprefix(WORD_START) for piece in pieces]
    if any(len(text) > 1 and text.isascii() and text.isdigit() for text in bare):
        return None
    digit_of = torch.tensor([int(t) if len(t) == 1 and t in string.digits else -1 for t in bare])  # (V,)
    starts_word = torch.tensor([piece.startswith(WORD_START) for piece in pieces])  # (V,)
    mixed = torch.tensor([len(t) > 1 and any(c in string.digits for c in t) for t in bare])  # (V,)
    return digit_of, starts_word, mixed
