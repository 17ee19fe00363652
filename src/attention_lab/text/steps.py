"""The text steps around the model, in one ordered list (`STEPS`; design.md: The text steps): each sentence of a
line is read by every step in order, as the corpus would write it, then searched, and its translation written
back by every step in reverse order, each giving back in the French what it took out of the English.
"""

from __future__ import annotations

from collections.abc import Sequence

from attention_lab.data.cleaning import clean
from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.tokenizer import Codec
from attention_lab.text.casing import Truecase
from attention_lab.text.end_mark import EndMark, EndRun
from attention_lab.text.glossary import Glossary
from attention_lab.text.normalize import Normalize
from attention_lab.text.protect import Protect, Unknowns
from attention_lab.text.quotes import Typography, guillemets
from attention_lab.text.record import Context, Draft, Sentence, Step
from attention_lab.text.repeats import Repair
from attention_lab.text.sentences import split
from attention_lab.text.terms import Terms

STEPS: tuple[Step, ...] = (Terms(), Truecase(), EndRun(), Typography(), Normalize(), Protect(), EndMark(), Repair(),
                           Unknowns())


def read_lines(lines: Sequence[str], src: Codec, split_sentences: bool = True,
               words: CorpusWords | None = None, placeholders: bool = True,
               glossary: Glossary | None = None) -> list[Sentence]:
    """The sentences of `lines` in order (each line whole without `split_sentences`), each read by every
    step as the model reads it with the source vocabulary `src` and the training text's `words`; unknown
    names as placeholders where `placeholders`; the `glossary`'s terms found (text/glossary.py)."""
    context, found = Context(src, words=words, placeholders=placeholders, glossary=glossary), []
    for i, line in enumerate(lines):
        # Cleaned first: `5<no-break space>€` is `5 €`, and the segmenter never sees a space it would cut
        # inside. Quotes paired over the line: one may hold several (`"Hi. How are you?" he asked.`).
        line, before = guillemets(clean(line)), ""
        for typed in split(line) if split_sentences else [line]:
            # Typed in small letters right after a quote's end (`"Where?" she asked.`): it goes on.
            sentence = Sentence(i, typed, {"sentences": before.endswith("»") and typed[:1].islower()})
            for step in STEPS:
                sentence = step.read(sentence, context)
            found.append(sentence)
            before = typed
    return found


def write(draft: Draft, sentence: Sentence, context: Context) -> Draft:
    """The translation `draft` of `sentence` written back by every step, in reverse order."""
    for step in reversed(STEPS):
        draft = step.write(draft, sentence, context)
    return draft


def written_line(texts: Sequence[str]) -> str:
    """A line's translation from its sentences' (`texts`), joined by a space."""
    return " ".join(text for text in texts if text)
