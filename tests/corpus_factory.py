"""A tiny, learnable English-French corpus in the layout of d2l's fra-eng.zip."""

from __future__ import annotations

import itertools
import zipfile
from pathlib import Path

SUBJECTS = [("i", "je"), ("you", "tu"), ("he", "il"), ("she", "elle"), ("we", "nous")]
VERBS = [("see", "vois", "voit", "voyons"), ("want", "veux", "veut", "voulons"),
         ("take", "prends", "prend", "prenons"), ("like", "aime", "aime", "aimons")]
OBJECTS = [("the cat", "le chat"), ("the dog", "le chien"), ("the car", "la voiture"),
           ("the house", "la maison"), ("the bread", "le pain"), ("the book", "le livre")]


def conjugate(subject: str, verb: tuple[str, str, str, str]) -> str:
    _, first, third, plural = verb
    return {"je": first, "tu": first, "il": third, "elle": third, "nous": plural}[subject]


def pairs() -> list[tuple[str, str]]:
    """120 (English, French) pairs such as ("She takes the car.", "Elle prend la voiture.")."""
    out = []
    for (en_s, fr_s), verb, (en_o, fr_o) in itertools.product(SUBJECTS, VERBS, OBJECTS):
        en_v = verb[0] + ("s" if en_s in ("he", "she") else "")
        fr = f"{fr_s} {conjugate(fr_s, verb)} {fr_o}."
        fr = fr[0].upper() + fr[1:]
        out.append((f"{en_s.capitalize()} {en_v} {en_o}.", fr))
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
