"""The `split` stage's work: corpus lines -> cleaned (English, French) pairs -> seeded
train/valid/test splits grouped by English sentence, stored as parquet."""

from __future__ import annotations

import codecs
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from attention_lab.atomic import atomic_path, write_json
from attention_lab.config import param, seed_param, to_dict
from attention_lab.data.archive import (
    D2L_SHA256,
    CorpusError,
    read_corpus,
    verify_sha256,
)
from attention_lab.data.cleaning import clean, normalize_words

SPLITS = ("train", "valid", "test")
MALFORMED = ("no_tab", "empty_side", "not_utf8")
REASONS = {"no_tab": "no tab between English and French", "empty_side": "an empty side",
           "not_utf8": "not UTF-8", "too_long": "a side over split.max_tokens words"}


@dataclass(frozen=True)
class CorpusParams:
    sha256: str | None = D2L_SHA256  # of the extracted fra.txt; null accepts any corpus
    max_uncompressed_mb: float = param(100.0, gt=0)

    def validate(self) -> None:
        if self.sha256 is not None and not re.fullmatch(r"[0-9a-f]{64}", self.sha256):
            raise ValueError(f"sha256: expected 64 lowercase hex digits, got {self.sha256!r}")


@dataclass(frozen=True)
class SplitParams:
    max_pairs: int | None = param(None, ge=1)  # first N lines of fra.txt, like d2l's num_examples
    max_tokens: int | None = param(None, ge=1)  # drop pairs with a side of more words; null = keep all
    valid_fraction: float = param(0.05, ge=0, lt=1)  # of the distinct English sentences
    test_fraction: float = param(0.05, ge=0, lt=1)
    seed: int = seed_param()

    def validate(self) -> None:
        if self.valid_fraction + self.test_fraction >= 1:
            raise ValueError("test_fraction: valid_fraction + test_fraction must be < 1, got "
                             f"{self.valid_fraction} + {self.test_fraction}")


def word_count(text: str) -> int:
    return len(normalize_words(text, lowercase=False).split())


def parse_pairs(data: bytes, params: SplitParams) -> tuple[list[tuple[str, str]], dict]:
    """Cleaned (English, French) pairs from `English<TAB>French[<TAB>attribution]` lines.

    Malformed lines are skipped and counted by reason, never fatal; `first_lines` gives the number
    of the first line skipped for each reason, so a report points at one. A UTF-8 byte-order mark
    and CRLF line ends are read as if absent.
    """
    pairs: list[tuple[str, str]] = []
    skipped: Counter[str] = Counter()
    first: dict[str, int] = {}
    lines = data.removeprefix(codecs.BOM_UTF8).split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if params.max_pairs is not None:
        lines = lines[: params.max_pairs]
    for number, raw in enumerate(lines, 1):
        reason = None
        try:
            columns = raw.rstrip(b"\r").decode("utf-8").split("\t")
        except UnicodeDecodeError:
            reason = "not_utf8"
        else:
            src, tgt = (clean(c) for c in columns[:2]) if len(columns) >= 2 else ("", "")
            if len(columns) < 2:
                reason = "no_tab"
            elif not src or not tgt:
                reason = "empty_side"
            elif params.max_tokens is not None and max(word_count(src), word_count(tgt)) > params.max_tokens:
                reason = "too_long"
        if reason is None:
            pairs.append((src, tgt))
        else:
            skipped[reason] += 1
            first.setdefault(reason, number)
    stats = {"lines_read": len(lines),
             "malformed": {k: skipped[k] for k in MALFORMED},
             "filtered": {"too_long": skipped["too_long"]},
             "first_lines": first,
             "pairs": len(pairs)}
    return pairs, stats


def skipped_lines(stats: dict) -> list[str]:
    """One line per reason lines were skipped, naming the first such line."""
    counts = {**stats["malformed"], **stats["filtered"]}
    return [f"{counts[reason]} line(s) skipped: {REASONS[reason]} (first: line {line})"
            for reason, line in sorted(stats["first_lines"].items(), key=lambda item: item[1])]


