"""British spellings (`colour`, `favourite`, `realise`, `travelled`) read as the corpus writes them, the
American way (`color`, `favorite`, `realize`, `traveled`).

The corpus's English is American: of the 1,730 British spellings breame lists with their American forms,
the English side writes 215 pairs, 2,209 times the American form and 74 times the British one. The model
barely saw the British forms and garbled them, with the words around them: `What's your favourite colour?`
came back as `Quelle est votre favrifier ?`, `The neighbours are very noisy.` as `Les bébés ne sont pas très
bruyants.` Read the American way they come back right (`Quelle est ta couleur préférée ?`). A form the
corpus writes at least as often as its American one (`KEPT`) is left as typed: the model knows it, and a
few of breame's American forms are no word the corpus writes (`busses`, `gage`). As for contractions
(text/contractions.py), a word is read in small letters, or capitalised where it begins the sentence;
a capitalised one inside a sentence is a name (`Mr Grey`, `the Louvre`). Measured in docs/trust.md.
"""

from __future__ import annotations

import re

from breame.data.spelling_constants import BRITISH_ENGLISH_SPELLINGS

from attention_lab.text.casing import replaced_word
from attention_lab.text.symbols import VERBATIM

# British forms the corpus's English writes at least as often as their American ones (times British, American).
KEPT = frozenset({
    "archaeologist",  # 5, 2
    "archaeology", "buses", "discs", "gases", "gauge", "louvre", "woollen",  # 2, 14, 1, 4, 2, 1, 1 against none
    "catalogue",  # 3, 1
    "judgement",  # 9, 8
    "capitalised", "encyclopaedia", "likeable", "omelette", "remodelling", "symbolises",  # once each, as the American
})
AMERICAN = {british: american for british, american in BRITISH_ENGLISH_SPELLINGS.items() if british not in KEPT}
WORD = re.compile(r"(?<![\w@])[A-Za-z]+(?![\w@])")  # a whole word, hyphenated or before `'s` too


def respelt(sentence: str, forms: dict[str, str]) -> str:
    """`sentence` with each word that is a key of `forms` (in small letters) written as its value, in its
    casing (`casing.replaced_word`); text carried as typed (an address: `colour.com`, `example.com/colour`,
    text/symbols.py) is left."""
    kept = [match.span() for match in VERBATIM.finditer(sentence)]

    def read(match: re.Match) -> str:
        written = forms.get(match.group().lower())
        if written is None or any(start < match.end() and match.start() < end for start, end in kept):
            return match.group()
        return replaced_word(match.group(), written, sentence, match.start())

    return WORD.sub(read, sentence)


def american(sentence: str) -> str:
    """`sentence` with each British spelling (`AMERICAN`) written the American way, in its casing."""
    return respelt(sentence, AMERICAN)
