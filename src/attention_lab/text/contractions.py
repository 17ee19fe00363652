"""Contractions typed without their apostrophe (`cant`, `dont`, `im`) read with it.

Every contraction in the corpus has its apostrophe, so the model reads `cant` as pieces it barely saw,
and the negation went first: `i cant swim` came back as `Je peux nager.` Only the forms that are no
English word without it are read with one: `dont`, `isnt`, `im`, `youre`, `thats`, not `were`, `well`,
`its`, `ill`, `id`, `lets`, `shell`, `hell`, `wed` or `shed`, which the corpus writes as words (2,904
lines have `were`) and no reading could tell apart. The rare words `cant` and `wont` are read as
`can't` and `won't`, as typed text means them, except after a determiner or possessive, where they are
nouns (`as is his wont`, `the cant of politics`). A form is read in small letters, or capitalised where
it begins the sentence (`Dont go.`); a capitalised one inside a sentence is a name (`Jony Ive`). A line
in capitals or Title Case is sentence-cased first (text/casing.py), so `I CANT SWIM` reads `I
can't swim` too, but there a form that may be a name or an abbreviation (`IVE`, `IM`) is read back only
where it begins the sentence (`IM TIRED`, not `JONY IVE` or `SEND ME AN IM`).
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