def split_by_source(pairs: list[tuple[str, str]], valid_fraction: float, test_fraction: float,
                    seed: int) -> dict[str, pd.DataFrame]:
    """Seeded train/valid/test split grouped by English sentence: all references of a source stay
    together, so no source is in two splits and the test split is multi-reference. Sources that
    differ only in case or spacing (`Go.`, `go .`) count as one."""
    keys = [normalize_words(src) for src, _ in pairs]
    sources = list(dict.fromkeys(keys))
    order = np.random.default_rng(seed).permutation(len(sources))

    def size(fraction: float) -> int:
        return max(1, round(fraction * len(sources))) if fraction > 0 else 0

    n_test, n_valid = size(test_fraction), size(valid_fraction)
    if n_test + n_valid >= len(sources):
        raise CorpusError(f"only {len(sources)} distinct source sentences: too few to hold out "
                          f"{n_valid} for valid and {n_test} for test")
    split_of = {}
    for rank, index in enumerate(order):
        split_of[sources[index]] = "test" if rank < n_test else "valid" if rank < n_test + n_valid else "train"
    frame = pd.DataFrame(pairs, columns=["src", "tgt"])
    split = pd.Series(keys).map(split_of)
    return {name: frame[split == name].reset_index(drop=True) for name in SPLITS}


def length_stats(sentences: pd.Series) -> dict[str, float]:
    """Words per sentence (d2l's tokens): mean, median, 95th percentile, maximum."""
    lengths = np.array([word_count(s) for s in sentences])
    if len(lengths) == 0:
        return {"mean": 0.0, "p50": 0.0, "p95": 0.0, "max": 0}
    return {"mean": round(float(lengths.mean()), 3), "p50": float(np.percentile(lengths, 50)),
            "p95": float(np.percentile(lengths, 95)), "max": int(lengths.max())}


def split_corpus(zip_path: str | Path, corpus: CorpusParams,
                    params: SplitParams) -> tuple[dict[str, pd.DataFrame], dict]:
    """Read, verify, parse and split the corpus; returns the split frames and the stage report."""
    data = read_corpus(zip_path, int(corpus.max_uncompressed_mb * 2**20))
    sha256 = verify_sha256(data, corpus.sha256, str(zip_path))
    pairs, report = parse_pairs(data, params)
    if not pairs:
        why = f" ({'; '.join(skipped_lines(report))})" if report["lines_read"] else ""
        raise CorpusError(f"{zip_path}: no usable sentence pairs among {report['lines_read']} lines{why}")
    splits = split_by_source(pairs, params.valid_fraction, params.test_fraction, params.seed)
    report = {"sha256": sha256, **report, "splits": {
        name: {"pairs": len(frame), "sources": len(references(frame)),
               "src_words": length_stats(frame["src"]), "tgt_words": length_stats(frame["tgt"])}
        for name, frame in splits.items()}}
    return splits, report


def save_splits(directory: str | Path, splits: dict[str, pd.DataFrame], params: SplitParams) -> None:
    """The split files, plus the settings they were made with (`settings.json`), which training
    records with its run."""
    for name, frame in splits.items():
        with atomic_path(Path(directory) / f"{name}.parquet") as tmp:
            frame.to_parquet(tmp, index=False)
    write_json(Path(directory) / "settings.json", to_dict(params))


def load_split(directory: str | Path, name: str) -> pd.DataFrame:
    path = Path(directory) / f"{name}.parquet"
    try:
        frame = pd.read_parquet(path)
    except FileNotFoundError:
        raise CorpusError(f"{path}: no such split (run the split stage first)") from None
    except Exception as exc:  # pyarrow raises several unrelated types for unreadable files
        raise CorpusError(f"{path}: unreadable parquet file ({exc})") from None
    if list(frame.columns) != ["src", "tgt"]:
        raise CorpusError(f"{path}: expected columns ['src', 'tgt'], got {list(frame.columns)}")
    return frame


def references(split: pd.DataFrame) -> pd.Series:
    """Each distinct source (index: its first spelling) with the list of all its references
    (values), in file order; sources differing only in case or spacing are one, as in the split."""
    keys = split["src"].map(normalize_words)
    grouped = split.groupby(keys, sort=False)
    return pd.Series(list(grouped["tgt"].agg(list)), index=pd.Index(grouped["src"].first(), name="src"), name="tgt")
