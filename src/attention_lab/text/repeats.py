"""Words the model wrote twice in a row, written once (the Repair step; design.md: Stutters): `Il a chanté des
chansons chansons.` A stutter is a small model's failure, not French (11 of the corpus's 167,130 French
sentences; docs/trust.md); French that doubles a word on purpose stays (`written_once`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from attention_lab.text.record import Context, Draft, Sentence, Step
from attention_lab.text.symbols import output_words

LONGEST = 6
MEANT = frozenset({"nous", "vous", "faire"})  # French that doubles a word on purpose
_WORD = re.compile(r"(?P<core>.*\w)(?P<tail>\W*)", re.S)  # `bien.`: core `bien`, tail `.`
_NUMBER = re.compile(r"[\d\W]+")  # a core of digits and marks (it ends in a digit): `12`, `-5`, `1,5`, `10:30`


def repeats_on_purpose(source: str) -> bool:
    """Whether `source` uses a word of 4 letters or more twice, or any word twice in a row, any casing."""
    words = re.findall(r"\w+", source.lower())
    return any(n > 1 for n in Counter(re.findall(r"[^\W\d_]{4,}", source.lower())).values()) or \
        any(word == after for word, after in zip(words, words[1:]))


def written_once(pieces: Sequence[str], source: str, join: Callable[[Sequence[str]], str]) -> list[int]:
    """The indices of `pieces` to keep, in order: all of them, less the second copy of each run of words
    `join(pieces)` (split at spaces) writes twice in a row (its closing punctuation kept)."""
    everything = list(range(len(pieces)))
    if not pieces or repeats_on_purpose(source):
        return everything
    words = join(pieces).split()
    word_of = output_words(pieces, join)
    of_word: list[list[int]] = [[] for _ in words]
    for t, w in enumerate(word_of):
        of_word[w].append(t)
    dropped: set[int] = set()
    kept: list[tuple[str, bool, int]] = []  # (lower-case core, "" for punctuation; ends in punctuation; word)
    for w, word in enumerate(words):
        match = _WORD.fullmatch(word)
        kept.append((match["core"].lower(), bool(match["tail"]), w) if match else ("", True, w))
        for n in range(1, LONGEST + 1):
            first, second = kept[-2 * n : -n], kept[-n:]
            if len(first) < n or [c[0] for c in first] != [c[0] for c in second] or \
                    not all(c[0] and not _NUMBER.fullmatch(c[0]) for c in first):
                continue
            if any(c[1] for c in first) or any(c[1] for c in second[:-1]):
                continue  # punctuation inside the run: a clause may end there
            if n == 1 and first[0][0] in MEANT:
                continue
            tail = [t for t in of_word[w] if not re.search(r"\w", pieces[t])] if second[-1][1] else []
            if second[-1][1] and join([pieces[t] for t in tail]).strip() != match["tail"]:
                continue  # the punctuation shares a piece with letters: it cannot stay alone
            dropped.update(t for *_, k in second for t in of_word[k] if t not in tail)
            del kept[-n:]
            kept[-1] = (kept[-1][0], second[-1][1], kept[-1][2])
            break
    return [t for t in everything if t not in dropped]


class Repair(Step):
    """Writes a run of words the model wrote twice in a row once (`written_once`), when `drop_repeats`: its
    pieces and their attention rows go. Reads nothing."""

    name = "repair"

    def write(self, draft: Draft, sentence: Sentence, context: Context) -> Draft:
        if not context.drop_repeats or not draft.pieces:
            return draft
        keep = written_once(draft.pieces, sentence.text, context.tgt.join)
        rows = keep + list(range(len(draft.pieces), len(draft.attention)))  # `<eos>`'s row when emitted stays
        return replace(draft, pieces=[draft.pieces[t] for t in keep], attention=draft.attention[rows],
                       rows=[draft.rows[r] for r in rows])
