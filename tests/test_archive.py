"""Tests for safe corpus-archive reading (attention_lab.data.archive).

Each refusal asserts its own message, so a check that stops working cannot hide behind another
check that happens to refuse the same archive for a different reason. Archives are built here,
tiny (a cap of a few KB stands in for corpus.max_uncompressed_mb).
"""

from __future__ import annotations

import hashlib
import io
import struct
import zipfile
from pathlib import Path

import pytest

from attention_lab.data.archive import CorpusError, read_corpus, verify_sha256

CAP = 4000  # bytes; small, so a "bomb" is a few KB
TEXT = "".join(f"line {i}\tligne {i}\n" for i in range(150)).encode()  # ~2.7 KB, under CAP
MEMBER = "fra-eng/fra.txt"


def write(path: Path, members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def corpus_zip(path: Path, data: bytes = TEXT, compression: int = zipfile.ZIP_DEFLATED) -> Path:
    return write(path, {"fra-eng/_about.txt": b"test corpus", MEMBER: data}, compression)


def local_data_offset(raw: bytes, member: str) -> int:
    """Where the member's (compressed) data starts: after its local header and name/extra fields."""
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        start = archive.getinfo(member).header_offset
    name_len, extra_len = struct.unpack_from("<HH", raw, start + 26)
    return start + 30 + name_len + extra_len


def declare_size(path: Path, member: str, size: int) -> None:
    """Overwrite the member's uncompressed size in BOTH its local header and its central-directory
    entry, leaving the data and CRC intact: only counting inflated bytes can tell it lies."""
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
    assert not info.flag_bits & 0x08  # sizes live in the headers, not in a data descriptor
    local = info.header_offset
    assert raw[local : local + 4] == b"PK\x03\x04"
    struct.pack_into("<I", raw, local + 22, size)
    (directory,) = struct.unpack_from("<I", raw, len(raw) - 22 + 16)  # end record, no comment
    while raw[directory : directory + 4] == b"PK\x01\x02":
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", raw, directory + 28)
        if raw[directory + 46 : directory + 46 + name_len].decode() == member:
            struct.pack_into("<I", raw, directory + 24, size)
            break
        directory += 46 + name_len + extra_len + comment_len
    else:
        raise AssertionError(f"{member} not in the central directory")
    path.write_bytes(bytes(raw))
    with zipfile.ZipFile(path) as archive:
        assert archive.getinfo(member).file_size == size  # the lie is what zipfile now believes


def refused(path: Path, message: str, cap: int = CAP) -> None:
    """read_corpus refuses `path` with exactly this message (after the path)."""
    with pytest.raises(CorpusError) as caught:
        read_corpus(path, cap)
    assert str(caught.value) == f"{path}: {message}"


# ---------------------------------------------------------------------------------------------
# What is accepted.


@pytest.mark.parametrize("member", [MEMBER, "fra.txt"])
@pytest.mark.parametrize("compression", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED], ids=["deflated", "stored"])
def test_reads_both_layouts_and_compressions(tmp_path, member, compression):
    path = write(tmp_path / "a.zip", {"fra-eng/_about.txt": b"x", member: TEXT}, compression)
    assert read_corpus(path, CAP) == TEXT


def test_a_member_of_exactly_the_cap_is_accepted_even_when_its_header_understates_it(tmp_path):
    # The cap counts the bytes really inflated; the header's claim neither helps nor hurts.
    data = (TEXT * 2)[:CAP]
    path = corpus_zip(tmp_path / "edge.zip", data)
    assert read_corpus(path, CAP) == data
    declare_size(path, MEMBER, 10)
    assert read_corpus(path, CAP) == data


# ---------------------------------------------------------------------------------------------
# Zip bombs: the header check, and the streaming count when the header lies.


def test_header_check_refuses_a_member_declared_over_the_cap(tmp_path):
    data = b"a\tb\n" * CAP  # 16 KB of text compresses to a few dozen bytes
    path = corpus_zip(tmp_path / "bomb.zip", data)
    assert path.stat().st_size < 500
    refused(path, f"member {MEMBER} inflates to {len(data)} bytes, over the {CAP}-byte cap "
                  "(corpus.max_uncompressed_mb)")


