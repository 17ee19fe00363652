"""One lexicon of words typed otherwise than the corpus writes them, read its way in one pass (design.md:
Normalize; measured in docs/trust.md): contractions without their apostrophe (`dont` as `don't`; every one in
the corpus has it), British spellings (`colour` as `color`, breame's list: the corpus's English is American)
and shorthand (`&` as `and`, `e.g.` as `for example`, `3x` as `3 times`: the corpus spells it out).
"""

from __future__ import annotations

import re

from breame.data.spelling_constants import BRITISH_ENGLISH_SPELLINGS

from attention_lab.text.casing import begins, replaced_word
from attention_lab.text.symbols import VERBATIM

# Contractions: only forms that are no English word without the apostrophe (`dont`; not `were`, `well`, `its`).
_NOT = ("can", "don", "doesn", "didn", "isn", "aren", "wasn", "weren", "won", "couldn", "wouldn", "shouldn", "hasn",
        "haven", "hadn", "mustn", "needn", "ain")
CONTRACTIONS = {
    **{f"{stem}t": f"{stem}'t" for stem in _NOT},
    **{f"{who}{ending}": f"{who}'{ending}" for who in ("you", "they") for ending in ("re", "ve", "ll", "d")},
    **{f"{who}s": f"{who}'s" for who in ("he", "she", "that", "what", "where", "there", "who", "how")},
    **{f"{verb}ve": f"{verb}'ve" for verb in ("would", "could", "should", "might", "must")},
    "im": "I'm", "ive": "I've", "weve": "we've", "hed": "he'd", "itll": "it'll", "thatll": "that'll",
}
# Forms that may be a name or an abbreviation too (`Jony Ive`, `an IM`): in a sentence typed in capitals or
# Title Case, whose casing is lost before it is read, they are read back only where they begin it.
NAMES_TOO = frozenset({"im", "ive", "hes", "shes", "hed"})
# `cant` and `wont` are nouns too, after a determiner or possessive (`as is his wont`): there they stay.
NOUN = re.compile(r"\b(?:a|an|the|my|your|his|her|its|our|their) (?:cant|wont)$", re.IGNORECASE)
# British forms the corpus's English writes at least as often as their American ones (times British, American).
KEPT = frozenset({
    "archaeologist",  # 5, 2
    "archaeology", "buses", "discs", "gases", "gauge", "louvre", "woollen",  # 2, 14, 1, 4, 2, 1, 1 against none
    "catalogue",  # 3, 1
    "judgement",  # 9, 8
    "capitalised", "encyclopaedia", "likeable", "omelette", "remodelling", "symbolises",  # once each, as the American
})
AMERICAN = {british: american for british, american in BRITISH_ENGLISH_SPELLINGS.items() if british not in KEPT}
SHORTHAND = {"&": "and", "e.g.": "for example", "i.e.": "that is"}
LEXICON = {**CONTRACTIONS, **AMERICAN, **SHORTHAND}  # typed, in small letters -> as the corpus writes it
# A contraction as a whole word, not in an address or against an apostrophe in a word (`im@example.com`,
# `dont.com`, `dont's` stay as typed); a quote's apostrophe may stand before or after (`'dont go'`).
CONTRACTION = re.compile(rf"(?<![\w’@./-])(?<!\w')(?i:{'|'.join(CONTRACTIONS)})(?![\w@-]|['’]\w|\.\w)")
TYPED = re.compile(
    rf"(?P<contraction>{CONTRACTION.pattern})"
    r"|(?P<shorthand>(?<=\s)&(?=\s)|(?<![\w.])(?i:e\.g\.|i\.e\.)(?!\w))"
    r"|(?<![\w@])[A-Za-z]+(?![\w@])")  # any other whole word, hyphenated or before `'s` too
TIMES = re.compile(r"(?<![\w.,])([0-9]+(?:\.[0-9]+)?)x(?=,?\s[a-z]|[.!?,;]?$)")  # `3x faster`, not `2x2` or `0x1F`


def respelt(sentence: str, forms: dict[str, str], recased: bool = False) -> str:
    """`sentence` with each word or shorthand that is a key of `forms` (in small letters) written as its value:
    shorthand capitalised where typed so, a word in its casing (`casing.replaced_word`). A contraction's form
    only in a contraction's place and, where `recased` (typed in capitals or Title Case and sentence-cased),
    a `NAMES_TOO` one only where it begins the sentence; other words not in text carried as typed (an
    address: `colour.com`, text/symbols.py)."""
    kept = [match.span() for match in VERBATIM.finditer(sentence)]

    def read(match: re.Match) -> str:
        typed, start = match.group(), match.start()
        written = forms.get(typed.lower())
        if written is None or match["contraction"] and (
                recased and typed.lower() in NAMES_TOO and not begins(sentence, start)
                or NOUN.search(sentence, max(start - len("their "), 0), match.end())):
            return typed
        if match["shorthand"]:
            return written[0].upper() + written[1:] if typed[0].isupper() else written
        if not match["contraction"] and (typed.lower() in CONTRACTIONS
                                         or any(begin < match.end() and start < end for begin, end in kept)):
            return typed
        return replaced_word(typed, written, sentence, start)

    return TYPED.sub(read, sentence)


def read_words(sentence: str, recased: bool = False) -> str:
    """`sentence` with the words of `LEXICON` written as the corpus writes them (`respelt`), and `TIMES` so."""
    return TIMES.sub(r"\1 times", respelt(sentence, LEXICON, recased))
