"""Characters the model cannot read, and text no translation may change, carried around it: taken out of a
sentence before it is encoded and put back where attention sent the word next to them (design.md: What the
translator prints; measured in docs/trust.md). A caller may carry more spans as typed (text/names.py's `codes`).

Carried: characters no token of the source vocabulary holds (`Codec.reads`), whole grapheme clusters at a time
(👨‍👩‍👧, 🇫🇷), and `VERBATIM` text although the model reads its characters. A run goes back next to the output
word of the source word it touched (the output piece whose attention sums most over that word's pieces; by
relative position where pieces cannot be told apart), on the same side, before that word's punctuation; one
after a clause's `,;:` after the output's same mark; one glued to a number (a minus sign, `572♥`) against the n-th
output word with that number.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import groupby

import numpy as np

from attention_lab.data.cleaning import CLUSTER, clean
from attention_lab.data.tokenizer import Codec


@dataclass(frozen=True)
class Carried:
    text: str  # a run of characters the model cannot read, or of `VERBATIM` text
    word: int | None  # the word of the sentence left that it goes with; None: a sentence edge
    after: bool  # it follows that word (else precedes it); with no word: the end (else the start)
    attached: bool  # no space between it and that word
    inside: bool = False  # right after the word's letters or digits (`OK♥.`, `9¾`), before any punctuation of it


CLOSING = ".,!?;:…)]}»%"  # punctuation written against the word before it
CLOSING_WORDS = frozenset("!?;:")  # ... except in French, which writes these as words of their own
# A web address ends before the punctuation after it (`Go to example.com.`); a bare domain needs a
# known ending, so that `home.then` (a missing space) is no address. Each starts a word (the lookbehinds),
# which also keeps a long line of `-1-1-1…` from being tried at every position. A minus sign follows a
# space or a quote (text/quotes.py) or begins the sentence: `3:-2`, `x=-5` and `(555)-123` are left
# to the model. A line typed in capitals or Title Case has addresses too (`WWW.EXAMPLE.COM`,
# `Www.Example.Com`), but a domain's ending is in small letters or capitals only: `Mr.De Niro` and
# `tired.Net profit` are a missing space.
_ENDINGS = "com|org|net|edu|gov|io|info|fr|uk|ca|de"
# A phone number has at most seven groups: an unbounded run was tried from each group of a long line of them. After
# a `+` its country code, then any groups of seven digits at least (`+33 1 42 68 53 00`, `+1 555 123 4567`): the
# model read the code and a group, the rest was carried.
# A number with a vulgar fraction after it is one amount (`3½`, `9 ¾`), carried whole: the model read its digits
# alone (`3 minutes`), another amount. Cleaning keeps the fractions as typed (data/cleaning.py).
FRACTIONS = "¼½¾\u2150-\u215e"  # `¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞`
# A version may begin with `v` and end with a label (`v1.2.3`, `1.2.3-beta`); `1.2.3.tar` is a file's name.
DOTTED_CHAIN = r"(?<![\w.])[vV]?[0-9]+(?:\.[0-9]+){2,}(?:-[A-Za-z0-9]+)?(?![\w@-]|\.\w)"
VERBATIM = re.compile(rf"""
    (?<![\w.])(?i:https?://|www\.)[^\s<>"“”]*[^\s<>"“”.,!?;:'’)\]}}»]                 # a web address
  | (?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+                                        # an e-mail address
  | (?<![\w.-])[\w-]+(?:\.[\w-]+)*\.(?:{_ENDINGS}|{_ENDINGS.upper()})\b(?![\w@-])  # a bare domain
  | (?<![^\s«])[-−](?=[0-9])                                                       # a number's minus sign
  | {DOTTED_CHAIN}                                                                 # `1.2.3`, `192.168.1.1`
  | (?<![\w.,:/+-])(?:\+[0-9]{{1,3}}(?=(?:[\ .-]?[0-9]){{7}})(?:[\ .-][0-9]{{1,8}}){{1,6}}
                    |\+?(?:[0-9]{{2,4}}(?:[\ .-][0-9]{{2,4}}){{3,6}}|[0-9]{{3}}[\ .-][0-9]{{3}}[\ .-][0-9]{{4}}))
    (?![\w@:/-]|[.,\ ][0-9])                                             # a phone number, its `+` with it
  | (?<![\w.,:/-])[0-9]+(?:[-/][0-9]+)+(?![\w@:/-]|[.,][0-9])                      # `3-2`, `555-1234`, `1/2`
  | (?<![\w.,:/+-])[0-9]+\ ?[{FRACTIONS}]                                           # `3½`, `9 ¾`: one amount
  | (?<![\w@.])@[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*                                   # a handle: `@tom_smith`
  | (?<![\w.])(?i:etc)(?=\.)(?:\.(?=\s*[\w(),;:]))?                                # `etc` (French's too)
""", re.VERBOSE)


def joins_a_word(run: str) -> bool:
    """Whether `run` is letters (or marks) within a word, as `ï` of `naïve`, rather than a symbol between words."""
    return all(unicodedata.category(char) in ("Lu", "Ll", "Lt", "Mn", "Mc", "Me") for char in run)


def take_out(sentence: str, reads: Callable[[str], bool],
             codes: Callable[[str], Iterable[tuple[int, int]]] = lambda text: ()) -> tuple[str, tuple[Carried, ...]]:
    """The cleaned `sentence` without the characters `reads` refuses, its `VERBATIM` text and the spans `codes`
    finds in it (spaces collapsed), and their runs with the places they go back to. A run is of whole grapheme
    clusters (an emoji sequence is one); one between two words leaves a space (`Tom♥Mary` is read as `Tom Mary`),
    and none is left before punctuation (`cat 🐱.` is read as `cat.`)."""
    text = clean(sentence)
    chunks, start = [], 0  # (text, whether the model reads it): grapheme clusters and verbatim text
    spans = sorted([*(match.span() for match in VERBATIM.finditer(text)), *codes(text)])
    for span in [*spans, None]:
        if span and span[0] < start:
            continue  # inside verbatim text already taken
        stop = span[0] if span else len(text)
        chunks += [(cluster, all(map(reads, cluster))) for cluster in CLUSTER.findall(text[start:stop])]
        if span:
            chunks.append((text[span[0] : span[1]], False))
            start = span[1]
    # What the model reads, in parts, with its last character and its words counted as it grows:
    # counted by splitting it at each run, and stripped whole, it took n² steps on a line of `🐱 `.
    kept: list[str] = []
    runs, end, last, words = [], 0, "", 0
    for readable, parts in groupby(chunks, key=lambda chunk: chunk[1]):
        run = "".join(part for part, _ in parts)
        end += len(run)
        if readable:
            words += len(run.split()) - (last.strip() != "" and not run[0].isspace())  # a word run on
            kept.append(run)
            last = run[-1]
            continue
        after = text[end : end + 1]
        left, right, closing = last.strip() != "", after.strip() != "", after != "" and after in CLOSING
        runs.append((run, words, left, right, closing, last.isalnum()))
        if left and right and not closing and not joins_a_word(run):
            kept.append(" ")
            last = " "
        elif closing and not left:
            while kept and kept[-1].isspace():
                kept.pop()
            if kept:
                kept[-1] = kept[-1].rstrip()  # each part once: it ends in a word after
            last = kept[-1][-1] if kept else ""
    carried = []
    for run, before, left, right, closing, inside in runs:
        if left:
            carried.append(Carried(run, before - 1, True, True, inside))
        elif closing and before > 0:  # `cat 🐱.`: after `cat`, spaced, and the period after both
            carried.append(Carried(run, before - 1, True, False))
        elif right or 0 < before < words:
            carried.append(Carried(run, before, False, right))
        else:
            carried.append(Carried(run, None, before > 0, False))
    return " ".join("".join(kept).split()), tuple(carried)


def output_words(pieces: Sequence[str], join: Callable[[Sequence[str]], str]) -> list[int]:
    """The word of `join(pieces)` (split at spaces) each output piece falls in. A piece that writes no character
    (the bare `▁` SentencePiece writes before `à`, a digit or a capital) starts the word after it: counted with
    the word before, a symbol glued to `572` went back onto that word."""
    words = [max(len(join(pieces[: t + 1]).split()) - 1, 0) for t in range(len(pieces))]
    for t in reversed(range(len(pieces) - 1)):
        if not join([pieces[t]]).strip():
            words[t] = words[t + 1]
    return words


def output_word_of(source: str, pieces: Sequence[str], attention: np.ndarray, src: Codec,
                   join: Callable[[Sequence[str]], str]) -> Callable[[int], int] | None:
    """For a word of `source` (split at spaces), the word of `join(pieces)` whose piece attends most to
    its pieces; None where the pieces of the words cannot be told apart. attention (T, S): a row per
    output piece (and `<eos>` when emitted), a column per piece `src` reads in `source` and one for `<eos>`."""
    counts = [len(src.pieces(word)) for word in source.split()]  # pieces never span a space
    if sum(counts) != attention.shape[1] - 1 or not pieces:
        return None
    starts, of_piece = np.cumsum([0, *counts]), output_words(pieces, join)

    def word_of(k: int) -> int:
        return of_piece[int(np.argmax(attention[: len(pieces), starts[k] : starts[k + 1]].sum(axis=1)))]  # (T,)

    return word_of


def number_word(source_word: str, words: Sequence[str], before: Sequence[str] = ()) -> int | None:
    """The first of `words` that begins with the number `source_word` begins with (its first digit
    group, whole: `5` is not `50`), or the n-th where n - 1 of the source's words `before` it begin
    with it too (the last when fewer); None when `source_word` begins with no digit or no word has it.
    A run glued to the number goes back there: the search writes the number's digits
    (inference/number_constraint.py) where attention may not point, in the source's order (`from 5 to -5`:
    `de 5 à -5`, not `de -5 à 5`)."""
    first = re.match(r"[0-9]+", source_word)
    if first is None:
        return None
    starts = re.compile(rf"[^\w]*{first.group()}(?![0-9])")
    found = [i for i, word in enumerate(words) if starts.match(word)]
    return found[min(sum(bool(starts.match(word)) for word in before), len(found) - 1)] if found else None


def put_back(carried: Sequence[Carried], source: str, pieces: Sequence[str], attention: np.ndarray, src: Codec,
             tgt: Codec, recase: Callable[[str], str] = str) -> str:
    """The translation of `pieces` as text, `recase`d (the runs are not: they go back as written), with
    the runs `carried` out of `source` in place. attention (T, S): a row per output piece (and `<eos>`
    when emitted), a column per piece `src` reads in `source` and one for `<eos>`."""
    text = recase(tgt.join(pieces))
    words = text.split()
    if not carried:
        return text
    if not words:
        return " ".join(run.text for run in carried)
    source_text_words = source.split()
    # Words of the text as recased: its numbers' forms (text/number_forms.py) may join or split words.
    word_of = output_word_of(source, pieces, attention, src, lambda some: recase(tgt.join(some)))
    slots: dict[tuple[int, bool, bool], list[str]] = {}  # (output word, after, attached) -> runs, in order
    # Typed right after a word's letters or digits (`9¾`, `OK♥.`): before the output word's closing punctuation
    # (`9¾,`, `D'accord♥.`), which is the French sentence's or clause's, not the run's.
    inside: dict[int, list[str]] = {}
    edges: dict[bool, list[str]] = {False: [], True: []}
    for run in carried:
        if run.word is None:
            edges[run.after].append(run.text)
            continue
        number = (number_word(source_text_words[run.word], words, source_text_words[: run.word])
                  if run.attached else None)
        if number is not None:
            target = number
        elif word_of is not None:
            target = word_of(run.word)
            mark = source_text_words[run.word][-1]
            if run.after and run.attached and mark in ",;:":
                # After a clause's mark (`"I don't know," Tom said.`): after the output's, not inside the
                # clause where attention points (`« Je ne sais » pas, Tom a dit.`); before the next source
                # word's output word, so never into another clause.
                stop = word_of(run.word + 1) if run.word + 1 < len(source_text_words) else len(words)
                target = next((i for i in range(target, stop) if words[i].endswith(mark)), target)
        else:
            target = round(run.word / max(len(source_text_words) - 1, 1) * (len(words) - 1))
        target = min(target, len(words) - 1)
        if run.inside:
            inside.setdefault(target, []).append(run.text)
        else:
            slots.setdefault((target, run.after, run.attached), []).append(run.text)
    items = list(edges[False])
    for i, word in enumerate(words):
        core = word.rstrip(CLOSING) or word
        glued = "".join(slots.get((i, False, True), [])) + core + "".join(inside.get(i, [])) + word[len(core) :] + \
            "".join(slots.get((i, True, True), []))
        items += [*slots.get((i, False, False), [])]
        spaced = slots.get((i, True, False), [])
        body = glued.rstrip(CLOSING)
        if spaced and body:  # `chat.` and `🐱` -> `chat 🐱.`: the punctuation stays last
            items += [body, *spaced[:-1], spaced[-1] + glued[len(body) :]]
        elif spaced and glued in CLOSING_WORDS:  # French spaces `?`, `!`, `:`, `;` off: `vous 🐱 ?`
            items += [*spaced, glued]
        else:
            items += [glued, *spaced]
    return " ".join(items + edges[True])
