"""End marks (design.md: End marks): a sentence typed without one read with the mark the corpus would write
(every corpus line ends with `.`, `?` or `!`, and the model read a sentence without one as cut short and went
on), and a run of marks (`?!`, `!!!`, `...`) read as its one mark and given back as typed. The translation
keeps the mark the model writes.
"""

from __future__ import annotations

import re
from dataclasses import replace

from attention_lab.text.record import Context, Draft, Sentence, Step

QUESTION_WORDS = frozenset("who whom whose what which when where why how".split())
RELATIVE_WORDS = frozenset("who whom whose which".split())  # after a comma: `Tom, who is a doctor`
AUXILIARIES = frozenset(
    "am is are was were do does did have has had can could will would shall should may might must "
    "isn't aren't wasn't weren't don't doesn't didn't haven't hasn't hadn't can't couldn't won't wouldn't "
    "shouldn't mightn't mustn't".split())
# A word that begins an auxiliary's subject; a word starting with a capital (a name) does too.
SUBJECT_STARTS = frozenset(
    "i you he she it we they there this that these those the a an my your his her its our their "
    "anyone anybody someone somebody everyone everybody anything something everything".split())
# Not a subject after these, but an object: `do it now`, `don't do that`, `have a seat`, `do something`.
OBJECT_AFTER = {"do": frozenset("it he she this that a an anything something everything".split()),
                "have": frozenset("a an anything something everything".split())}
OBJECT_AFTER["don't"] = OBJECT_AFTER["do"]
# `may` asks with `I` or `we` and wishes with any other subject (`May the force be with you.`): the corpus ends
# 292 of its 293 lines that open `May I` or `May we` with `?`, and none of the 5 that open `May` with another
# subject (`May God bless you.`, `May all your dreams come true!`).
ASKS_ONLY_WITH = {"may": frozenset({"i", "we"})}
# An inverted condition (`Should you need help, call us.`, `Had I known, I would have come.`): the corpus ends
# each of its 13 lines that open `Should`, `Had` or `Were` and have a comma as their last clause ends.
CONDITIONS = frozenset({"should", "had", "were"})
CLOSERS = "\"'»”’)]}"  # written after a sentence's end mark: `He said "hi."`, `« Où ? »`
# The patterns below take a run of characters only where it starts, and whole (`(?<!x)x++`): tried at
# each of its characters and given back one at a time, a run of n made n² steps (`Wow` and 10,000 `!`).
CLOSING = rf"[\s{re.escape(CLOSERS)}]"
TRAILING = re.compile(rf"(?<!{CLOSING}){CLOSING}*+$")
MARKS = ".!?…,;:"  # an end mark, or a comma's kind that the writer chose to end with
WORD = re.compile(r"\w[\w'’]*")
RUN_OF_MARKS = r"(?<![!?])[!?]{2,}+|(?<!\.)\.{2,}+|…"  # `!!!`, `?!`, `...`, `…`
RUN = re.compile(rf"({RUN_OF_MARKS})(?={CLOSING}*+$)")  # ... ending a sentence
SENTENCE_END = re.compile(r"[.!?…]\s+")  # a line read whole (`split_sentences` off): its last sentence follows


def with_end_mark(sentence: str) -> str:
    """`sentence` ending in its end mark; as it is when it has one, or no letter or digit."""
    end = TRAILING.search(sentence).start()  # the mark goes before closing quotes and brackets ...
    if not any(char.isalnum() for char in sentence) or sentence[:end].endswith(tuple(MARKS)):
        return sentence
    last = SENTENCE_END.split(sentence[:end])[-1]
    if not last.lstrip("\"'«“‘").startswith(("(", "[", "{")):  # ... after those of a bracket inside it
        end += len(sentence[end:]) - len(sentence[end:].lstrip(")]}"))  # `I'm here (finally).`
    first_clause, last_clause = (words_of(clause) for clause in (last.split(",")[0], last.rsplit(",", 1)[-1]))
    mark = end_mark(first_clause)
    condition = (first_clause or [""])[0].lower() in CONDITIONS  # `Should you need help, call us`
    if (mark == "." or condition) and "," in last and last_clause[:1] and \
            last_clause[0].lower() not in RELATIVE_WORDS:
        mark = end_mark(last_clause)
    return sentence[:end] + mark + sentence[end:].rstrip()


def words_of(text: str) -> list[str]:
    return [word.replace("’", "'") for word in WORD.findall(text)]


def end_mark(words: list[str]) -> str:
    """The end mark of a sentence of `words` (as written, in order)."""
    first, second = (words + ["", ""])[:2]
    named = second[:1].isupper()  # `Is Tom here`
    first, second = first.lower(), second.lower()
    if first == "what" and second in ("a", "an"):
        return "!"
    subject = (second in SUBJECT_STARTS or named) and second not in OBJECT_AFTER.get(first, ())
    subject = subject and second in ASKS_ONLY_WITH.get(first, (second,))
    if first.split("'")[0] in QUESTION_WORDS:  # `where`, `where's`, `where'd`
        return "." if subject and "'" not in first else "?"  # `When I got home` opens a statement
    return "?" if first in AUXILIARIES and subject else "."


def read_run(sentence: str) -> tuple[str, str]:
    """`sentence` with the run of end marks it ends with as the one mark the corpus writes for it (`?`
    where the run has one, else `!`, and `.` for an ellipsis), and the run; `(sentence, "")` without one."""
    match = RUN.search(sentence)
    if match is None:
        return sentence, ""
    run = match.group(1)
    return sentence[: match.start()] + run_mark(run) + sentence[match.end() :], run


def run_mark(run: str) -> str:
    """The one mark the corpus writes for a run of end marks."""
    return "?" if "?" in run else "!" if "!" in run else "."


def with_run(translation: str, run: str) -> str:
    """`translation` ending in the typed `run` in place of its own end mark, before its closing quotes
    and brackets; a space before a run of `!` and `?`, as French writes them."""
    if not run:
        return translation
    end = TRAILING.search(translation).start()
    body = translation[:end].rstrip(".!?…").rstrip()
    return body + (" " if body and run[0] in "!?" else "") + run + translation[end:]


class EndRun:
    """Reads a run of end marks as the corpus's one mark (`read_run`); writes the run back (`with_run`)."""

    name = "end_run"

    def read(self, sentence: Sentence, context: Context) -> Sentence:
        return sentence.read(self, *read_run(sentence.text))

    def write(self, draft: Draft, sentence: Sentence, context: Context) -> Draft:
        return replace(draft, text=with_run(draft.text, sentence.record[self.name]))


class EndMark(Step):
    """Reads a sentence typed without its end mark with the one the corpus would write (`with_end_mark`); the
    translation keeps the mark the model writes."""

    name = "end_mark"

    def read(self, sentence: Sentence, context: Context) -> Sentence:
        return sentence.read(self, with_end_mark(sentence.text))
