"""Double quotes typed in English (`"Come here," she said.`) given back as French guillemets around the
translation of the same words (`« Viens ici », elle a dit.`).

The model garbles the words beside a quote: the corpus quotes 269 of its 150,318 training sources (and
the French three ways: « » in 191 of its 295 quoted lines, " " in 93, none in 11). `"Come here," she
said.` came out as `"Tme ici, dit-elle.` and `She said "no".` as `Elle a dit « "Je ».`, while the same
sentences typed without quotes came out right (`Viens ici, elle a dit.`). So the double quotes of a line
that pair up (`"` opening and closing in turn, `“` opening and `”` closing) become guillemets, and the
model reads each sentence without them:
- a guillemet that opens the sentence goes back at the translation's start, one that closes it (after
  its end mark) at its end;
- one inside the sentence is carried like a character the model cannot read (inference/symbols.py):
  against the output word of the source word it touches, by attention;
then the guillemets are spaced the French way (`« non »`), a comma or full stop that English typed inside
a closing quote goes after it (`"Come here,"` -> `« Viens ici »,`), and a quote inside the sentence whose
English starts with a capital starts with one (`Tom said, "I'm hungry."` -> `Tom a dit, « J'ai faim. »`,
where the model, reading one sentence, wrote `j'ai`). Quotes that do not pair up are left as typed, and
read by the model as before. inference/sentences.py splits a line at its quotes' end marks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

OPENS = {'"': None, "“": True, "”": False}  # does the quote open one; None: it opens and closes in turn
GUILLEMETS = "«»"
_CLOSING = re.compile(r"\s*([,.]?)»")  # `ici,»` -> `ici »,`; `ici »` stays
_OPENING = re.compile(r"«\s*(\w?)")  # `«j'ai` -> `« j'ai`, then `« J'ai` where the English was `"I'm`
_FIRST_LETTER = re.compile(r"«\W*(\w?)")


def guillemets(line: str) -> str:
    """`line` with its double quotes as guillemets where they all pair up; else as it is."""
    chars, inside = list(line), False
    for i, char in enumerate(chars):
        if char not in OPENS:
            continue
        opens = not inside if OPENS[char] is None else OPENS[char]
        if opens == inside:  # `“` inside a quote, or `”` outside one
            return line
        chars[i], inside = "«" if opens else "»", opens
    return line if inside else "".join(chars)


def outside_quotes(reads: Callable[[str], bool]) -> Callable[[str], bool]:
    """`reads` (does the model read a character) refusing guillemets: carried, never read."""
    return lambda char: char not in GUILLEMETS and reads(char)


@dataclass(frozen=True)
class Quotes:
    """How a sentence's guillemets go back: those at its edges, and the capitals of those inside it (carried)."""

    opens: bool = False  # one opens the sentence: it opens the translation
    closes: bool = False  # one closes it: it closes the translation
    capitals: tuple[bool, ...] = ()  # each one opening inside it: whether its first letter is a capital


def edges(sentence: str) -> tuple[str, Quotes]:
    """`sentence` without the guillemets that open and close it, and its `Quotes`."""
    opens, closes = sentence.startswith("«"), sentence.endswith("»")
    inside = sentence[opens : len(sentence) - closes].strip()
    return inside, Quotes(opens, closes, tuple(letter.isupper() for letter in _FIRST_LETTER.findall(inside)))


def requoted(translation: str, quotes: Quotes) -> str:
    """`translation` inside its sentence's edge guillemets, its own spaced the French way and capitalised
    where the English was."""
    capitals = iter(quotes.capitals)
    body = _OPENING.sub(lambda match: "« " + (match.group(1).upper() if next(capitals, False) else match.group(1)),
                        translation)
    body = _CLOSING.sub(r" »\1", body).strip()
    return " ".join(part for part in ("«" * quotes.opens, body, "»" * quotes.closes) if part)
