"""Names the model garbled, written back as typed: `Where is Diego?` came back as `Où est Dégo ?`, `I know
Jones is in.` as `Je sais que jones est là.`

The corpus's people are nearly all Tom and Mary, and renamed training pairs (data/name_augmentation.py)
taught the model to copy other names, but not always whole: it writes a name the corpus lacks in pieces,
and a piece goes astray. Where a name of the source is missing from the translation, the output word its
pieces attend to most (text/symbols.py) is written as the name when that word
- is no word of the French the model trained on (data/corpus_words.py): `Russie` for `Russia`, `juin` for
  `June` and `Américains` for `Americans` are translations, and stay;
- begins with the name's letter, and is like it (difflib's ratio, at least `LIKENESS`): `Dégo` is
  `Diego`, but an output word in a name's place that is not like it is left to the model.
A name is a capitalised word of the source (`Diego`, `Diego's`); the first word of a sentence only when
it is no word of the English the model trained on (`Diego left.`, not `Turn left.`). A word's elision and
punctuation stay (`d'Dégo,` -> `d'Diego,`). Measured in docs/trust.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

import numpy as np

from attention_lab.data.corpus_words import CorpusWords
from attention_lab.data.tokenizer import Codec
from attention_lab.text.casing import OPENERS
from attention_lab.text.symbols import CLOSING, output_word_of

LIKENESS = 0.5
_OUTPUT_WORD = re.compile(r"(?P<head>(?:[^\W\d_]')?)(?P<core>[^\W\d_]+)(?P<tail>\W*)")  # `d'Dégo,`
_MARKS = OPENERS + CLOSING + "”’"  # around a source word: `"Diego,"`, `(Diego)`


def _name(word: str) -> str | None:
    core = re.sub(r"['’]s$", "", word.strip(_MARKS))
    return core if core.isalpha() and core[:1].isupper() and core[1:].islower() else None


def names_written(source: str, pieces: Sequence[str], attention: np.ndarray, src: Codec, tgt: Codec,
                  words: CorpusWords) -> dict[int, str]:
    """The words of `tgt.join(pieces)` (split at spaces) to write as a name of `source`, by index.
    attention (T, S): a row per output piece (and `<eos>` when emitted), a column per source piece and
    one for `<eos>`."""
    typed = source.split()
    output = [_OUTPUT_WORD.fullmatch(word) for word in tgt.join(pieces).split()]
    written = {match["core"] for match in output if match}
    names = {k: name for k, name in enumerate(map(_name, typed))
             if name is not None and name not in written and not (k == 0 and name.lower() in words.source)}
    word_of = output_word_of(source, pieces, attention, src, tgt.join) if names and output else None
    if word_of is None:
        return {}
    copied = {word.strip(_MARKS) for word in typed}  # an output word that is a source word was copied
    fixes: dict[int, str] = {}
    for k, name in names.items():
        j = word_of(k)
        match = output[j]
        if match is None or j in fixes or match["core"] in copied:
            continue
        garbled = match["core"]
        if garbled.lower() in words.target or garbled[0].lower() != name[0].lower() or \
                SequenceMatcher(None, garbled.lower(), name.lower()).ratio() < LIKENESS:
            continue
        fixes[j] = match["head"] + name + match["tail"]
    return fixes


def renamed(text: str, fixes: dict[int, str]) -> str:
    """`text` with its words at the indices of `fixes` (`names_written`) replaced."""
    if not fixes:
        return text
    return " ".join(fixes.get(j, word) for j, word in enumerate(text.split()))
