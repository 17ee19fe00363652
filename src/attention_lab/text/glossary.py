"""A user's glossary: English terms the translation must write as given French terms (design.md: Glossary).

A glossary is `English<TAB>French` lines. The `Terms` step (text/terms.py), first in the list, finds its
terms in the sentence as typed: case-insensitive, whole words only, the longest term first where terms
overlap (`sales team` before `team`), walking a character trie from each word's start: linear in the line's
length, at most the longest term's characters a position. It changes nothing of the English: the model reads
`database` and must write `base de données` (inference/term_constraint.py makes the search write each
term's pieces; the model chooses the article and the place). A glossary's words are no unknown names
(text/names.py reads none as a placeholder), and Protect keeps each written term as given.

Inflection is the user's: `database` and `databases` are two lines, each matched as a whole word.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from attention_lab.data.special_tokens import UNK_ID
from attention_lab.data.tokenizer import Codec
from attention_lab.errors import UserError

MAX_TERM_CHARS = 200  # either side of a line: a term is words, not a paragraph
MAX_TERMS = 100_000  # a file's lines; a served request takes fewer (tracking/served_model.py)
_END = ""  # the trie's key that marks a term's end (no character is empty)
# French elides before a vowel or a mute h: the term then follows `l'` or `d'` as a piece glued to the apostrophe.
_ELIDED = tuple("aeiouyhàâäéèêëîïôöûùüœæ")
_ELISIONS = ("l'", "d'")  # a term is mostly a noun: its article, `de`; each form is a start the search may offer


class GlossaryError(UserError):
    """A glossary line that cannot be used, named by its source and line."""


def _lowered(text: str) -> str:
    """`text` in lower case character by character, its length kept (`İ` lowers to two characters: kept as is)."""
    return "".join(low if len(low := c.lower()) == 1 else c for c in text)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    english: str  # as typed in the sentence
    french: str


class Glossary:
    """Terms (English, French), matched as whole words, case aside, longest first."""

    def __init__(self, pairs: Sequence[tuple[str, str]], source: str = "glossary", item: str = "line",
                 numbers: Sequence[int] | None = None) -> None:
        """`pairs` in order, each named `source: <item> N` in errors, N its number in `numbers` (default: from 1)."""
        self.source, self.item = source, item
        self.numbers = list(numbers or range(1, len(pairs) + 1))
        self.pairs: list[tuple[str, str]] = []
        self.trie: dict = {}
        self.longest = 0
        self.checked: set[int] = set()  # the codecs (by id) `check` passed
        seen: dict[str, int] = {}
        if len(pairs) > MAX_TERMS:
            raise GlossaryError(f"{source}: {len(pairs):,} terms, over the {MAX_TERMS:,} a glossary may hold")
        for number, (english, french) in zip(self.numbers, pairs):
            english, french = english.strip(), french.strip()
            where = f"{source}: {item} {number}"
            if not english or not french:
                raise GlossaryError(f"{where}: a term needs an English and a French side, got {english!r}, {french!r}")
            if max(len(english), len(french)) > MAX_TERM_CHARS:
                raise GlossaryError(f"{where}: a term of more than {MAX_TERM_CHARS} characters")
            if not (_is_word_char(english[0]) or _is_word_char(english[-1])):
                raise GlossaryError(f"{where}: {english!r} has no word to match")
            if any(c.isdigit() for c in french):
                raise GlossaryError(f"{where}: {french!r} has digits: the translation copies numbers from the source")
            key = _lowered(english)
            if key in seen:
                raise GlossaryError(f"{where}: {english!r} is already {item} {seen[key]}")
            seen[key] = number
            node = self.trie
            for char in key:
                node = node.setdefault(char, {})
            node[_END] = len(self.pairs)
            self.pairs.append((english, french))
            self.longest = max(self.longest, len(key))

    @classmethod
    def load(cls, path: str | Path) -> Glossary:
        """A TSV file of `English<TAB>French` lines; blank lines and lines starting with `#` are skipped.
        Any other line that is not one term is a `GlossaryError` naming the file and line."""
        name = str(path)
        try:
            text = Path(path).read_bytes().decode("utf-8-sig")
        except FileNotFoundError:
            raise GlossaryError(f"{name}: no such glossary file") from None
        except IsADirectoryError:
            raise GlossaryError(f"{name}: is a directory, not a glossary file") from None
        except UnicodeDecodeError as exc:
            raise GlossaryError(f"{name}: not UTF-8 text (byte {exc.start + 1})") from None
        pairs, numbers = [], []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 2:
                raise GlossaryError(f"{name}: line {number}: expected 'English<TAB>French', got {line[:80]!r}")
            pairs.append((fields[0], fields[1]))
            numbers.append(number)
        return cls(pairs, name, numbers=numbers)

    def __len__(self) -> int:
        return len(self.pairs)

    @cached_property
    def words(self) -> frozenset[str]:
        """The English terms' words, lower case: words the user defined, never read as unknown names."""
        return frozenset(w for english, _ in self.pairs for w in re.findall(r"\w+", _lowered(english)))

    def matches(self, text: str) -> list[Match]:
        """The terms in `text`, left to right, none overlapping: at each word's start the longest term that
        ends at a word's end. Work: at most `longest` characters from each position."""
        low, found, i = _lowered(text), [], 0
        while i < len(text):
            if i and _is_word_char(text[i - 1]) and _is_word_char(text[i]):  # inside a word: no term starts here
                i += 1
                continue
            node, best, j = self.trie, None, i
            while j < len(low) and (node := node.get(low[j])) is not None:
                j += 1
                if _END in node and (j == len(text) or not (_is_word_char(text[j - 1]) and _is_word_char(text[j]))):
                    best = (j, node[_END])
            if best is None:
                i += 1
                continue
            end, index = best
            found.append(Match(i, end, text[i:end], self.pairs[index][1]))
            i = end
        return found

    def check(self, codec: Codec) -> None:
        """Refuse, naming the line, a French term `codec`'s vocabulary cannot write (a piece the model never wrote)."""
        if id(codec) in self.checked:
            return
        for number, (_, french) in zip(self.numbers, self.pairs):
            if any(not codec.reads(c) for c in french) or UNK_ID in codec.encode(french):
                raise GlossaryError(f"{self.source}: {self.item} {number}: the model cannot write {french!r}")
        self.checked.add(id(codec))


@functools.cache
def term_pieces(codec: Codec, french: str) -> tuple[tuple[int, ...], ...]:
    """The token sequences that write `french`: alone (`▁ordinateur ▁portable`) and, for a term that French
    elides before (a vowel or h), with each elision (`l'ordinateur`: `▁l ' ordinateur ▁portable`), whose pieces
    differ: the word glued to the apostrophe lacks the word-start mark. The elision is written with the term, so
    no glued form follows anything but its apostrophe."""
    forms = {tuple(codec.encode(french)[:-1]): None}
    if french[0].lower() in _ELIDED:
        forms.update((tuple(codec.encode(elision + french)[:-1]), None) for elision in _ELISIONS)
    return tuple(form for form in forms if form and UNK_ID not in form)


def missing_terms(text: str, terms: Iterable[str]) -> list[str]:
    """The `terms` that `text` does not write as whole words, case aside."""
    return [term for term in terms
            if not re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, flags=re.IGNORECASE)]
