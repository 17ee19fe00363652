"""A glossary's terms written by the search (text/glossary.py; design.md: Glossary): each sentence's French
terms are spans of target pieces the output must hold, searched as the numbers and names are
(number_constraint.py): lexically constrained beam search with dynamic beam allocation (Post & Vilar 2018,
"Fast Lexically Constrained Decoding with Dynamic Beam Allocation"; Hokamp & Liu 2017).

Unlike a number's digits, a term's pieces (`▁de`) are words the model writes anywhere, so no piece is ever
forbidden: a row that starts a term and then writes another piece leaves it unwritten (Post & Vilar's
unwinding). A term counts as written where its last piece is followed by a piece that starts a word (or
`<eos>`): `▁courriel` then `s` wrote `courriels`, not the term. `<eos>` waits until every term is written,
unless those left no longer fit in the output limit or a row of the sentence has ended with them all
(`release`): then rows may end without them, and the check after writing names what a translation lacks
(`Translation.missing_terms`). Each sentence's terms make a trie over its
batch's term pieces; each hypothesis row carries its node (-1: none) and the terms it wrote. Shapes as in
`search.py`; A counts the batch's distinct term pieces, U the trie's nodes, K the most terms of a sentence.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import torch
from torch import Tensor

from attention_lab.data.special_tokens import EOS_ID
from attention_lab.data.tokenizer import Codec

WORD_START = "▁"  # SentencePiece's mark of a piece that begins a word
MAX_TERMS = 62  # a sentence's terms with a bit of their own (in an int64); more are left to the check after writing


class TermConstraint:
    def __init__(self, children: Tensor, bit: Tensor, below: Tensor, depth: Tensor, need: Tensor, roots: Tensor,
                 wanted: Tensor, lengths: Tensor, symbols: Tensor, limits: Tensor, symbol_of: Tensor, ids: Tensor,
                 joins: Tensor, width: int) -> None:
        """children (U, A): the node after each term piece, -1 for none; bit (U,): the terms that end at a node,
        as bits of its sentence's terms; below (U,): the bits of the terms a node leads to; depth (U,): a node's
        pieces from its root; need (U,): the fewest pieces from a node to a term's end; roots (B,): each
        sentence's root; wanted (B,): the bits of all its terms; lengths (B, K): each term's fewest pieces;
        symbols (B,): the pieces of all its terms; limits (B,): output tokens at most; symbol_of (V,): each
        token's term piece (0 to A - 1), -1 for none; ids (A,): each term piece's token; joins (V,): the piece
        goes on with the word before it (no word start, a letter or digit first); `width` rows per sentence."""
        self.children, self.bit, self.below, self.depth, self.need = children, bit, below, depth, need
        self.roots, self.wanted, self.lengths, self.symbols, self.limits = roots, wanted, lengths, symbols, limits
        self.symbol_of, self.ids, self.joins, self.width = symbol_of, ids, joins, width
        rows = len(roots) * width
        self.state = torch.full((rows,), -1, dtype=torch.long, device=roots.device)  # (N,) each row's node
        self.written = torch.zeros_like(self.state)  # (N,) the bits of the terms each row has written
        self.done = torch.zeros_like(self.state)  # (N,) the pieces of the terms each row has written, once each
        self.sentence = torch.arange(rows, device=roots.device) // width  # (N,) each row's
        self.spans = wanted != 0  # (B,) the sentence has terms to write
        self.most = int(symbols.max())
        self.steps = 0  # tokens each row has written
        self.released = torch.zeros(len(roots), dtype=torch.bool, device=roots.device)  # (B,) see `release`

    @classmethod
    def build(cls, terms: Sequence[Sequence[Sequence[Sequence[int]]]], codec: Codec, limits: Tensor,
              width: int) -> TermConstraint | None:
        """The constraint for a batch whose sentence b must write each of `terms[b]`, a term being its token
        sequences (any one writes it: text/glossary.py's `term_pieces`), outputs of at most `limits` (B,)
        tokens, `width` rows each; None for a batch without terms."""
        if not any(terms):
            return None
        symbol: dict[int, int] = {}
        children: list[dict[int, int]] = []
        bits: list[int] = []
        depth: list[int] = []

        def node(above: int = -1) -> int:
            children.append({})
            bits.append(0)
            depth.append(depth[above] + 1 if above >= 0 else 0)
            return len(children) - 1

        count = min(max(map(len, terms)), MAX_TERMS)
        roots, wanted, lengths, symbols = [], [], [], []
        for sentence_terms in terms:
            roots.append(node())
            wanted.append(0)
            lengths.append([0] * count)
            symbols.append(0)
            for index, forms in enumerate(sentence_terms[:MAX_TERMS]):
                for form in forms:
                    at = roots[-1]
                    for token in form:
                        s = symbol.setdefault(int(token), len(symbol))
                        at = children[at][s] if s in children[at] else children[at].setdefault(s, node(at))
                    bits[at] |= 1 << index
                wanted[-1] |= 1 << index
                lengths[-1][index] = min(map(len, forms))
                symbols[-1] += max(map(len, forms))
        table = [[-1] * len(symbol) for _ in children]
        for at, after in enumerate(children):
            for s, child in after.items():
                table[at][s] = child
        below, need = bits[:], [0 if b else len(children) for b in bits]
        for at in reversed(range(len(children))):  # a node's children come after it
            for child in children[at].values():
                below[at] |= below[child]
                need[at] = min(need[at], need[child] + 1)
        device = limits.device
        ids = torch.tensor(list(symbol), dtype=torch.long)  # (A,)
        symbol_of = torch.full((len(codec),), -1, dtype=torch.long)
        symbol_of[ids] = torch.arange(len(ids))
        tensor = functools.partial(torch.tensor, dtype=torch.long, device=device)
        return cls(tensor(table).view(len(children), len(symbol)), tensor(bits), tensor(below), tensor(depth),
                   tensor(need), tensor(roots), tensor(wanted), tensor(lengths), tensor(symbols), limits,
                   symbol_of.to(device), ids.to(device), joining_pieces(codec).to(device), width)

    def _next(self, state: Tensor, symbol: Tensor) -> Tensor:
        """The node after writing a piece of term symbol `symbol` (-1: none) at node `state` (-1: none), same
        shape: the term under way goes on, or a term starts from the root, or none."""
        root = self.roots[self.sentence].view(-1, *[1] * (state.dim() - 1))
        on = self.children[state.clamp(min=0), symbol.clamp(min=0)]
        on = torch.where((state >= 0) & (symbol >= 0), on, -1)
        fresh = torch.where(symbol >= 0, self.children[root, symbol.clamp(min=0)], -1)
        return torch.where(on >= 0, on, fresh)

    def _ending(self, state: Tensor, tokens: Tensor) -> Tensor:
        """The bits of the terms that `tokens` complete after node `state`: it ends them, not gluing letters on."""
        return torch.where((state >= 0) & ~self.joins[tokens], self.bit[state.clamp(min=0)], 0)

    def _toward(self, nodes: Tensor, left: Tensor, room: Tensor) -> Tensor:
        """Whether `nodes` lead to a term of the bits `left` within `room` more pieces (all broadcast alike):
        a term that would be cut at the output limit counts as no progress."""
        at = nodes.clamp(min=0)
        return (nodes >= 0) & ((self.below[at] & left) != 0) & (self.need[at] <= room)

    def _left(self, rows: Tensor) -> Tensor:
        """(n,) the bits of the terms rows `rows` have still to write, the one ending at their node aside."""
        state = self.state[rows]
        written = self.written[rows] | torch.where(state >= 0, self.bit[state.clamp(min=0)], 0)
        return self.wanted[rows // self.width] & ~written

    def mask(self, rows: Tensor, log_probs: Tensor) -> None:
        """Set `<eos>` to -inf, in place, in the log-probabilities (n, V) of rows `rows` (n,) that have terms
        left to write within their output limit (unless `release`d)."""
        left = self._left(rows)  # (n,)
        sentence = rows // self.width
        each = (left[:, None] >> torch.arange(self.lengths.shape[1], device=rows.device)) & 1  # (n, K)
        need = (each * self.lengths[sentence]).sum(dim=1)  # (n,) pieces the terms left take at the fewest
        fits = need <= self.limits[sentence] - self.steps
        log_probs[:, EOS_ID].masked_fill_((left != 0) & fits & ~self.released[sentence], float("-inf"))

    def release(self, sentences: Tensor) -> None:
        """Let the rows of `sentences` (B,) end without their terms: each has a row that ended with every span
        written, and the result is the best of those, so a row held from `<eos>` would only cost steps."""
        self.released |= sentences

    def best_symbols(self, rows: Tensor, log_probs: Tensor) -> tuple[Tensor, Tensor]:
        """Each row's likeliest piece of `log_probs` (n, V) that goes on with its term under way or, if none,
        starts one it has still to write: its log-probability (n,) (-inf: none) and its token (n,)."""
        left = self._left(rows)[:, None]  # (n, 1)
        state, root = self.state[rows], self.roots[rows // self.width]  # (n,) each
        symbols = torch.arange(len(self.ids), device=rows.device)  # (A,)
        room = self.limits[rows // self.width, None] - self.steps - 1  # (n, 1) tokens left after this one

        def toward(nodes: Tensor) -> Tensor:  # (n, A) nodes -> leads to a term left, which fits
            return self._toward(nodes, left, room)

        on = toward(torch.where((state >= 0)[:, None], self.children[state.clamp(min=0)][:, symbols], -1))  # (n, A)
        # The term under way goes on where it can (else a row would restart it at its likelier first piece).
        useful = torch.where(on.any(dim=1, keepdim=True), on, toward(self.children[root][:, symbols]))
        best, at = log_probs[:, self.ids].masked_fill(~useful, float("-inf")).max(dim=1)  # (n,)
        return best, self.ids[at]

    def banks(self, tokens: Tensor) -> Tensor:
        """How far each row's candidate `tokens` (N, k) take it through its sentence's terms (N, k), from 0 to
        2 `most`: two for each piece of a term written, less one while a term is under way."""
        state = self.state[:, None]  # (N, 1)
        wanted = self.wanted[self.sentence, None]  # (N, 1)
        ended = self._ending(state, tokens) & wanted & ~self.written[:, None]  # (N, k) terms completed, new
        done = self.done[:, None] + torch.where(ended != 0, self.depth[state.clamp(min=0)], 0)  # (N, k)
        after = self._next(state.expand_as(tokens), self.symbol_of[tokens])  # (N, k)
        left = wanted & ~(self.written[:, None] | ended)
        room = self.limits[self.sentence, None] - self.steps - 1  # (N, 1)
        under_way = torch.where(self._toward(after, left, room), self.depth[after.clamp(min=0)], 0)  # (N, k)
        return torch.minimum(2 * (done + under_way) - (under_way > 0).long(), 2 * self.symbols[self.sentence, None])

    def wrote_all(self) -> Tensor:
        """(N,) each row has written every term of its sentence, which has some (the last may end the row)."""
        wanted = self.wanted[self.sentence]
        written = self.written | torch.where(self.state >= 0, self.bit[self.state.clamp(min=0)], 0)
        return (wanted != 0) & ((written & wanted) == wanted)

    def advance(self, origin: Tensor, tokens: Tensor) -> None:
        """Each row (N,) now extends row `origin` (N,) (within its sentence) with `tokens` (N,)."""
        before = self.state[origin]
        ended = self._ending(before, tokens) & self.wanted[self.sentence] & ~self.written[origin]
        self.done = self.done[origin] + torch.where(ended != 0, self.depth[before.clamp(min=0)], 0)
        self.written = self.written[origin] | ended
        self.state = self._next(before, self.symbol_of[tokens])
        self.steps += 1


@functools.cache
def joining_pieces(codec: Codec) -> Tensor:
    """(V,) the pieces of `codec` that go on with the word before them: a subword piece without the word-start
    mark whose first character is a letter or digit (a word vocabulary's pieces are words: none)."""
    pieces = [codec.piece(i) for i in range(len(codec))]
    if not any(p.startswith(WORD_START) for p in pieces):
        return torch.zeros(len(pieces), dtype=torch.bool)
    return torch.tensor([not p.startswith(WORD_START) and p[:1].isalnum() for p in pieces])
