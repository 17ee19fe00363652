"""Normalize: a sentence's words written as the corpus writes them (measured in docs/trust.md): contractions,
American spellings and shorthand by one lexicon (`dont` as `don't`, `colour` as `color`, `&` as `and`:
text/lexicon.py), amounts with the name of their currency or unit (`$20` as `20 dollars`, `5 km` as `5 kilometers`:
text/amounts.py) and times with a colon (`at 10.30` as `at 10:30`, text/number_forms.py). The translation keeps
the French the model writes for them: nothing to give back."""

from __future__ import annotations

from attention_lab.text.amounts import with_currency_names, with_unit_names
from attention_lab.text.lexicon import read_words
from attention_lab.text.number_forms import read_times
from attention_lab.text.record import Context, Sentence, Step


def as_the_corpus_writes(sentence: str, recased: bool = False) -> str:
    """`sentence` with its contractions, spellings, shorthand, amounts, units and times as the corpus writes
    them; `recased`: typed in capitals or Title Case and sentence-cased (text/lexicon.py)."""
    return read_times(with_unit_names(with_currency_names(read_words(sentence, recased))))


class Normalize(Step):
    name = "normalize"

    def read(self, sentence: Sentence, context: Context) -> Sentence:
        recased = sentence.record["truecase"] in ("upper", "title")
        return sentence.read(self, as_the_corpus_writes(sentence.text, recased))
