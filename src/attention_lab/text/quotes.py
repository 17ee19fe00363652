"""Double quotes typed in English (`"Come here," she said.`) given back as French guillemets around the
translation of the same words (`« Viens ici », dit-elle.`); the Typography step (design.md: Quotes). The model
reads each sentence without them: one at the sentence's edge goes back at the translation's edge, one inside is
carried like a symbol (text/symbols.py). Quotes that do not pair up (`12" by 12"`) are left as typed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from attention_lab.text.record import Context, Draft, Sentence

OPENS = {"“": True, "”": False}  # a curly quote says which it is; a straight one, `"`, by what touches it
GUILLEMETS = "«»"
_AFTER_OPENING = " ([{"  # what a `"` that opens follows (or the line's start)
_BEFORE_CLOSING = " .,;:!?…)]}"  # what a `"` that closes is followed by (or the line's end)
_TYPED = re.compile(r"«\s+|\s+»")  # `« hello »` typed in English: the spaces inside go
_OPENING = re.compile(r"«\s*(\w?)")  # `«j'ai` -> `« j'ai`, then `« J'ai` where the English was `"I'm`
_MARK = re.compile(r"(?<!\.)([,.])\s*»")  # `ici,»` -> `ici »,`; not an ellipsis's last stop
_SPACED = ((re.compile(r"(?<=\S)»"), " »"), (re.compile(r"(?<=[^\s(\[])«"), " «"), (re.compile(r"»(?=[\w«(])"), "» "))
_IN_TURN = re.compile(r"(?:[^«»]*«[^«»]*»)*[^«»]*")  # opening and closing in turn, none inside another
_PAIRS = re.compile(r"(?:[^«»]*«[^«»\w]*\w[^«»]*»)*[^«»]*")  # ... and each around a word (its first: no backtracking)
_FIRST_LETTER = re.compile(r"«\W*(\w?)")  # a quote's first letter, after any marks (`"-5`, `"(a)`)
_NO_GUILLEMETS = str.maketrans("", "", GUILLEMETS)


def guillemets(line: str) -> str:
    """`line` with its double quotes as guillemets where each can be told opening or closing and they
    pair up, none inside another; else as it is. A `"` opens after a space, a bracket or the line's
    start and before a non-space; it closes after a non-space other than a digit (`12"` is inches) and
    before a space, punctuation or the line's end."""
    chars, inside = list(_TYPED.sub(lambda match: match.group().strip(), line)), False
    for i, char in enumerate(chars):
        if char not in OPENS and char != '"':
            continue
        before, after = chars[i - 1] if i else " ", chars[i + 1] if i + 1 < len(chars) else " "
        opens = OPENS.get(char)
        if opens is None:
            can_open = before in _AFTER_OPENING and not after.isspace()
            can_close = not before.isspace() and not before.isdigit() and after in _BEFORE_CLOSING
            if can_open == can_close:  # `said"hi`, ` " `: neither or either
                return line
            opens = can_open
        if opens == inside:  # a quote inside a quote, or a closing one outside any
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
    within: bool = True  # its guillemets pair up among themselves (not a quote over several sentences)
    continues: bool = False  # typed in small letters after a quote's end (`"Where?" she asked.`): written so


def edges(sentence: str, continues: bool = False) -> tuple[str, Quotes]:
    """`sentence` without the guillemets that open and close it, and its `Quotes`. One at the end closes
    the sentence after its end mark, or a sentence that a quote opens; else it is inside, and the end
    mark a sentence typed without one is given (text/end_mark.py) goes after it (`She said "no"`)."""
    opens = sentence.startswith("«")
    closes = sentence.endswith("»") and (opens or sentence[:-1].rstrip().endswith(tuple(".!?…")))
    inside = sentence[opens : len(sentence) - closes].strip()
    capitals = tuple(letter.isupper() for letter in _FIRST_LETTER.findall(inside))
    return inside, Quotes(opens, closes, capitals, _IN_TURN.fullmatch(sentence) is not None, continues)


def paired(text: str) -> bool:
    """Whether the guillemets of `text` come in turn, none inside another, each pair around a word."""
    return _PAIRS.fullmatch(text) is not None


def requoted(translation: str, quotes: Quotes) -> str:
    """`translation` inside its sentence's edge guillemets, its own spaced the French way and capitalised
    where the English was; its own dropped where attention placed them out of turn or around no word
    (`« Salut ». »`, `J'ai dit oui « ! »`); starting with a small letter where it goes on after a quote."""
    capitals = iter(quotes.capitals)
    body = _OPENING.sub(lambda match: "« " + (match.group(1).upper() if next(capitals, False) else match.group(1)),
                        translation)
    body = _MARK.sub(r" »\1", body[:1].lower() + body[1:] if quotes.continues else body)
    for pattern, spaced in _SPACED:
        body = pattern.sub(spaced, body).strip()
    text = _around(body, quotes)
    # A quote over sentences gives each half of a pair; one around nothing (`""`) is given back as typed.
    if not quotes.within or not body or paired(text):
        return text
    body = re.sub(r" ([,.])", r"\1", " ".join(re.sub("[«»]", " ", body).split()))
    text = _around(body, quotes)
    # An edge one left without the inside one it paired with (`"go," "stop," and "wait."`) goes too.
    return text if paired(text) else body


def _around(body: str, quotes: Quotes) -> str:
    return " ".join(part for part in ("«" * quotes.opens, body, "»" * quotes.closes) if part)


def read(runs: Sequence[str]) -> list[str]:
    """The carried `runs` other than guillemets: what the model could not read of what was typed."""
    return [run for run in (text.translate(_NO_GUILLEMETS) for text in runs) if run]


class Typography:
    """Reads a sentence without the guillemets at its edges (`edges`); writes them back with the translation's
    own spaced the French way (`requoted`)."""

    name = "typography"

    def read(self, sentence: Sentence, context: Context) -> Sentence:
        return sentence.read(self, *edges(sentence.text, continues=sentence.record["sentences"]))

    def write(self, draft: Draft, sentence: Sentence, context: Context) -> Draft:
        return replace(draft, text=requoted(draft.text, sentence.record[self.name]))
