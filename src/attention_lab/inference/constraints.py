"""Several constraints on a search as one (`Constraints`): the source's numbers and names (number_constraint.py)
and a glossary's terms (term_constraint.py). Shapes as in `search.py`; P counts the constraints."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from attention_lab.inference.number_constraint import NumberConstraint
from attention_lab.inference.term_constraint import TermConstraint


class Constraints:
    """Several constraints searched as one (the source's numbers and names, a glossary's terms): every mask
    applies, a row's banks add up, each offers its best symbol, and a row wrote all when it wrote each's spans."""

    def __init__(self, parts: Sequence) -> None:
        self.parts = list(parts)
        self.most = sum(p.most for p in self.parts)

    @staticmethod
    def of(*parts):
        """The constraints of `parts` that are not None: None, one, or their union."""
        kept = [p for p in parts if p is not None]
        return None if not kept else kept[0] if len(kept) == 1 else Constraints(kept)

    def mask(self, rows: Tensor, log_probs: Tensor) -> None:
        for part in self.parts:
            part.mask(rows, log_probs)

    def best_symbols(self, rows: Tensor, log_probs: Tensor) -> tuple[Tensor, Tensor]:
        """(n, P) each: a best symbol of each part."""
        best, tokens = zip(*(part.best_symbols(rows, log_probs) for part in self.parts))
        return torch.stack(best, dim=1), torch.stack(tokens, dim=1)

    def banks(self, tokens: Tensor) -> Tensor:
        return sum(part.banks(tokens) for part in self.parts)

    def wrote_all(self) -> Tensor:
        """(N,) every part's spans written, in a sentence that has some."""
        spans = torch.stack([p.spans[p.sentence] for p in self.parts])  # (P, N)
        wrote = torch.stack([p.wrote_all() for p in self.parts])  # (P, N)
        return spans.any(dim=0) & (wrote | ~spans).all(dim=0)

    def release(self, sentences: Tensor) -> None:
        for part in self.parts:
            part.release(sentences)

    def advance(self, origin: Tensor, tokens: Tensor) -> None:
        for part in self.parts:
            part.advance(origin, tokens)


SearchConstraint = NumberConstraint | TermConstraint | Constraints  # what a search takes as `constraints`
