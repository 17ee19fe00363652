"""Text conventions of the corpus: cleaning raw lines, d2l's word normalisation, and turning word
tokens back into French text.

d2l §10.5 (machine translation data): `\\u202f`/`\\xa0` become spaces, text is lowercased and a
space is put before `, . ! ?`; tokens are space-separated and French elisions (`j'ai`) stay one
token. The subword tokenizer needs none of this beyond `clean`: it keeps case and spacing as they
are, so its output is ordinary text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

import regex

# An ideographic full stop and comma (a CJK keyboard's) are those marks, as NFKC makes `？` a `?`. A dotted
# capital I (Turkish `İ`) is `I`: no corpus line has one, so no vocabulary reads it, and it was carried around
# the model, the word read without it (`İSTANBUL IS BIG.` as `stanbul is big.`).
_TRANSLATE = str.maketrans({"\u202f": " ", "\xa0": " ", "\u2019": "'", "\u3002": ".", "\u3001": ",",
                            "\u0130": "I"})
_SPACE_BEFORE = re.compile(r"(?<! )([,.!?])")  # d2l: a space before , . ! ? unless there is one
_SPACE_AROUND = re.compile(r"([«»\"“”;:()\[\]…¡¿])")  # other punctuation becomes its own token
_ATTACH_LEFT = (".", ",", ")", "]", "…")  # detokenize: these stick to the previous token
_ATTACH_RIGHT = ("(", "[")  # ... and the next token sticks to these


# Terminal escape sequences (ECMA-48): CSI `ESC [ ... final`, OSC `ESC ] ... BEL|ESC \\`, and 2-byte ones.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_INVISIBLE = ("Cc", "Cf")  # control and format characters: NUL, zero-width spaces, BOM, soft hyphen


# Grapheme clusters (Unicode UAX #29, as the `regex` package finds them): 👨‍👩‍👧 is one, its emoji held
# together by zero-width joiners; a subdivision flag's tag characters are format characters too. A flag
# (two regional indicators, with the marks after them) is matched first: `\X` alone counts back over a
# run of them at each, n² steps (1.9 s for 20,000 indicators); its clusters are the same (UAX #29 GB12-13).
CLUSTER = regex.compile(r"\p{GCB=RI}{2}[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}]*|\X")


def _visible(char: str) -> str:
    if char.isspace():  # tab, newline, NBSP and other spaces: a word boundary
        return " "
    return "" if unicodedata.category(char) in _INVISIBLE else char


def _visible_cluster(cluster: str) -> str:
    """An emoji sequence whole, joiners and tags included; any other cluster without its invisible characters."""
    if len(cluster) > 1 and any(unicodedata.category(char) == "So" for char in cluster):
        return cluster.rstrip("\u200d")  # a joiner at its end joins nothing
    return "".join(map(_visible, cluster))


# Compatibility forms that say something else than the character: a fraction or a raised digit, letter or sign
# written plain is another number or word (`9¾` as `93⁄4`, `m²` as `m2`, `10⁶` as `106`, `™` as `TM`, `1º` as
# `1o`). They stay as typed, and what the model cannot read of them is carried around it (text/symbols.py). Of
# the corpus's 232,736 lines, one has such a character (`100ºC`, read `100oC` before); a lowered digit says the
# same written plain (`H₂O` as `H2O`) and is made plain, as are full-width letters, ligatures and spaces.
_SAYS_ELSE = ("<fraction>", "<super>")


@cache
def _says_else(char: str) -> bool:
    return unicodedata.decomposition(char).startswith(_SAYS_ELSE)


def compatible(text: str) -> str:
    """`text` NFKC-normalised but for the characters whose compatibility form says something else (`_SAYS_ELSE`)."""
    if text.isascii():
        return text  # NFKC changes no ASCII character
    kept = [i for i, char in enumerate(text) if _says_else(char)]
    between = (text[start + 1 : stop] for start, stop in zip([-1, *kept], [*kept, len(text)]))
    return "".join(unicodedata.normalize("NFKC", part) + (text[kept[k]] if k < len(kept) else "")
                   for k, part in enumerate(between))


def clean(text: str) -> str:
    """A raw corpus or user line as the model reads it, at training and at inference alike:
    terminal escape sequences and invisible characters (controls, zero-width spaces, BOMs) gone,
    except the joiners and tags inside an emoji sequence, NFKC-normalised (full-width letters,
    ligatures and compatibility forms as their plain characters) but for fractions and raised
    characters (`compatible`), typographic spaces and apostrophes, ideographic stops and commas and
    the dotted capital `İ` made plain, runs of whitespace collapsed. Case and punctuation stay."""
    text = compatible(_ANSI.sub("", text)).translate(_TRANSLATE)
    visible = "".join(map(_visible, text)) if text.isascii() else "".join(map(_visible_cluster, CLUSTER.findall(text)))
    return " ".join(visible.split())


def normalize_words(text: str, lowercase: bool = True) -> str:
    """d2l's `preprocess_nmt`, plus spacing of other punctuation: `Go.` -> `go .`."""
    text = clean(text)
    if lowercase:
        text = text.lower()
    text = _SPACE_AROUND.sub(r" \1 ", _SPACE_BEFORE.sub(r" \1", text))
    return " ".join(text.split())


def detokenize_words(tokens: list[str]) -> str:
    """Word tokens back to French text: `je suis chez moi .` -> `Je suis chez moi.`, `va !` ->
    `Va !` (French puts a space before `! ? : ;`), first letter capitalised."""
    text = ""
    for token in tokens:
        if text and not token.startswith(_ATTACH_LEFT) and not text.endswith(_ATTACH_RIGHT):
            text += " "
        text += token
    return capitalized(text)


def capitalized(text: str) -> str:
    """`text` with its first letter a capital: `« bonjour »` -> `« Bonjour »`."""
    first = next((i for i, char in enumerate(text) if char.isalpha()), None)
    return text if first is None else text[:first] + text[first].upper() + text[first + 1 :]
