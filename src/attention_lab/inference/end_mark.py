"""A sentence typed without its end mark (`where is the station`) given the one the corpus would
write: every line of the corpus ends with `.`, `?` or `!`, and a model that never saw a sentence end
without one reads it as cut short and goes on (`I work with him` came out as `Je travaille avec lui
que je lui suis en service`; greedy BLEU of the valid sources without their end marks 27.6, 53.1
with them, 52.6 with the mark chosen here: docs/trust.md).

The mark: `?` for an English question, one that starts with a question word (`where`, `how`; not
followed by a subject: `when I got home` is no question) or with an auxiliary followed by its subject
(`can you`, `is Tom`, `do the`; `do it now` and `have fun` are not questions); `!` for an exclamation that starts `what a`; `.` otherwise. A sentence with commas
takes its first clause's mark, or its last clause's when the first calls for `.`: `You know him, don't
you` and `So, what's the problem` are questions. The translation keeps the mark the model writes.
"""

from __future__ import annotations

import re

QUESTION_WORDS = frozenset(
    "who whom whose what which when where why how who's what's where's how's when's why's".split())
AUXILIARIES = frozenset(
    "am is are was were do does did have has had can could will would shall should may might must "
    "isn't aren't wasn't weren't don't doesn't didn't haven't hasn't hadn't can't couldn't won't wouldn't "
    "shouldn't mightn't mustn't".split())
# A word that begins an auxiliary's subject; a word starting with a capital (a name) does too.
SUBJECT_STARTS = frozenset(
    "i you he she it we they there this that these those the a an my your his her its our their "
    "anyone anybody someone somebody everyone everybody".split())
# Not a subject after these, but an object: `do it now`, `don't do that`, `have a seat`.
OBJECT_AFTER = {"do": frozenset("it he she this that a an".split()), "have": frozenset(("a", "an"))}
OBJECT_AFTER["don't"] = OBJECT_AFTER["do"]
CLOSERS = "\"'»”’)]}"  # written after a sentence's end mark: `He said "hi."`, `« Où ? »`
ENDED = re.compile(rf"[.!?…,;:][\s{re.escape(CLOSERS)}]*$")  # a mark, or a comma's kind the writer chose
WORD = re.compile(r"[\w'’]+")


def with_end_mark(sentence: str) -> str:
    """`sentence` ending in its end mark; as it is when it has one, or no letter or digit."""
    if ENDED.search(sentence) or not any(char.isalnum() for char in sentence):
        return sentence
    # The first clause's mark, else the last's: a tag (`You know, don't you`), an address (`Tom, are you
    # there`).
    first, last = (end_mark([w.replace("’", "'") for w in WORD.findall(clause)])
                   for clause in (sentence.split(",")[0], sentence.rsplit(",", 1)[-1]))
    return sentence.rstrip() + (first if first != "." else last)


def end_mark(words: list[str]) -> str:
    """The end mark of a sentence of `words` (as written, in order)."""
    first, second = (words + ["", ""])[:2]
    named = second[:1].isupper()  # `Is Tom here`
    first, second = first.lower(), second.lower()
    if first == "what" and second in ("a", "an"):
        return "!"
    subject = (second in SUBJECT_STARTS or named) and second not in OBJECT_AFTER.get(first, ())
    if first in QUESTION_WORDS:
        return "." if subject and "'" not in first else "?"  # `When I got home` opens a statement
    return "?" if first in AUXILIARIES and subject else "."
