"""A tiny, learnable English-French corpus in the layout of d2l's fra-eng.zip, with real lengths.

Sentences run from 1 to 35 words: one-word sources with several references ("Go."), single
clauses ("She takes the car."), and clauses joined by "and" into long sentences. Some words
occur once (names), and some sources have two references, so length sorting, bucketing,
batching by tokens, evaluation buckets and multi-reference BLEU all meet what the real corpus has.
"""

from __future__ import annotations

import itertools
import random
import zipfile
from pathlib import Path

SUBJECTS = [("I", "je"), ("you", "tu"), ("he", "il"), ("she", "elle"), ("we", "nous")]
VERBS = [("see", "vois", "voit", "voyons"), ("want", "veux", "veut", "voulons"),
         ("take", "prends", "prend", "prenons"), ("like", "aime", "aime", "aimons")]
OBJECTS = [("the cat", "le chat"), ("the dog", "le chien"), ("the car", "la voiture"),
           ("the house", "la maison"), ("the bread", "le pain"), ("the book", "le livre")]
# Each of these occurs in exactly one pair: words seen once.
NAMES = ["Kowalski", "Anouk", "Bartholomew", "Zoltan", "Ingrid", "Oluwaseun"]
SHORT = [("Go.", "Va !"), ("Go.", "Bouge !"), ("Go.", "Marche."), ("Hi.", "Salut !"), ("Hi.", "Bonjour !"),
         ("Run!", "Cours !"), ("Stop!", "Arrête !"), ("Wait!", "Attends !"), ("Thanks", "Merci"),
         ("Hello", "Bonjour")]


def conjugate(subject: str, verb: tuple[str, str, str, str]) -> str:
    _, first, third, plural = verb
    return {"je": first, "tu": first, "il": third, "elle": third, "nous": plural}[subject]


def clause(subject: tuple[str, str], verb: tuple[str, str, str, str], obj: tuple[str, str]) -> tuple[str, str]:
    """("she takes the car", "elle prend la voiture"): 4 English words."""
    (en_s, fr_s), (en_o, fr_o) = subject, obj
    en_v = verb[0] + ("s" if en_s in ("he", "she") else "")
    return f"{en_s} {en_v} {en_o}", f"{fr_s} {conjugate(fr_s, verb)} {fr_o}"


def sentence(clauses: list[tuple[str, str]], now: bool = False) -> tuple[str, str]:
    en = " and ".join(c[0] for c in clauses) + (" now" if now else "") + "."
    fr = " et ".join(c[1] for c in clauses) + (" maintenant" if now else "") + "."
    return en[0].upper() + en[1:], fr[0].upper() + fr[1:]


def pairs(seed: int = 0) -> list[tuple[str, str]]:
    """About 240 (English, French) pairs of 1 to 35 words, in a seeded order."""
    rng = random.Random(seed)
    clauses = [clause(s, v, o) for s, v, o in itertools.product(SUBJECTS, VERBS, OBJECTS)]
    out = list(SHORT)
    out += [sentence([c]) for c in clauses]  # 5 words each, with the full stop
    for en, fr in rng.sample(clauses, 12):  # a second reference for some sources
        out.append(sentence([(en, "moi, " + fr if fr.startswith("je ") else fr + " aussi")]))
    for k in range(2, 8):  # 2 to 7 clauses: 10 to 35 words
        out += [sentence(rng.sample(clauses, k), now=rng.random() < 0.5) for _ in range(24 - 2 * k)]
    for name, (_, verb, obj) in zip(NAMES, rng.sample(list(itertools.product(SUBJECTS, VERBS, OBJECTS)),
                                                      len(NAMES))):
        en, fr = clause(("he", "il"), verb, obj)
        out.append((f"{name} {en.split(' ', 1)[1]}.", f"{name} {fr.split(' ', 1)[1]}."))
    rng.shuffle(out)
    return out


def corpus_text(lines: list[tuple[str, str]] | None = None, attribution: bool = False) -> bytes:
    rows = [f"{en}\t{fr}" + ("\tCC-BY 2.0 (France) Attribution: tatoeba.org" if attribution else "")
            for en, fr in (lines or pairs())]
    return ("\n".join(rows) + "\n").encode("utf-8")


def write_zip(path: Path, data: bytes | None = None, member: str = "fra-eng/fra.txt") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("fra-eng/_about.txt", "test corpus")
        archive.writestr(member, corpus_text() if data is None else data)
    return path
