import hashlib
import io
import subprocess
import sys
import zipfile

import pytest
from conftest import REPO
from corpus_factory import corpus_text, write_zip
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_lab.corpus import (
    CorpusError,
    TokenizeParams,
    detokenize,
    normalize,
    parse_pairs,
    read_corpus,
    split_by_source,
    verify_sha256,
)

MB = 2**20


@pytest.mark.parametrize("raw, expected", [
    ("Go.", "go ."), ("Va !", "va !"), ("J'ai perdu.", "j'ai perdu ."), ("He's calm.", "he's calm ."),
    ("Il est calme.", "il est calme ."), ("Qui ?", "qui ?"), ("Attends\u202f!", "attends !"),
    ("Non\xa0!", "non !"), ("« Bonjour », dit-il.", "« bonjour » , dit-il ."), ("Quoi ?!", "quoi ? !"),
    ("J’ai faim (très).", "j'ai faim ( très ) ."),
])
def test_normalize_follows_d2l(raw, expected):
    assert normalize(raw) == expected


def test_normalize_can_keep_case():
    assert normalize("Go.", lowercase=False) == "Go ."


@pytest.mark.parametrize("tokens, text", [
    ("va !", "va !"), ("j'ai perdu .", "j'ai perdu."), ("il a dit , ( oui ) .", "il a dit, (oui)."),
])
def test_detokenize_follows_corpus_conventions(tokens, text):
    assert detokenize(tokens.split()) == text


TEXT = st.text(alphabet=st.sampled_from(list("abcXYZ é'-,.!?;:«»\"()…¿¡\u202f\xa0\u2019")), max_size=40)


@settings(max_examples=200, deadline=None)
@given(TEXT, st.booleans())
def test_detokenize_then_normalize_round_trips(text, lowercase):
    tokens = normalize(text, lowercase)
    assert normalize(detokenize(tokens.split()), lowercase) == tokens
    assert normalize(tokens, lowercase) == tokens  # idempotent


def parse(data: bytes, **params):
    return parse_pairs(data, TokenizeParams(**params))


def test_parse_counts_malformed_lines_without_failing():
    data = (b"Go.\tVa !\r\n"  # CRLF
            b"Hi.\tSalut !\tCC-BY 2.0 (France) Attribution: tatoeba.org #538123\n"  # third column
            b"no tab here\n"
            b"\tempty English\n"
            b"Run!\t \n"
            b"Bad \xff bytes\tMauvais\n"
            b"Stop!\tArr\xc3\xaate !\n")
    pairs, stats = parse(data)
    assert pairs == [("go .", "va !"), ("hi .", "salut !"), ("stop !", "arrête !")]
    assert stats["malformed"] == {"no_tab": 1, "empty_side": 2, "not_utf8": 1}
    assert stats["lines_read"] == 7


def test_parse_max_pairs_and_max_tokens():
    data = corpus_text()
    assert len(parse(data, max_pairs=7)[0]) == 7
    pairs, stats = parse(data, max_tokens=4)  # "i see the cat ." has 5 tokens
    assert pairs == [] and stats["filtered"]["too_long"] == 120


def test_read_corpus_accepts_both_layouts(tmp_path):
    data = corpus_text()
    assert read_corpus(write_zip(tmp_path / "a.zip", data), MB) == data
    assert read_corpus(write_zip(tmp_path / "b.zip", data, member="fra.txt"), MB) == data


def test_read_corpus_refuses_zip_slip(tmp_path):
    path = tmp_path / "slip.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("fra-eng/fra.txt", corpus_text())
        archive.writestr("../../etc/evil", "x")
    with pytest.raises(CorpusError, match="unsafe member name '../../etc/evil'"):
        read_corpus(path, MB)


def test_read_corpus_refuses_absolute_member(tmp_path):
    path = tmp_path / "abs.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("/etc/fra.txt", "x")
    with pytest.raises(CorpusError, match="unsafe member name"):
        read_corpus(path, MB)


