"""Translating input of any length a chunk of lines at a time (`attention-lab translate`): memory holds one
chunk's sentences and translations, never the whole input, and each chunk's translations can be written before
the next is read. Blank lines stay blank; lines count from 1 across chunks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import islice

from attention_lab.errors import UserError
from attention_lab.inference.refusals import NotText, SourceTooLong
from attention_lab.inference.translator import SearchParams, Translation, Translator
from attention_lab.text.glossary import Glossary

CHUNK_LINES = 1024  # sorted by length within a chunk: 8 full batches at the default --batch-size


def decoded_lines(name: str, stream: Iterable[str | bytes]) -> Iterator[str]:
    """The lines of `stream` as `str.splitlines` splits its whole text: bytes read as UTF-8, and a
    byte-order mark at the start is not text."""
    for number, raw in enumerate(stream, 1):
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise UserError(f"{name}: line {number}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        yield from (raw.removeprefix("\ufeff") if number == 1 else raw).splitlines()


def chunked(lines: Iterable[str], size: int = CHUNK_LINES) -> Iterator[list[str]]:
    """`lines` in lists of `size`; none for no lines (empty input is no error for a filter)."""
    rest = iter(lines)
    return iter(lambda: list(islice(rest, size)), [])


def translated_lines(translator: Translator, chunks: Iterable[list[str]], search: SearchParams, maps: bool = False,
                     progress: Callable[[int], object] | None = None,
                     glossary: Glossary | None = None) -> Iterator[Translation | None]:
    """Each line's translation in order, None for a blank line, with `glossary`'s terms. A line refused
    (`SourceTooLong`, `NotText`) is named by its index (from 0) in the whole input."""
    start = 0
    for lines in chunks:
        indices = [i for i, line in enumerate(lines) if line.strip()]
        try:
            results = translator.translate([lines[i] for i in indices], search, maps=maps,
                                           progress=progress, glossary=glossary) if indices else []
        except (SourceTooLong, NotText) as exc:
            raise exc.at(start + indices[exc.index]) from None
        if progress is not None:
            progress(len(lines) - len(indices))  # the blank lines
        translated = dict(zip(indices, results))
        yield from (translated.get(i) for i in range(len(lines)))
        start += len(lines)


def count_lines(path: str) -> int:
    """Lines in the file at `path`, counted in blocks, for the bar's total."""
    with open(path, "rb") as file:
        blocks = iter(lambda: file.read(2**20), b"")
        count, last = 0, b"\n"
        for block in blocks:
            count, last = count + block.count(b"\n"), block[-1:]
    return count + (last != b"\n")
