"""The words of the training text, each side's, in small letters: what the model read and wrote in
training. The translator tells by them a word the model garbled from one it learnt (text/names.py):
`Dégo` for `Diego` is no word of the French it trained on, `Russie` for `Russia` is.

Kept with the tokenizer (data/tokenizer.py), so a model file carries them; a tokenizer built before
them has none, and the translator then does without.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

WORD = re.compile(r"[^\W\d_]+")  # a run of letters: `aujourd'hui` is two, `Jean-Luc` two


@dataclass(frozen=True)
class CorpusWords:
    source: frozenset[str]
    target: frozenset[str]

    @classmethod
    def of(cls, sources: Iterable[str], targets: Iterable[str]) -> CorpusWords:
        return cls(*(frozenset(word.lower() for text in side for word in WORD.findall(text))
                     for side in (sources, targets)))

    def payload(self) -> dict:
        return {"source": sorted(self.source), "target": sorted(self.target)}

    @classmethod
    def from_payload(cls, payload: dict) -> CorpusWords:
        return cls(frozenset(payload["source"]), frozenset(payload["target"]))
