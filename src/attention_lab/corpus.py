"""The English-French corpus: safe reading of `fra-eng.zip`, d2l normalisation, grouped splits.

Follows d2l §10.5 (machine translation data): `\\u202f`/`\\xa0` become spaces, text is lowercased
and a space is put before `, . ! ?`; tokens are space-separated and French elisions (`j'ai`)
stay one token.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd

from attention_lab.atomic import atomic_path, write_json
from attention_lab.config import from_mapping, param, to_dict
from attention_lab.errors import UserError

MEMBERS = ("fra-eng/fra.txt", "fra.txt")
SPLITS = ("train", "valid", "test")
D2L_SHA256 = "0bb85dbaa1c896844649094d7eaf2e34bee34e84fe362b26ce7e8f2e12aae104"


class CorpusError(UserError):
    pass


@dataclass(frozen=True)
class CorpusParams:
    sha256: str | None = D2L_SHA256  # of the extracted fra.txt; null accepts any corpus
    max_uncompressed_mb: float = param(100.0, gt=0)

    def validate(self) -> None:
        if self.sha256 is not None and not re.fullmatch(r"[0-9a-f]{64}", self.sha256):
            raise ValueError(f"sha256: expected 64 lowercase hex digits, got {self.sha256!r}")


@dataclass(frozen=True)
class TokenizeParams:
    lowercase: bool = True
    max_pairs: int | None = param(None, ge=1)  # first N lines of fra.txt, like d2l's num_examples
    max_tokens: int | None = param(None, ge=1)  # drop pairs with a longer side
    valid_fraction: float = param(0.05, ge=0, lt=1)  # of the distinct English sentences
    test_fraction: float = param(0.05, ge=0, lt=1)
    seed: int = 0

    def validate(self) -> None:
        if self.valid_fraction + self.test_fraction >= 1:
            raise ValueError("test_fraction: valid_fraction + test_fraction must be < 1, got "
                             f"{self.valid_fraction} + {self.test_fraction}")


# ---------------------------------------------------------------------------------------------
# Reading the archive


def _unsafe(name: str) -> bool:
    parts = PurePosixPath(name.replace("\\", "/")).parts
    return name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) is not None or ".." in parts


def read_corpus(zip_path: str | Path, max_bytes: int) -> bytes:
    """The bytes of `fra-eng/fra.txt` (or a top-level `fra.txt`) inside `zip_path`.

    Refuses archives with absolute or `..` member names (zip slip) and members that inflate past
    `max_bytes` (zip bomb; counted while reading, so a lying header does not help).
    """
    zip_path = Path(zip_path)
    if not zip_path.is_file():
        raise CorpusError(f"{zip_path}: no such corpus file")
    try:
        with zipfile.ZipFile(zip_path) as archive:
            names = archive.namelist()
            bad = next((n for n in names if _unsafe(n)), None)
            if bad is not None:
                raise CorpusError(f"{zip_path}: refusing archive with unsafe member name {bad!r}")
            member = next((m for m in MEMBERS if m in names), None)
            if member is None:
                raise CorpusError(f"{zip_path}: no member {' or '.join(MEMBERS)} "
                                  f"(found {', '.join(names[:5]) or 'none'})")
            info = archive.getinfo(member)
            if info.file_size > max_bytes:
                raise CorpusError(f"{zip_path}: member {member} inflates to {info.file_size} bytes, "
                                  f"over the {max_bytes}-byte cap (corpus.max_uncompressed_mb)")
            chunks, total = [], 0
            with archive.open(info) as handle:
                while chunk := handle.read(1 << 20):
                    total += len(chunk)
                    if total > max_bytes:
                        raise CorpusError(f"{zip_path}: member {member} inflates past the "
                                          f"{max_bytes}-byte cap (corpus.max_uncompressed_mb)")
                    chunks.append(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as exc:
        raise CorpusError(f"{zip_path}: corrupt, truncated or not a zip archive ({exc})") from None
    return b"".join(chunks)


def verify_sha256(data: bytes, expected: str | None, source: str) -> str:
    actual = hashlib.sha256(data).hexdigest()
    if expected is not None and actual != expected:
        raise CorpusError(f"{source}: sha256 of fra.txt is {actual}, expected {expected} "
                          "(corpus.sha256; set it to null to accept any corpus)")
    return actual


# ---------------------------------------------------------------------------------------------
# Normalisation and tokenization

_TRANSLATE = str.maketrans({"\u202f": " ", "\xa0": " ", "\u2019": "'"})
_SPACE_BEFORE = re.compile(r"(?<! )([,.!?])")  # d2l: a space before , . ! ? unless there is one
_SPACE_AROUND = re.compile(r"([«»\"“”;:()\[\]…¡¿])")  # other punctuation becomes its own token
_ATTACH_LEFT = (".", ",", ")", "]", "…")  # detokenize: these stick to the previous token
_ATTACH_RIGHT = ("(", "[")  # ... and the next token sticks to these


def normalize(text: str, lowercase: bool = True) -> str:
    """d2l's `preprocess_nmt`, plus spacing of other punctuation: `Go.` -> `go .`."""
    text = text.translate(_TRANSLATE)
    if lowercase:
        text = text.lower()
    text = _SPACE_AROUND.sub(r" \1 ", _SPACE_BEFORE.sub(r" \1", text))
    return " ".join(text.split())


