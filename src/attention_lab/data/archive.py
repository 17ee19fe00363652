"""Safe reading of the corpus archive `fra-eng.zip` and its content checksum."""

from __future__ import annotations

import copy
import hashlib
import re
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from attention_lab.errors import UserError

MEMBERS = ("fra-eng/fra.txt", "fra.txt")
D2L_SHA256 = "0bb85dbaa1c896844649094d7eaf2e34bee34e84fe362b26ce7e8f2e12aae104"
_CHUNK = 1 << 20  # bytes inflated per read


class CorpusError(UserError):
    pass


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
            # zipfile stops at the declared size and then fails the CRC, so a header that
            # understates the size would read as merely "corrupt" and the count below could never
            # fire. Declaring more than the loop can read before it stops lets it count real bytes.
            declared = copy.copy(info)
            declared.file_size = max_bytes + _CHUNK + 1
            chunks, total = [], 0
            with archive.open(declared) as handle:
                while chunk := handle.read(_CHUNK):
                    total += len(chunk)
                    if total > max_bytes:
                        raise CorpusError(f"{zip_path}: member {member} inflates past the "
                                          f"{max_bytes}-byte cap (corpus.max_uncompressed_mb)")
                    chunks.append(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
        # RuntimeError: an encrypted member ("password required")
        raise CorpusError(f"{zip_path}: corrupt, truncated or not a zip archive ({exc})") from None
    return b"".join(chunks)


def verify_sha256(data: bytes, expected: str | None, source: str) -> str:
    actual = hashlib.sha256(data).hexdigest()
    if expected is not None and actual != expected:
        raise CorpusError(f"{source}: sha256 of fra.txt is {actual}, expected {expected} "
                          "(corpus.sha256; set it to null to accept any corpus)")
    return actual
