"""Numbers and names copied, never made up nor left out: a constraint on the spans a search must write
(lexically constrained decoding: Hokamp & Liu 2017, Post & Vilar 2018; design.md: The search copies numbers).

A translation writes digits only as its source's digit groups (data/numbers.py; a number with thousands
commas is one group), whole: each run of digit pieces spells a prefix of one of them and ends only where
one is complete; a group is written once (as often as the source has it, if more), and `<eos>` waits until
every group and every placeholder (a name the corpus lacks, text/names.py) is written. A placeholder's piece
is a word of its own, which the model may also write elsewhere.

Each sentence's spans make a trie over an alphabet of the digits and the placeholders' pieces, and each
hypothesis row carries its node in it (-1: outside a run) and the symbols of the spans it has written. A
beam search keeps the rows that wrote more of the spans beside likelier ones that wrote less (`banks`, and
search_steps.allocated: Post & Vilar's dynamic beam allocation), with each row's best symbol a candidate
(`best_symbols`): a model that rarely writes a span's first piece still finds a translation that writes it.
It needs a vocabulary whose digit pieces are single digits (SentencePiece with `split_digits`); a word
vocabulary, whose numbers are whole words, is searched without it. Shapes as in `search.py`.
"""

from __future__ import annotations

import functools
import string
from collections import Counter
from collections.abc import Sequence

import torch
from torch import Tensor

from attention_lab.data.numbers import number_groups
from attention_lab.data.special_tokens import EOS_ID
from attention_lab.data.tokenizer import Codec
from attention_lab.text.names import PLACEHOLDERS

WORD_START = "▁"  # SentencePiece's mark of a piece that begins a word
MAX_GROUPS = 62  # a sentence's groups with a bit of their own (in an int64); more share bit 62, never used up