def test_read_corpus_refuses_zip_bomb(tmp_path):
    path = write_zip(tmp_path / "bomb.zip", b"a\tb\n" * (MB // 2))  # 2 MiB of text compresses to KBs
    assert path.stat().st_size < 100_000
    with pytest.raises(CorpusError, match="over the 1048576-byte cap"):
        read_corpus(path, MB)


def test_read_corpus_counts_bytes_when_the_header_lies(tmp_path):
    path = write_zip(tmp_path / "liar.zip", b"a\tb\n" * (MB // 2))
    raw = bytearray(path.read_bytes())
    # Shrink the declared size in the central directory so only the streaming count can catch it.
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as archive:
        info = archive.getinfo("fra-eng/fra.txt")
    declared = info.file_size.to_bytes(4, "little")
    fake = (1000).to_bytes(4, "little")
    raw = raw.replace(declared, fake)
    path.write_bytes(bytes(raw))
    with pytest.raises(CorpusError, match="cap|corrupt"):
        read_corpus(path, MB)


@pytest.mark.parametrize("content, match", [
    (b"", "corrupt, truncated or not a zip"),
    (b"English\tFrench\n", "corrupt, truncated or not a zip"),
])
def test_read_corpus_refuses_non_zip(tmp_path, content, match):
    path = tmp_path / "x.zip"
    path.write_bytes(content)
    with pytest.raises(CorpusError, match=match):
        read_corpus(path, MB)


def test_read_corpus_refuses_truncated_and_corrupt(tmp_path):
    data = write_zip(tmp_path / "ok.zip").read_bytes()
    (tmp_path / "cut.zip").write_bytes(data[: len(data) // 2])
    with pytest.raises(CorpusError, match="corrupt, truncated or not a zip"):
        read_corpus(tmp_path / "cut.zip", MB)
    flipped = bytearray(data)
    start = data.index(b"fra-eng/fra.txt") + len("fra-eng/fra.txt")  # inside the compressed data
    for i in range(start + 10, start + 60):
        flipped[i] ^= 0xFF
    (tmp_path / "bad.zip").write_bytes(bytes(flipped))
    with pytest.raises(CorpusError, match="corrupt, truncated or not a zip"):
        read_corpus(tmp_path / "bad.zip", MB)


def test_read_corpus_names_missing_member(tmp_path):
    with pytest.raises(CorpusError, match="no member fra-eng/fra.txt or fra.txt"):
        read_corpus(write_zip(tmp_path / "m.zip", member="other.txt"), MB)
    with pytest.raises(CorpusError, match="no such corpus file"):
        read_corpus(tmp_path / "absent.zip", MB)


def test_verify_sha256():
    data = b"abc"
    digest = hashlib.sha256(data).hexdigest()
    assert verify_sha256(data, digest, "x") == digest
    assert verify_sha256(data, None, "x") == digest
    with pytest.raises(CorpusError, match=f"sha256 of fra.txt is {digest}, expected 0{{64}}"):
        verify_sha256(data, "0" * 64, "x")


def test_split_groups_by_source_and_is_seeded():
    pairs = [(f"s{i % 40}", f"t{i}") for i in range(100)]  # 40 sources with 2-3 references each
    splits = split_by_source(pairs, 0.2, 0.1, seed=3)
    sources = {name: set(frame["src"]) for name, frame in splits.items()}
    assert not sources["train"] & sources["valid"] and not sources["train"] & sources["test"]
    assert not sources["valid"] & sources["test"]
    assert (len(sources["valid"]), len(sources["test"])) == (8, 4)
    assert sum(len(f) for f in splits.values()) == 100  # every reference kept
    again = split_by_source(pairs, 0.2, 0.1, seed=3)
    assert all(again[n].equals(splits[n]) for n in splits)
    other = split_by_source(pairs, 0.2, 0.1, seed=4)
    assert set(other["test"]["src"]) != sources["test"]


def test_split_needs_enough_sources():
    with pytest.raises(CorpusError, match="too few"):
        split_by_source([("a", "x"), ("b", "y")], 0.4, 0.4, seed=0)


def run_stage(tmp_path, corpus, params_text):
    params = tmp_path / "params.yaml"
    params.write_text(params_text)
    out, report = tmp_path / "out", tmp_path / "report.json"
    result = subprocess.run([sys.executable, "-m", "pipeline.tokenize", "--params", str(params), "--corpus",
                             str(corpus), "--out", str(out), "--report", str(report)],
                            capture_output=True, text=True, cwd=REPO)
    return result, out, report


def test_tokenize_stage_writes_splits_and_report(tmp_path, corpus_zip):
    result, out, report = run_stage(tmp_path, corpus_zip, "corpus: {sha256: null}\ntokenize: {}\n")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["settings.json", "test.parquet", "train.parquet",
                                                     "valid.parquet"]
    assert '"pairs": 120' in report.read_text()


@pytest.mark.parametrize("params_text, message", [
    ("corpus: {sha256: " + "a" * 64 + "}\ntokenize: {}\n", "sha256 of fra.txt is"),
    ("corpus: {sha256: null}\ntokenize: {lowercase: yes please}\n", "tokenize.lowercase: expected bool"),
    ("corpus: {sha256: null}\ntokenize: {valid_fraction: 0.6, test_fraction: 0.5}\n", "tokenize.test_fraction"),
    ("corpus: {sha256: null, extra: 1}\ntokenize: {}\n", "corpus.extra: unknown key"),
])
def test_tokenize_stage_bad_input_is_one_line_and_writes_nothing(tmp_path, corpus_zip, params_text, message):
    result, out, report = run_stage(tmp_path, corpus_zip, params_text)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ") and message in result.stderr
    assert not out.exists() and not report.exists()


def test_tokenize_stage_missing_corpus(tmp_path):
    result, out, _ = run_stage(tmp_path, tmp_path / "none.zip", "corpus: {}\ntokenize: {}\n")
    assert result.returncode == 2 and "no such corpus file" in result.stderr and not out.exists()
