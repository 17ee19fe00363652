"""Contractions typed without their apostrophe (`cant`, `dont`, `im`) read with it: every contraction in
the corpus has one, and `i cant swim` came back as `Je peux nager.` Only forms that are no English word
without it are read (`dont`, `isnt`, `youre`; not `were`, `well`, `its`), `cant` and `wont` only where no
determiner or possessive makes them the nouns (`as is his wont`); in small letters, or capitalised where
the sentence begins. In a line typed in capitals, forms that may be a name (`IVE`, `IM`) only at its start.
"""

from __future__ import annotations

import re

from attention_lab.text.casing import begins, replaced_word

_NOT = ("can", "don", "doesn", "didn", "isn", "aren", "wasn", "weren", "won", "couldn", "wouldn", "shouldn", "hasn",
        "haven", "hadn", "mustn", "needn", "ain")
FORMS = {
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
# A whole word, not in an address or against an apostrophe in a word: `im@example.com`, `dont.com`, `dont's`
# stay as typed; a quote's apostrophe may stand before or after (`'dont go'`).
WORD = re.compile(rf"(?<![\w’@./-])(?<!\w')(?:{'|'.join(FORMS)})(?![\w@-]|['’]\w|\.\w)", re.IGNORECASE)


def with_apostrophes(sentence: str, recased: bool = False) -> str:
    """`sentence` with each contraction typed without its apostrophe (`FORMS`) written with it;
    `recased`: the sentence was typed in capitals or Title Case and sentence-cased (text/casing.py)."""

    def restored(match: re.Match) -> str:
        typed = match.group()
        if recased and typed.lower() in NAMES_TOO and not begins(sentence, match.start()) or \
                NOUN.search(sentence, max(match.start() - len("their "), 0), match.end()):
            return typed
        return replaced_word(typed, FORMS[typed.lower()], sentence, match.start())

    return WORD.sub(restored, sentence)
