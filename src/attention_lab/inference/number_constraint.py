"""Numbers and names copied, never made up nor left out: a constraint on the spans a search must write
(lexically constrained decoding; design.md: The search copies numbers; docs/search.md: Numbers whole and in order).

A translation writes digits only as its source's numbers (number_spans.py), each whole and in the source's
order: a number starts only once the one before it is complete, each run of digit pieces spells the next number
with what French may write between its groups (`9.99` as `9,99` or `9.99`, never `99.9`; `100,000` as
`100 000`, never `10 000` then `0`), and `<eos>` waits until every number and every placeholder (a name the
corpus lacks, text/names.py) is written. The machinery is lexically constrained beam search's: a row inside a
number may write only its next piece, as grid beam search's open hypotheses continue their constraint (Hokamp &
Liu 2017, "Lexically Constrained Decoding for Sequence Generation Using Grid Beam Search"), and each row holds a
node of its sentence's automaton, stepped for the whole batch at once, as vectorized dynamic beam allocation
holds a node of its constraints' trie (Hu et al. 2019, "Improved Lexically Constrained Decoding for Translation
and Monolingual Rewriting"). The order is this project's choice, not theirs (their constraints may be met in any
order): the automaton writes a sentence's numbers one after another, because French keeps them in the source's
order (of the training pairs whose French writes their source's digit groups, every one writes them in the
source's order), and a date or time French would reorder is better written as typed than guessed. Every
sentence's numbers are ordered: a number the order would not suit (a date typed `3/4/2020`, a phone number, a
version) is carried whole by the reading (text/symbols.py) and never searched. A placeholder's piece is a word
of its own, in any place and written again if the model likes: names stay unordered constraints, as Post & Vilar
2018's are ("Fast Lexically Constrained Decoding with Dynamic Beam Allocation").

Each hypothesis row holds its node in its sentence's automaton (number_spans.Automaton) and the placeholders it
has written (bits). A beam search keeps the rows that wrote more of the spans beside likelier ones that wrote
less (`banks`, and search_steps.allocated: Post & Vilar's dynamic beam allocation), with each row's best digit or
placeholder a candidate (`best_symbols`): a model that rarely writes a span's first piece still finds a
translation that writes it. It needs a vocabulary whose digit pieces are single digits (SentencePiece with
`split_digits`); a word vocabulary, whose numbers are whole words, is searched without it. Shapes as in
`search.py`; U counts the automata's nodes, A the alphabet (number_automaton.ALPHABET).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from attention_lab.data.special_tokens import EOS_ID
from attention_lab.data.tokenizer import Codec
from attention_lab.inference.number_automaton import GLUED, JOINS, SEPARATE, WORD, Automaton, piece_symbols, writable
from attention_lab.inference.number_spans import WORD_START, number_spans
from attention_lab.text.names import PLACEHOLDERS


class NumberConstraint:
    def __init__(self, children: Tensor, need: Tensor, bank: Tensor, final: Tensor, roots: Tensor, wanted: Tensor,
                 digits: Tensor, limits: Tensor, symbol_of: Tensor, name_bit: Tensor, width: int) -> None:
        """children (U, A): the node after each symbol, -1 where it may not be written; need (U,): the fewest
        pieces from a node to the end of the number under way; bank (U,): a node's progress through its
        sentence's numbers (twice the digits written, less one inside a number); final (U,): every number
        written; roots (B,): each sentence's first node; wanted (B,): the bits of its placeholders; digits (B,):
        the digits of its numbers; limits (B,): its output tokens at most, so that no number is cut off
        unfinished; symbol_of (V,): each token's symbol (-1: digits mixed with other characters, never
        written); name_bit (V,): a placeholder's bit, 0 for other tokens; `width` rows per sentence."""
        self.children, self.need, self.bank, self.final = children, need, bank, final
        self.roots, self.wanted, self.limits, self.width = roots, wanted, limits, width
        self.symbol_of, self.name_bit = symbol_of, name_bit
        self.digit_ids = ((symbol_of >= GLUED) & (symbol_of < SEPARATE) | (name_bit != 0)).nonzero()[:, 0]  # (J,)
        # Digits and separators; any other piece may come where a word may (a letter's node aside).
        self.symbol_ids = (symbol_of >= GLUED).nonzero()[:, 0]
        self.mixed_ids = (symbol_of < 0).nonzero()[:, 0]
        self.join_ids = (symbol_of == JOINS).nonzero()[:, 0]  # pieces that go on with the word before (`er`)
        self.spans = (digits > 0) | (wanted != 0)  # (B,) the sentence has spans to write
        self.most = int((digits + count_bits(wanted)).max())
        self.sentence = torch.arange(len(roots) * width, device=roots.device) // width  # (N,) each row's
        self.state = roots[self.sentence]  # (N,) each row's node
        self.written = torch.zeros_like(self.state)  # (N,) the bits of the placeholders each row has written
        self.steps = 0  # tokens each row has written

    @classmethod
    def build(cls, sources: Sequence[str], codec: Codec, limits: Tensor, width: int,
              names: Sequence[Sequence[str]] = ()) -> NumberConstraint | None:
        """The constraint for a batch of `sources` whose outputs have at most `limits` (B,) tokens,
        `width` rows each, and that must also write the placeholders `names` (each sentence's); None for a
        vocabulary whose numbers are not spelled digit by digit."""
        symbol_of = piece_symbols(codec)
        if symbol_of is None:
            return None
        automaton = Automaton()
        present = frozenset(symbol_of.tolist())
        spans = [writable(number_spans(source), present) for source in sources]
        roots = [automaton.add(sentence) for sentence in spans]
        wanted = [sum(1 << PLACEHOLDERS.index(name) for name in set(names[k] if names else ()))
                  for k in range(len(sources))]
        digits = [sum(len(group) for span in sentence for group in span.groups) for sentence in spans]
        pieces = [codec.piece(i) for i in range(len(codec))]
        name_bit = [1 << PLACEHOLDERS.index(p[1:]) if p[:1] == WORD_START and p[1:] in PLACEHOLDERS else 0
                    for p in pieces]
        device = limits.device
        tensors = (automaton.children, automaton.need, automaton.bank, automaton.final, roots, wanted, digits)
        return cls(*(torch.tensor(t, device=device) for t in tensors), limits, symbol_of.to(device),
                   torch.tensor(name_bit, device=device), width)

    @staticmethod
    def takes_names(codec: Codec) -> bool:
        """Whether `codec`'s vocabulary spells digits one by one and has each placeholder as one piece."""
        pieces = {codec.piece(i) for i in range(len(codec))}
        return piece_symbols(codec) is not None and all(WORD_START + name in pieces for name in PLACEHOLDERS)

    def _names_left(self, rows: Tensor) -> Tensor:
        """(n,) the rows `rows` have placeholders left to write."""
        wanted = self.wanted[rows // self.width]
        return (self.written[rows] & wanted) != wanted

    def mask(self, rows: Tensor, log_probs: Tensor) -> None:
        """Set to -inf, in place, the log-probabilities (n, V) of the tokens rows `rows` (n,) may not write."""
        state = self.state[rows]  # (n,)
        after = self.children[state]  # (n, A)
        room = (self.limits[rows // self.width] - self.steps - 1)[:, None]  # (n, 1) tokens left after this one
        allowed = (after >= 0) & (self.need[after.clamp(min=0)] <= room)  # (n, A): a number started fits
        symbols = log_probs[:, self.symbol_ids].masked_fill(~allowed[:, self.symbol_of[self.symbol_ids]],
                                                            float("-inf"))  # (n, J')
        # Only columns and rows are touched: no (n, V) mask is made at every step.
        log_probs.masked_fill_(~allowed[:, WORD, None], float("-inf"))  # inside a number: its pieces only
        log_probs[:, self.symbol_ids] = symbols
        log_probs[:, self.mixed_ids] = float("-inf")
        # Letters glued to a number typed apart from them (`3er`): only the few rows right after such a number.
        apart = (allowed[:, WORD] & ~allowed[:, JOINS]).nonzero()[:, 0]  # (a,)
        log_probs[apart[:, None], self.join_ids] = float("-inf")
        log_probs[:, EOS_ID].masked_fill_(~self.final[state] | self._names_left(rows), float("-inf"))

    def best_symbols(self, rows: Tensor, log_probs: Tensor) -> tuple[Tensor, Tensor]:
        """Each of rows `rows`' (n,) likeliest digit or placeholder piece of `log_probs` (n, V) once masked: its
        log-probability (n,) (-inf: none may be written) and its token (n,)."""
        best, at = log_probs[:, self.digit_ids].max(dim=1)  # (n,)
        return best, self.digit_ids[at]

    def _after(self, state: Tensor, tokens: Tensor) -> Tensor:
        """The nodes after writing `tokens` at nodes `state` (broadcast alike); a token that may not be written
        (a finished row's `<pad>`, a candidate at -inf) leaves the node as it was."""
        after = self.children[state, self.symbol_of[tokens].clamp(min=0)]
        return torch.where(after >= 0, after, state)

    def banks(self, tokens: Tensor) -> Tensor:
        """How far each row's candidate `tokens` (N, k) take it through its sentence's spans (N, k), from 0 to
        2 `most`: two for each digit of its numbers written, less one inside a number, and two for each
        placeholder written (again adds none)."""
        after = self._after(self.state[:, None], tokens)  # (N, k)
        names = (self.written[:, None] | self.name_bit[tokens]) & self.wanted[self.sentence, None]  # (N, k)
        return self.bank[after] + 2 * count_bits(names)

    def wrote_all(self) -> Tensor:
        """(N,) each row has written every span of its sentence, which has some (the last may end the row)."""
        rows = torch.arange(len(self.state), device=self.state.device)
        return self.spans[self.sentence] & self.final[self.state] & ~self._names_left(rows)

    def release(self, sentences: Tensor) -> None:
        """Nothing: a row never ends without its source's numbers, even once another row of its sentence wrote
        them all (the glossary's terms are let go: term_constraint.py)."""

    def advance(self, origin: Tensor, tokens: Tensor) -> None:
        """Each row (N,) now extends row `origin` (N,) (within its sentence) with `tokens` (N,)."""
        self.state = self._after(self.state[origin], tokens)
        self.written = self.written[origin] | self.name_bit[tokens]
        self.steps += 1


def count_bits(bits: Tensor) -> Tensor:
    """The placeholders' bits set in each of `bits` (any shape)."""
    return sum((bits >> k) & 1 for k in range(len(PLACEHOLDERS)))
