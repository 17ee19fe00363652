"""The words a translation must write in some form, for the check after writing (inference/check.py): as typed, as a
word the corpus renders them by (`CorpusWords.rendered`), or, for a word of order, by its number.

- A given name the line may use as a word, typed as the line types names (capitalised, but in a line typed in small
  letters or capitals), not after an article or a possessive (`happy bday dawn` needs `Dawn` or `aube`; `Hope you
  are well` needs `Hope` or `espère`). Only a word the corpus renders, or uses seldom or never: the French of `will`
  or `may` takes no word of its own; and only one of the names most given, or of Faker's records one the corpus uses
  seldom (not `Wash`, `Add`).
- A word the corpus knows and writes small, capitalised inside a sentence typed as written: a part of a name
  (`World`, `Health` of `the World Health Organization`, `Park` of `Goodison Park`), which French writes as typed or
  translates word by word (`Organisation mondiale de la santé`). Only a word the corpus renders, not in a run of
  capitals that holds one of its phrases (`Happy New Year`), nor a title, a word of grammar or a number, nor a label
  beside a number (`Level 2`), nor in a headline in Title Case (`Report Finds`).
- A word of order or of a part (`first use`, `the FIFTH floor`, `a third`, `half`), written as its French word
  (`première`, `tiers`, `moitié`), the corpus's rendering, or, for an order, its number (`1er`, `2e`): `ORDERS`.
"""

from __future__ import annotations

import re
from decimal import Decimal

from attention_lab.data.cleaning import clean
from attention_lab.data.corpus_words import CorpusWords
from attention_lab.inference.check_forms import like, writes
from attention_lab.inference.check_names import WORD, capitalised_run, determined, opens, phrased
from attention_lab.inference.number_values import ENGLISH_WORDS
from attention_lab.text.casing import DETERMINERS, JOINING, PRONOUNS, TITLES, casing
from attention_lab.text.given_names import given, rare, usual
from attention_lab.text.names import beside_a_number
from attention_lab.text.sentences import split

# English words of order or of a part, their number (an order's) and the French words that state them.
ORDERS = {
    "first": (1, "premier première premiers premières abord"), "second": (2, "deuxième second seconde seconds"),
    "third": (3, "troisième tiers"), "fourth": (4, "quatrième quart"), "fifth": (5, "cinquième"),
    "sixth": (6, "sixième"), "seventh": (7, "septième"), "eighth": (8, "huitième"), "ninth": (9, "neuvième"),
    "tenth": (10, "dixième"), "half": (None, "moitié demi demie"), "quarter": (None, "quart quarts")}
_ORDINALS = "|".join(word for word, (number, _) in ORDERS.items() if number)
_FRACTIONS = "|".join(word for word, (number, _) in ORDERS.items() if number and number > 2)  # `a fifth`
_PARTS = "|".join(word for word, (number, _) in ORDERS.items() if not number)
# An order before a word (`first use`, `the FIRST 100`), but after `a`, where it means another (`a second chance`);
# not last in a clause (`check it first.`, `First, ...`), where French may leave it unsaid. A fraction after `a` (`by
# a fifth`), a part anywhere. Not `once`, as often no number (`at once`, `once in a while`).
_ORDER = re.compile(rf"\b(?i:(?<!\ba )(?:{_ORDINALS})(?= +\w)|(?<=\ba )(?:{_FRACTIONS})|{_PARTS})\b")
_SMALL_WORD = re.compile(r"\b[a-z]{4,}\b")  # a sentence typed as written has one; a headline in Title Case none
_NOT_NAMES = TITLES | DETERMINERS | JOINING | PRONOUNS | set(ENGLISH_WORDS) | set(ORDERS)  # `Third Avenue`


def loosely_asked(source: str, words: CorpusWords | None) -> list[str]:
    """The given names and capitalised words of `source` a translation must write as typed or as a word rendering
    them, in order (module doc); none without the corpus's `words`, or its renderings (an older model file)."""
    if words is None or not words.french:
        return []
    found = []
    for sentence in split(clean(source)):
        case = casing(sentence)
        if case == "as written" and not _SMALL_WORD.search(sentence):
            case = "title"  # a headline in Title Case (`Report Finds`): no capital marks a name; looked for once
        for match in WORD.finditer(sentence):
            word, start = match["word"], match.start()
            if "-" not in word and word.lower() not in words.forms and (
                    _given(word, match, sentence, case, words) or _inside(word, start, sentence, case, words)):
                found.append(word)
    return found


def _given(word: str, match: re.Match, sentence: str, case: str, words: CorpusWords) -> bool:
    """Whether `word` (its `match` in `sentence` of casing `case`) is a given name asked loosely (module doc)."""
    typed = {"as written": str.istitle, "title": str.istitle, "lower": str.islower, "upper": str.isupper}[case]
    contracted = not match["tail"] and sentence[match.end():match.end() + 1] in ("'", "’")  # `Don't`
    name = usual(word) or given(word) and rare(word, words)  # not `Wash`, `Add`: Faker's records hold them
    judged = word.lower() in words.rendered or rare(word, words)  # the French of `will`, `may` takes no word
    return typed(word) and not contracted and name and judged and not determined(sentence, match.start())


def _inside(word: str, start: int, sentence: str, case: str, words: CorpusWords) -> bool:
    """Whether `word` at `start` in `sentence` of casing `case` is a word of a name the corpus renders, capitalised
    inside a sentence typed as written (module doc)."""
    if not (case == "as written" and len(word) > 1 and word.istitle() and word.lower() in words.rendered):
        return False
    return word.lower() not in _NOT_NAMES and not opens(sentence, start) and not beside_a_number(
        sentence, start, start + len(word)) and not phrased(capitalised_run(sentence, start, words), words)


def missing_orders(source: str, output: str, written: set[Decimal], words: CorpusWords | None) -> tuple[str, ...]:
    """The words of order or of a part of `source` (`ORDERS`) that `output`, its French, states in no form (module
    doc), the numbers `written` among them, as typed."""
    missing = []
    for match in _ORDER.finditer(source):
        number, french = ORDERS[match.group().lower()]
        rendered = words.rendered.get(match.group().lower(), ()) if words else ()
        if not (number in written or any(writes(output, form) for form in french.split()) or any(
                writes(output, form) or like(output, form, words, match.group()) for form in rendered)):
            missing.append(match.group())
    return tuple(missing)


def order_values(source: str) -> set[Decimal]:
    """The numbers the words of order of `source` state (`first`: 1), which its French may write (`1er`)."""
    return {Decimal(ORDERS[word.lower()][0]) for word in _ORDER.findall(source) if ORDERS[word.lower()][0]}