class NumberConstraint:
    def __init__(self, children: Tensor, need: Tensor, bit: Tensor, below: Tensor, roots: Tensor, wanted: Tensor,
                 again: Tensor, depth: Tensor, limits: Tensor, digit_of: Tensor, starts_word: Tensor, mixed: Tensor,
                 width: int, symbols: Tensor) -> None:
        """children (U, ALPHABET): the node after each symbol, -1 for none; need (U,): digits still to write
        from a node to the end of a group (0: a group ends there); bit (U,): the group that ends at a
        node, as a bit of its sentence's groups (0 for none); below (U,): the bits of the groups a
        node leads to; roots (B,): each sentence's root; wanted (B,): the bits of all its groups;
        again (B,): the bits of those that may be written more than once; depth (U,): a node's symbols
        from its root; limits (B,): its output tokens at most, so that no run is cut off unfinished;
        digit_of (V,): each token's symbol (0-9 for a digit, then the placeholders), -1 for a token without
        one; starts_word (V,): the piece begins a word; mixed (V,): a piece of digits and other characters,
        never written; `width` rows per sentence; symbols (B,): the symbols of each sentence's spans."""
        self.children, self.need, self.bit, self.below = children, need, bit, below
        self.roots, self.wanted, self.again, self.depth, self.limits = roots, wanted, again, depth, limits
        self.digit_of, self.starts_word, self.width = digit_of, starts_word, width
        self.digit_ids = (digit_of >= 0).nonzero()[:, 0]  # (J,)
        self.mixed_ids = mixed.nonzero()[:, 0]
        self.state = torch.full((len(roots) * width,), -1, dtype=torch.long, device=roots.device)  # (N,)
        self.written = torch.zeros_like(self.state)  # (N,) the bits of the groups each row has written
        self.done = torch.zeros_like(self.state)  # (N,) the symbols of the spans each row has written, once each
        self.sentence = torch.arange(len(self.state), device=roots.device) // width  # (N,) each row's
        self.symbols, self.most = symbols, int(symbols.max())
        self.steps = 0  # tokens each row has written

    @classmethod
    def build(cls, sources: Sequence[str], codec: Codec, limits: Tensor, width: int,
              names: Sequence[Sequence[str]] = ()) -> NumberConstraint | None:
        """The constraint for a batch of `sources` whose outputs have at most `limits` (B,) tokens,
        `width` rows each, and that must also write the placeholders `names` (each sentence's); None for a
        vocabulary whose numbers are not spelled digit by digit."""
        vocabulary = digit_pieces(codec)
        if vocabulary is None:
            return None
        children: list[list[int]] = []
        ends: list[bool] = []
        depth: list[int] = []

        def node(above: int = -1) -> int:
            children.append([-1] * ALPHABET)
            ends.append(False)
            depth.append(depth[above] + 1 if above >= 0 else 0)
            return len(children) - 1

        roots, wanted, again, bits, symbols = [], [], [], {}, []
        for k, source in enumerate(sources):
            roots.append(node())
            wanted.append(0)
            again.append(1 << MAX_GROUPS)
            groups = number_groups(source)
            counts = Counter(groups)
            placeholders = [[10 + PLACEHOLDERS.index(name)] for name in (names[k] if names else ())]
            spans = [list(map(int, g)) for g in dict.fromkeys(groups)] + placeholders
            symbols.append(sum(map(len, spans[:MAX_GROUPS])))
            for index, group in enumerate(spans):
                at = roots[-1]
                for digit in group:
                    if children[at][digit] < 0:
                        children[at][digit] = node(at)
                    at = children[at][digit]
                ends[at] = True
                bits[at] = 1 << min(index, MAX_GROUPS)
                wanted[-1] |= bits[at] if index < MAX_GROUPS else 0
                again[-1] |= bits[at] if group[0] >= 10 or counts["".join(map(str, group))] > 1 else 0
        need, below = [0] * len(children), [0] * len(children)
        for at in reversed(range(len(children))):  # a node's children come after it
            need[at] = 0 if ends[at] else 1 + min((need[c] for c in children[at] if c >= 0), default=len(children))
            below[at] = bits.get(at, 0) | functools.reduce(int.__or__, (below[c] for c in children[at] if c >= 0), 0)
        device = limits.device
        digit_of, starts_word, mixed = (t.to(device) for t in vocabulary)
        bit = [bits.get(at, 0) for at in range(len(children))]
        return cls(*(torch.tensor(t, device=device) for t in (children, need, bit, below, roots, wanted, again, depth)),
                   limits, digit_of, starts_word, mixed, width, torch.tensor(symbols, device=device))

    @staticmethod
    def takes_names(codec: Codec) -> bool:
        """Whether `codec`'s vocabulary spells digits one by one and has each placeholder as one piece."""
        vocabulary = digit_pieces(codec)
        return vocabulary is not None and int((vocabulary[0] >= 10).sum()) == len(PLACEHOLDERS)

    def mask(self, rows: Tensor, log_probs: Tensor) -> None:
        """Set to -inf, in place, the log-probabilities (n, V) of the tokens rows `rows` (n,) may not write."""
        state = self.state[rows]  # (n,)
        root = self.roots[rows // self.width]  # (n,)
        inside = state >= 0
        may_end = ~inside | (self.need[state.clamp(min=0)] == 0)  # (n,)
        # A digit piece glued to the one before goes on with the run (or starts one after a non-digit);
        # one that starts a word starts a run, where the run before it may end. Either way the group
        # must be finished within the tokens left.
        digits = self.digit_of[self.digit_ids]  # (J,)
        room = (self.limits[rows // self.width] - self.steps - 1)[:, None]  # (n, 1) tokens left after this one
        # The groups written, the one the run under way has completed included (a token that is not
        # its next digit ends it); those left, and those the source has more than once.
        written = self.written[rows] | torch.where(inside, self.bit[state.clamp(min=0)], 0)  # (n,)
        left = (~written | self.again[rows // self.width])[:, None]  # (n, 1)

        def reachable(nodes: Tensor) -> Tensor:  # (n, J) nodes after each digit -> allowed
            at = nodes.clamp(min=0)
            return (nodes >= 0) & (self.need[at] <= room) & ((self.below[at] & left) != 0)

        goes_on = reachable(self.children[torch.where(inside, state, root)][:, digits])  # (n, J)
        starts = reachable(self.children[root][:, digits]) & may_end[:, None]  # (n, J)
        allowed = torch.where(self.starts_word[self.digit_ids][None, :], starts, goes_on)  # (n, J)
        allowed |= (digits >= 10)[None, :] & may_end[:, None]  # a placeholder is a word like any other
        digit_log_probs = log_probs[:, self.digit_ids].masked_fill(~allowed, float("-inf"))  # (n, J)
        # Only columns and rows are touched: no (n, V) mask is made at every step.
        log_probs.masked_fill_((~may_end)[:, None], float("-inf"))  # inside an unfinished group: its symbols only
        log_probs[:, self.digit_ids] = digit_log_probs
        log_probs[:, self.mixed_ids] = float("-inf")
        wanted = self.wanted[rows // self.width]  # (n,)
        log_probs[:, EOS_ID].masked_fill_((written & wanted) != wanted, float("-inf"))  # every group written first

    def best_symbols(self, rows: Tensor, log_probs: Tensor) -> tuple[Tensor, Tensor]:
        """Each of rows `rows`' (n,) likeliest digit or placeholder piece of `log_probs` (n, V) once masked: its
        log-probability (n,) (-inf: none may be written) and its token (n,)."""
        best, at = log_probs[:, self.digit_ids].max(dim=1)  # (n,)
        return best, self.digit_ids[at]

    def banks(self, tokens: Tensor) -> Tensor:
        """How far each row's candidate `tokens` (N, k) take it through its sentence's spans (N, k), from 0 to
        2 `most`: two for each symbol of a span written with the token, less one while a run is under way
        (the row writes one more symbol or ends it; cut at the limit it is no span); a span again adds none."""
        state, symbol = self.state[:, None], self.digit_of[tokens]  # (N, 1), (N, k)
        goes_on = (state >= 0) & (symbol >= 0) & ~self.starts_word[tokens]  # (N, k)
        at = self.children[torch.where(goes_on, state, self.roots[self.sentence, None]), symbol.clamp(min=0)]
        under_way = torch.where((symbol >= 0) & (at >= 0), self.depth[at.clamp(min=0)], 0)  # (N, k) a run's symbols
        wanted = self.wanted[self.sentence, None]  # (N, 1)
        fresh = (state >= 0) & ((self.bit[state.clamp(min=0)] & wanted & ~self.written[:, None]) != 0)  # (N, 1)
        done = self.done[:, None] + torch.where(fresh & ~goes_on, self.depth[state.clamp(min=0)], 0)  # (N, k)
        return torch.minimum(2 * (done + under_way) - (under_way > 0).long(), 2 * self.symbols[self.sentence, None])

    def wrote_all(self) -> Tensor:
        """(N,) each row has written every span of its sentence, which has some (the last may end the row)."""
        wanted = self.wanted[self.sentence]  # (N,)
        written = self.written | torch.where(self.state >= 0, self.bit[self.state.clamp(min=0)], 0)  # (N,)
        return (wanted != 0) & ((written & wanted) == wanted)

    @property
    def let_go(self) -> Tensor:
        """(B,) none: no row ends without its source's numbers (`release` lets nothing go)."""
        return torch.zeros_like(self.wanted, dtype=torch.bool)

    def release(self, sentences: Tensor) -> None:
        """Nothing: a row never ends without its source's numbers, even once another row of its sentence wrote
        them all (the glossary's terms are let go: term_constraint.py)."""

    def advance(self, origin: Tensor, tokens: Tensor) -> None:
        """Each row (N,) now extends row `origin` (N,) (within its sentence) with `tokens` (N,)."""
        before = self.state[origin]  # (N,)
        root = self.roots[self.sentence]  # (N,)
        digit = self.digit_of[tokens]  # (N,)
        going_on = (before >= 0) & ~self.starts_word[tokens]
        after = self.children[torch.where(going_on, before, root), digit.clamp(min=0)]  # (N,)
        ended = (before >= 0) & ~((digit >= 0) & going_on)  # the run under way ended before this token
        completed = torch.where(ended, self.bit[before.clamp(min=0)], 0)  # (N,)
        wanted = self.wanted[self.sentence]  # (N,)
        fresh = (completed & wanted & ~self.written[origin]) != 0  # (N,)
        self.done = self.done[origin] + torch.where(fresh, self.depth[before.clamp(min=0)], 0)
        self.written = self.written[origin] | completed
        self.state = torch.where(digit >= 0, after, -1)
        self.steps += 1


ALPHABET = 10 + len(PLACEHOLDERS)  # the digits, then the placeholders' word pieces


@functools.cache
def digit_pieces(codec: Codec) -> tuple[Tensor, Tensor, Tensor] | None:
    """(digit_of, starts_word, mixed) (V,) each, as `NumberConstraint` takes them, for `codec`'s
    vocabulary; None when a piece is several digits or none is one (numbers are not spelled digit by digit)."""
    pieces = [codec.piece(i) for i in range(len(codec))]
    bare = [piece.removeprefix(WORD_START) for piece in pieces]
    if any(len(text) > 1 and text.isascii() and text.isdigit() for text in bare) or \
            not any(len(text) == 1 and text in string.digits for text in bare):
        return None
    symbols = {WORD_START + name: 10 + k for k, name in enumerate(PLACEHOLDERS)}
    digit_of = torch.tensor([int(t) if len(t) == 1 and t in string.digits else symbols.get(p, -1)
                             for p, t in zip(pieces, bare)])  # (V,)
    starts_word = torch.tensor([piece.startswith(WORD_START) for piece in pieces])  # (V,)
    mixed = torch.tensor([len(t) > 1 and any(c in string.digits for c in t) for t in bare])  # (V,)
    return digit_of, starts_word, mixed