@pytest.mark.parametrize("claimed", [0, 1000, CAP])
def test_streaming_count_refuses_a_member_whose_headers_understate_its_size(tmp_path, claimed):
    # Both headers claim at most the cap, so the header check passes; the deflated data inflates to
    # four times the cap and must be stopped by the count kept while reading, not reported as a
    # CRC error from zipfile (which stops reading at the declared size).
    path = corpus_zip(tmp_path / "liar.zip", b"a\tb\n" * CAP)
    declare_size(path, MEMBER, claimed)
    refused(path, f"member {MEMBER} inflates past the {CAP}-byte cap (corpus.max_uncompressed_mb)")


# ---------------------------------------------------------------------------------------------
# Zip slip: any unsafe name refuses the whole archive, even with a good corpus member beside it.


@pytest.mark.parametrize("name", ["../../etc/evil", "fra-eng/../../x", "/etc/fra.txt", "C:/fra.txt",
                                  "c:fra.txt", "..\\..\\evil", "\\evil", "fra-eng\\..\\..\\evil"])
def test_refuses_unsafe_member_names(tmp_path, name):
    path = write(tmp_path / "slip.zip", {MEMBER: TEXT, name: b"x"})
    with zipfile.ZipFile(path) as archive:
        assert name in archive.namelist()  # zipfile keeps the name as written: the check must see it
    refused(path, f"refusing archive with unsafe member name {name!r}")


@pytest.mark.parametrize("name", ["fra-eng/..x/fra.txt", "fra-eng/a..b", "fra-eng/c:d"])
def test_names_that_only_look_unsafe_are_accepted(tmp_path, name):
    assert read_corpus(write(tmp_path / "ok.zip", {MEMBER: TEXT, name: b"x"}), CAP) == TEXT


# ---------------------------------------------------------------------------------------------
# Missing file or member, corrupt archives.


def test_missing_file(tmp_path):
    refused(tmp_path / "absent.zip", "no such corpus file")


def test_missing_member_lists_what_was_found(tmp_path):
    path = write(tmp_path / "m.zip", {"fra-eng/_about.txt": b"x", "fra-eng/other.txt": TEXT})
    refused(path, "no member fra-eng/fra.txt or fra.txt (found fra-eng/_about.txt, fra-eng/other.txt)")
    refused(write(tmp_path / "empty.zip", {}), "no member fra-eng/fra.txt or fra.txt (found none)")


@pytest.mark.parametrize("content", [b"", b"English\tFrench\n", b"PK\x03\x04" + b"\0" * 40],
                         ids=["empty", "text", "bare-local-header"])
def test_not_a_zip(tmp_path, content):
    path = tmp_path / "x.zip"
    path.write_bytes(content)
    refused(path, "corrupt, truncated or not a zip archive (File is not a zip file)")


def test_truncated(tmp_path):
    raw = corpus_zip(tmp_path / "ok.zip").read_bytes()
    path = tmp_path / "cut.zip"
    path.write_bytes(raw[: len(raw) // 2])  # the central directory is at the end: gone
    refused(path, "corrupt, truncated or not a zip archive (File is not a zip file)")


def test_corrupt_stored_data_fails_the_crc(tmp_path):
    path = corpus_zip(tmp_path / "bad.zip", compression=zipfile.ZIP_STORED)
    raw = bytearray(path.read_bytes())
    raw[local_data_offset(bytes(raw), MEMBER) + 5] ^= 0x01  # one bit of the text itself
    path.write_bytes(bytes(raw))
    refused(path, f"corrupt, truncated or not a zip archive (Bad CRC-32 for file '{MEMBER}')")


def test_corrupt_deflate_stream(tmp_path):
    path = corpus_zip(tmp_path / "bad.zip")
    raw = bytearray(path.read_bytes())
    raw[local_data_offset(bytes(raw), MEMBER)] = 0xFF  # first deflate block: final, reserved type 3
    path.write_bytes(bytes(raw))
    refused(path, "corrupt, truncated or not a zip archive (Error -3 while decompressing data: "
                  "invalid block type)")


# ---------------------------------------------------------------------------------------------
# Checksum.


def test_verify_sha256():
    data = b"abc"
    digest = hashlib.sha256(data).hexdigest()
    assert verify_sha256(data, digest, "x") == digest
    assert verify_sha256(data, None, "x") == digest
    with pytest.raises(CorpusError) as caught:
        verify_sha256(data, "0" * 64, "x")
    assert str(caught.value) == (f"x: sha256 of fra.txt is {digest}, expected {'0' * 64} "
                                 "(corpus.sha256; set it to null to accept any corpus)")