def detokenize(tokens: list[str]) -> str:
    """Tokens back to text in the corpus' conventions: `j'ai perdu .` -> `j'ai perdu.`, `va !` stays."""
    text = ""
    for token in tokens:
        if text and not token.startswith(_ATTACH_LEFT) and not text.endswith(_ATTACH_RIGHT):
            text += " "
        text += token
    return text


# ---------------------------------------------------------------------------------------------
# Parsing and splitting


def parse_pairs(data: bytes, params: TokenizeParams) -> tuple[list[tuple[str, str]], dict]:
    """Normalised (English, French) pairs from `English<TAB>French[<TAB>attribution]` lines.

    Malformed lines are skipped and counted by reason, never fatal.
    """
    pairs: list[tuple[str, str]] = []
    malformed: Counter[str] = Counter()
    too_long = 0
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if params.max_pairs is not None:
        lines = lines[: params.max_pairs]
    for raw in lines:
        try:
            line = raw.rstrip(b"\r").decode("utf-8")
        except UnicodeDecodeError:
            malformed["not_utf8"] += 1
            continue
        columns = line.split("\t")
        if len(columns) < 2:
            malformed["no_tab"] += 1
            continue
        src, tgt = (normalize(c, params.lowercase) for c in columns[:2])
        if not src or not tgt:
            malformed["empty_side"] += 1
            continue
        if params.max_tokens is not None and max(len(src.split()), len(tgt.split())) > params.max_tokens:
            too_long += 1
            continue
        pairs.append((src, tgt))
    stats = {"lines_read": len(lines),
             "malformed": {k: malformed[k] for k in ("no_tab", "empty_side", "not_utf8")},
             "filtered": {"too_long": too_long},
             "pairs": len(pairs)}
    return pairs, stats


def split_by_source(pairs: list[tuple[str, str]], valid_fraction: float, test_fraction: float,
                    seed: int) -> dict[str, pd.DataFrame]:
    """Seeded train/valid/test split grouped by English sentence: all references of a source stay
    together, so no source is in two splits and the test split is multi-reference."""
    sources = list(dict.fromkeys(src for src, _ in pairs))
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
    split = frame["src"].map(split_of)
    return {name: frame[split == name].reset_index(drop=True) for name in SPLITS}


def length_stats(sentences: pd.Series) -> dict[str, float]:
    lengths = sentences.str.split().str.len().to_numpy()
    if len(lengths) == 0:
        return {"mean": 0.0, "p50": 0.0, "p95": 0.0, "max": 0}
    return {"mean": round(float(lengths.mean()), 3), "p50": float(np.percentile(lengths, 50)),
            "p95": float(np.percentile(lengths, 95)), "max": int(lengths.max())}


def tokenize_corpus(zip_path: str | Path, corpus: CorpusParams,
                    params: TokenizeParams) -> tuple[dict[str, pd.DataFrame], dict]:
    """Read, verify, parse and split the corpus; returns the split frames and the stage report."""
    data = read_corpus(zip_path, int(corpus.max_uncompressed_mb * 2**20))
    sha256 = verify_sha256(data, corpus.sha256, str(zip_path))
    pairs, report = parse_pairs(data, params)
    if not pairs:
        raise CorpusError(f"{zip_path}: no usable sentence pairs among {report['lines_read']} lines")
    splits = split_by_source(pairs, params.valid_fraction, params.test_fraction, params.seed)
    report = {"sha256": sha256, **report, "splits": {
        name: {"pairs": len(frame), "sources": int(frame["src"].nunique()),
               "src_tokens": length_stats(frame["src"]), "tgt_tokens": length_stats(frame["tgt"])}
        for name, frame in splits.items()}}
    return splits, report


def save_splits(directory: str | Path, splits: dict[str, pd.DataFrame], params: TokenizeParams) -> None:
    """The split files, plus the settings later stages must match (e.g. lowercasing)."""
    for name, frame in splits.items():
        with atomic_path(Path(directory) / f"{name}.parquet") as tmp:
            frame.to_parquet(tmp, index=False)
    write_json(Path(directory) / "settings.json", to_dict(params))


def load_settings(directory: str | Path) -> TokenizeParams:
    path = Path(directory) / "settings.json"
    try:
        return from_mapping(TokenizeParams, json.loads(path.read_text(encoding="utf-8")), str(path))
    except FileNotFoundError:
        raise CorpusError(f"{path}: missing (run the tokenize stage first)") from None
    except ValueError as exc:
        raise CorpusError(f"{path}: not valid JSON ({exc})") from None


def load_split(directory: str | Path, name: str) -> pd.DataFrame:
    path = Path(directory) / f"{name}.parquet"
    try:
        frame = pd.read_parquet(path)
    except FileNotFoundError:
        raise CorpusError(f"{path}: no such split (run the tokenize stage first)") from None
    except Exception as exc:  # pyarrow raises several unrelated types for unreadable files
        raise CorpusError(f"{path}: unreadable parquet file ({exc})") from None
    if list(frame.columns) != ["src", "tgt"]:
        raise CorpusError(f"{path}: expected columns ['src', 'tgt'], got {list(frame.columns)}")
    return frame
