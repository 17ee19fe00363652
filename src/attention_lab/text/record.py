"""What the text steps (text/steps.py) pass along: a sentence as it is read (`Sentence`, with the record of
what each step took out of it) and its translation as it is written back (`Draft`), and the `Step` itself."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.tokenizer import Codec
from attention_lab.text.glossary import Glossary


@dataclass(frozen=True)
class Sentence:
    line: int  # its line's index in the call
    text: str  # what the model reads once every step so far has read it
    record: Mapping[str, Any] = field(default_factory=dict)  # what each step took out, by the step's name

    def read(self, step: Step, text: str, taken: Any = None) -> Sentence:
        """This sentence read by `step`: now `text`, with what it took out recorded under its name."""
        return replace(self, text=text, record={**self.record, step.name: taken})


@dataclass(frozen=True)
class Draft:
    """A sentence's translation as the steps write it back, from the search's output pieces."""

    pieces: list[str]  # output pieces, `<eos>` excluded
    attention: np.ndarray  # (T, S): a row per output piece (and `<eos>` when emitted), a column per source piece
    rows: list[int]  # the search's steps whose rows are kept (a repair may drop pieces)
    text: str = ""  # the text written so far
    kept: tuple[str, ...] = ()  # spans of `text` that no later step may change (what Protect carried)
    terms: tuple[str, ...] = ()  # a glossary's terms `text` writes, which no later step may change either

    def outside_kept(self, change: Callable[[str], str]) -> Draft:
        """This draft with `change` made to its text around its kept spans and terms, which stay as they are."""
        spans = set(self.kept) | set(self.terms)
        if not spans:
            return replace(self, text=change(self.text))
        parts = re.split("(" + "|".join(map(re.escape, sorted(spans, key=len, reverse=True))) + ")", self.text)
        return replace(self, text="".join(part if k % 2 else change(part) for k, part in enumerate(parts)))


@dataclass(frozen=True)
class Context:
    """What the steps read and write with: the model's vocabularies and the training text's words."""

    src: Codec
    tgt: Codec | None = None  # reading needs only the source's
    words: CorpusWords | None = None
    drop_repeats: bool = True
    placeholders: bool = True  # unknown names read as placeholders (text/names.py), for a search that writes them
    glossary: Glossary | None = None  # the user's terms (text/glossary.py)


class Step(Protocol):
    """A step of text/steps.py; one that reads or writes nothing keeps these, which change nothing."""

    name: str

    def read(self, sentence: Sentence, context: Context) -> Sentence:
        """The English `sentence` as the model should read it, with what was taken out recorded."""
        return sentence

    def write(self, draft: Draft, sentence: Sentence, context: Context) -> Draft:
        """The French `draft` with what this step took out of `sentence` given back."""
        return draft
