"""Protect: what the model cannot read or must not change, kept from it and given back in the translation.
Read: what the model cannot read and the text to keep as typed are carried around it (text/symbols.py), and a
sentence left with punctuation alone is carried whole; the search copies the source's digit groups whole
(inference/number_constraint.py). Write: garbled names as typed (text/names.py), ordinals and numbers in French
form (text/number_forms.py), then the carried runs back in place, which no later step changes (`Draft.kept`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import partial

import numpy as np

from attention_lab.data.special_tokens import UNK
from attention_lab.text.casing import Truecase
from attention_lab.text.names import codes, names_back, names_written, placeheld, renamed
from attention_lab.text.number_forms import french_numbers, french_ordinals
from attention_lab.text.quotes import outside_quotes
from attention_lab.text.record import Context, Draft, Sentence, Step
from attention_lab.text.symbols import Carried, put_back, take_out
from attention_lab.text.terms import terms_of


def as_written(output: str, source: str, names: dict[int, str]) -> str:
    """The model's `output` for `source` with the garbled names `names` written as typed, its ordinals as
    French abbreviates them and its numbers in French form."""
    return french_numbers(french_ordinals(renamed(output, names)), source)


class Protect:
    name = "protect"

    def read(self, sentence: Sentence, context: Context) -> Sentence:
        # Names first: one the model cannot read a letter of (`Łukasz`) is then held whole.
        held = context.words and context.placeholders
        defined = context.glossary.words if context.glossary else frozenset()
        # A line typed in small letters or Title Case: some of its capitals are the casing's (text/casing.py).
        typed = sentence.record.get(Truecase.name)
        text, names = (placeheld(sentence.text, context.words, defined, typed == "lower", typed == "title",
                                 typed == "upper") if held
                       else (sentence.text, ()))
        text, carried = take_out(text, outside_quotes(context.src.reads),
                                 codes(context.words) if held else lambda _: ())
        if not any(char.isalnum() for char in text):
            text, carried, names = "", (Carried(sentence.text, None, False, False),), ()
        return sentence.read(self, text, (carried, names))

    def write(self, draft: Draft, sentence: Sentence, context: Context) -> Draft:
        (carried, placeholders), source, tgt = sentence.record[self.name], sentence.text, context.tgt
        names = (names_written(source, draft.pieces, draft.attention, context.src, tgt, context.words)
                 if context.words and draft.pieces else {})
        text = put_back(carried, source, draft.pieces, draft.attention, context.src, tgt,
                        partial(as_written, source=source, names=names))
        french = context.words.target if context.words else frozenset()
        text = names_back(unglued(text, placeholders, french, sentence.text), placeholders)
        # The glossary's terms as given: no later step changes them (a line in capitals keeps them as the user wrote).
        return replace(draft, text=text, kept=tuple(run.text for run in carried),
                       terms=tuple(term for term in terms_of(sentence) if term in text))


def leaked(text: str, placeholder: str, french: frozenset[str], source: str) -> list[re.Match]:
    """The words of `text` that begin with `placeholder`, any case, alone or glued to letters or digits (`Tom`,
    `TomIIIIIII`, `Tomok`), and are neither a French word of the corpus (`french`, in small letters: `tomate`)
    nor a word of `source` (`Johnny`): where the model wrote the placeholder."""
    typed = {word.lower() for word in re.findall(r"[^\W_]+", source)}
    return [match for match in re.finditer(rf"(?<![\w-])(?i:{placeholder})[^\W_]*", text)
            if match.group().lower() not in french and match.group().lower() not in typed]


def unglued(text: str, pairs: tuple[tuple[str, str], ...], french: frozenset[str], source: str) -> str:
    """`text` with each placeholder of `pairs` the model glued to other letters (`leaked`: `TomIIIIIII`, `Tomok`)
    set apart from them (`Tom IIIIIII`), so that `names_back` writes it as its name: French writes no letter onto
    a name, and the letters are the model's own (`Henry VIII` read `Tom VIII`, `lol ok` read `Tom ok`)."""
    for placeholder, _ in pairs:
        for match in reversed(leaked(text, placeholder, french, source)):
            if len(match.group()) > len(placeholder):
                rest = match.group()[len(placeholder) :]
                text = text[: match.start()] + f"{placeholder} {rest}" + text[match.end() :]
    return text


def placeholders(sentence: Sentence) -> list[str]:
    """The placeholders `sentence` was read with (text/names.py): spans the search must write."""
    return [placeholder for placeholder, _ in sentence.record[Protect.name][1]]


def replace_unknown(pieces: list[str], attention: np.ndarray, surface: list[str]) -> list[str]:
    """Each output `<unk>` becomes the source word it attends to most (Luong et al. 2015, "Addressing the
    Rare Word Problem in NMT", §3, with attention as the alignment; Jean et al. 2015 do the same): names and
    numbers are copied instead of lost. attention (T, S) has a column per source piece, the last for
    `<eos>`, which is never copied."""
    out = []
    for t, piece in enumerate(pieces):
        if piece == UNK and surface:
            piece = surface[int(np.argmax(attention[t, : len(surface)]))]
        out.append(piece)
    return out


class Unknowns(Step):
    """Writes a word vocabulary's `<unk>` outputs as source words (`replace_unknown`). Reads nothing."""

    name = "unknowns"

    def write(self, draft: Draft, sentence: Sentence, context: Context) -> Draft:
        if not context.tgt.emits_unk:
            return draft
        return replace(draft, pieces=replace_unknown(draft.pieces, draft.attention, context.src.surface(sentence.text)))
