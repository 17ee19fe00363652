"""What the model reads of a line: its sentences, each cleaned, in the corpus's casing and its ways of
writing, without the characters the model cannot read and the quotes that pair up, and ended with a
mark; with what each translation needs to give back the rest (the casing, a run of end marks, the
quotes, the carried characters).

The corpus writes every line one way: one sentence, sentence-cased, ended with `.`, `?` or `!`,
contractions with their apostrophe, American spellings, words for shorthand, amounts with the currency's
name, units named, times with a colon. A sentence typed otherwise is read as the corpus would write it;
each reading is a module of its own, measured in docs/trust.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from attention_lab.data.cleaning import clean
from attention_lab.data.tokenizer import Codec
from attention_lab.inference.casing import Casing, casing, sentence_cased
from attention_lab.inference.contractions import with_apostrophes
from attention_lab.inference.currency import with_currency_names
from attention_lab.inference.end_mark import read_run, with_end_mark, with_run
from attention_lab.inference.number_forms import read_times
from attention_lab.inference.quotes import Quotes, edges, guillemets, outside_quotes
from attention_lab.inference.sentences import split
from attention_lab.inference.shorthand import spelt_out
from attention_lab.inference.spelling import american
from attention_lab.inference.symbols import Carried, take_out
from attention_lab.inference.units import with_unit_names


@dataclass(frozen=True)
class Sentence:
    line: int  # its line's index in the call
    text: str  # what the model reads: the sentence without the characters it cannot read, sentence-cased, ended
    carried: tuple[Carried, ...]
    casing: Casing  # the sentence's own (inference/casing.py), given back to its translation
    run: str = ""  # the run of end marks it was typed with (`?!`, inference/end_mark.py), given back too
    quotes: Quotes = Quotes()  # where its guillemets go back that are not carried (inference/quotes.py)


def as_the_corpus_writes(sentence: str, recased: bool = False) -> str:
    """`sentence` with contractions, spellings, shorthand, amounts, units and times written as the corpus
    writes them: `dont` as `don't` (inference/contractions.py; `recased`: typed in capitals or Title Case),
    `colour` as `color` (inference/spelling.py), `&` as `and` (inference/shorthand.py), `$20` as `20
    dollars` (inference/currency.py), `5 km` as `5 kilometers` (inference/units.py), `at 10.30` as `at
    10:30` (inference/number_forms.py)."""
    return read_times(with_unit_names(with_currency_names(spelt_out(american(with_apostrophes(sentence, recased))))))


def read_lines(lines: Sequence[str], src: Codec, split_sentences: bool = True) -> list[Sentence]:
    """The sentences of `lines` in order (each line whole without `split_sentences`), as the model
    reads them with the source vocabulary `src`."""
    reads = outside_quotes(src.reads)
    found = []
    for i, line in enumerate(lines):
        # Cleaned first: `5<no-break space>€` is `5 €`, and the segmenter never sees a space it would
        # cut inside (sentencex panicked on `Plan B<no-break space>.`). Quotes paired over the line:
        # one may hold several sentences (`"Hi. How are you?" he asked.`).
        line, before = guillemets(clean(line)), ""
        for sentence in split(line) if split_sentences else [line]:
            # Cased first: a capital the vocabulary lacks (`L` of `LIKE`) is no character to carry.
            case = casing(sentence)
            cased = sentence if case == "as written" else sentence_cased(sentence, src.pieces,
                                                                         keep_capitals=case == "lower")
            if case == "upper" and cased == sentence:
                case = "as written"  # acronyms the model knows in capitals alone (`OK.`): no shouting
            cased, run = read_run(cased)
            cased, quotes = edges(cased, continues=before.endswith("»") and sentence[:1].islower())
            text, carried = take_out(as_the_corpus_writes(cased, case in ("upper", "title")), reads)
            if not any(char.isalnum() for char in text):
                # Punctuation alone is no sentence to translate (`www.example.com.` left `.`, and the
                # model wrote `Entre.` after it): the sentence goes to the output as written.
                text, carried, run = "", (Carried(with_run(cased, run), None, False, False),), ""
            found.append(Sentence(i, with_end_mark(text), carried, case, run, quotes))
            before = sentence
    return found
