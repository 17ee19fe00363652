"""The split stage's work: parsing corpus lines, seeded source-grouped splits, the report and the
split files."""

import codecs
import hashlib
import json
import re
import sys

import numpy as np
import pandas as pd
import pytest
from corpus_factory import corpus_text, pairs, write_zip

from attention_lab.data.archive import CorpusError
from attention_lab.data.cleaning import normalize_words
from attention_lab.data.splits import (
    SPLITS,
    CorpusParams,
    SplitParams,
    load_split,
    parse_pairs,
    references,
    save_splits,
    split_by_source,
    split_corpus,
)


def parse(data: bytes, **params):
    return parse_pairs(data, SplitParams(**params))


def tokens(text: str) -> int:
    """d2l's token count, computed independently of the code under test: words (with their
    apostrophes and hyphens) and punctuation marks."""
    return len(re.findall(r"[\w'-]+|[^\w\s]", text))


# -- parse_pairs -----------------------------------------------------------------------------------

def test_parse_counts_malformed_lines_without_failing():
    data = (b"Go.\tVa !\r\n"  # CRLF
            b"Hi.\tSalut !\tCC-BY 2.0 (France) Attribution: tatoeba.org #538123\n"  # third column
            b"no tab here\n"
            b"\tempty English\n"
            b"Run!\t \n"  # French only whitespace
            b"Bad \xff bytes\tMauvais\n"
            b"\n"  # a blank line in the middle
            b"Stop!\tArr\xc3\xaate\xe2\x80\xaf!\n"  # UTF-8 accent and a narrow no-break space
            b"  I  won! \t  J\xe2\x80\x99ai  gagn\xc3\xa9\xc2\xa0! ")  # no final newline
    pairs_, stats = parse(data)
    # cleaned, not normalised: case and punctuation stay, typographic spaces become plain
    assert pairs_ == [("Go.", "Va !"), ("Hi.", "Salut !"), ("Stop!", "Arrête !"), ("I won!", "J'ai gagné !")]
    assert stats["malformed"] == {"no_tab": 2, "empty_side": 2, "not_utf8": 1}
    assert stats["lines_read"] == 9
    assert stats["pairs"] == len(pairs_) and stats["filtered"] == {"too_long": 0}


def test_parse_a_final_newline_is_not_a_line():
    with_newline, without = parse(b"Go.\tVa !\nHi.\tSalut !\n"), parse(b"Go.\tVa !\nHi.\tSalut !")
    assert with_newline == without
    assert with_newline[1]["lines_read"] == 2 and sum(with_newline[1]["malformed"].values()) == 0


def test_parse_max_pairs_and_max_tokens():
    data = corpus_text()
    everything = pairs()
    assert parse(data, max_pairs=7)[0] == everything[:7]  # the first N lines, like d2l's num_examples
    assert parse(data, max_pairs=7)[1]["lines_read"] == 7
    limit = 6
    kept, stats = parse(data, max_tokens=limit)
    expected = [p for p in everything if max(tokens(p[0]), tokens(p[1])) <= limit]
    assert kept == expected and 0 < len(kept) < len(everything)
    assert stats["filtered"]["too_long"] == len(everything) - len(expected)
    assert stats["pairs"] == len(kept)


def test_parse_max_tokens_counts_words_and_punctuation():
    data = "Go.\tVa !\nI see.\tJe vois.\n".encode()
    # "go ." is 2 tokens, "je vois ." 3
    assert parse(data, max_tokens=2)[0] == [("Go.", "Va !")]
    assert len(parse(data, max_tokens=3)[0]) == 2


# -- split_by_source -------------------------------------------------------------------------------

def grouped_pairs(sources: int = 40, seed: int = 0) -> list[tuple[str, str]]:
    """`sources` sources with 1 to 4 references each, in a shuffled order."""
    rng = np.random.default_rng(seed)
    out = [(f"Source {i}.", f"Cible {i}-{r}.") for i in range(sources) for r in range(rng.integers(1, 5))]
    return [out[i] for i in rng.permutation(len(out))]


def split_of(splits: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Each source's split; fails if a source is in two."""
    where: dict[str, str] = {}
    for name, frame in splits.items():
        for src in frame["src"]:
            assert where.setdefault(src, name) == name, f"{src!r} in {where[src]} and {name}"
    return where


def test_split_groups_all_references_of_a_source_and_is_seeded():
    data = grouped_pairs()
    splits = split_by_source(data, 0.2, 0.1, seed=3)
    assert set(splits) == set(SPLITS)
    where = split_of(splits)  # no source in two splits
    counts = {name: frame["src"].nunique() for name, frame in splits.items()}
    assert (counts["valid"], counts["test"]) == (8, 4)  # round(0.2 * 40), round(0.1 * 40)
    assert sum(len(f) for f in splits.values()) == len(data)  # every reference kept
    for name, frame in splits.items():  # all references of a source, each once, in corpus order
        for src, group in frame.groupby("src"):
            assert list(group["tgt"]) == [t for s, t in data if s == src]
    assert sorted(map(tuple, pd.concat(splits.values()).values.tolist())) == sorted(data)
    again = split_by_source(data, 0.2, 0.1, seed=3)
    assert all(again[n].equals(splits[n]) for n in SPLITS)
    other = split_by_source(data, 0.2, 0.1, seed=4)
    assert split_of(other) != where


def test_split_treats_case_and_spacing_variants_as_one_source():
    data = grouped_pairs(30)
    variants = [("Go.", "Va !"), ("go .", "Bouge !"), ("GO.", "Marche."), ("Go  .", "Allez !"), ("Go !", "Va !")]
    data = data[:10] + variants + data[10:]
    for seed in range(8):
        splits = split_by_source(data, 0.3, 0.3, seed=seed)
        where = {}
        for name, frame in splits.items():
            for src in frame["src"]:
                where.setdefault(normalize_words(src), set()).add(name)
        assert all(len(names) == 1 for names in where.values())
        assert len(where["go ."]) == 1 and "go !" in where  # "Go !" is another source
        frame = splits[next(iter(where["go ."]))]
        assert set(frame["src"]) >= {"Go.", "go .", "GO.", "Go  ."}  # stored as written


def test_split_sizes_follow_the_fractions():
    data = grouped_pairs(50)
    splits = split_by_source(data, 0.0, 0.01, seed=0)
    assert splits["valid"].empty and splits["test"]["src"].nunique() == 1  # a positive fraction holds out one
    assert len(splits["train"]) + len(splits["test"]) == len(data)


def test_split_needs_enough_sources():
    with pytest.raises(CorpusError, match="too few"):
        split_by_source([("a", "x"), ("b", "y")], 0.4, 0.4, seed=0)
    with pytest.raises(CorpusError, match="2 distinct"):  # "Go." and "go ." are one source
        split_by_source([("Go.", "x"), ("go .", "y"), ("Hi.", "z")], 0.3, 0.3, seed=0)


def test_references_keep_file_order():
    frame = pd.DataFrame({"src": ["b", "a", "b", "c", "a"], "tgt": ["1", "2", "3", "4", "5"]})
    refs = references(frame)
    assert list(refs.index) == ["b", "a", "c"]
    assert [list(r) for r in refs] == [["1", "3"], ["2", "5"], ["4"]]


# -- split_corpus, save_splits, load_split ------------------------------------------------------

def test_tokenize_corpus_report(corpus_zip):
    params = SplitParams(valid_fraction=0.1, test_fraction=0.15, seed=5)
    splits, report = split_corpus(corpus_zip, CorpusParams(sha256=None), params)
    data = corpus_text()
    assert report["sha256"] == hashlib.sha256(data).hexdigest()
    assert report["lines_read"] == report["pairs"] == len(pairs())
    assert report["malformed"] == {"no_tab": 0, "empty_side": 0, "not_utf8": 0}
    assert sum(s["pairs"] for s in report["splits"].values()) == report["pairs"]
    sources = len({normalize_words(en) for en, _ in pairs()})
    assert report["splits"]["test"]["sources"] == round(0.15 * sources)
    assert report["splits"]["valid"]["sources"] == round(0.1 * sources)
    for name, frame in splits.items():
        entry = report["splits"][name]
        assert entry["pairs"] == len(frame) and entry["sources"] == frame["src"].nunique()
        for side in ("src", "tgt"):
            lengths = np.array([tokens(s) for s in frame[side]])
            stats = entry[f"{side}_words"]
            assert stats["max"] == lengths.max()
            assert stats["mean"] == pytest.approx(lengths.mean(), abs=1e-3)
            assert stats["p50"] == pytest.approx(np.median(lengths))
            assert stats["p95"] == pytest.approx(np.percentile(lengths, 95))
    json.dumps(report)  # JSON-ready
    again, _ = split_corpus(corpus_zip, CorpusParams(sha256=None), params)
    assert all(again[n].equals(splits[n]) for n in SPLITS)


def test_tokenize_corpus_checks_the_checksum_and_needs_pairs(tmp_path, corpus_zip):
    digest = hashlib.sha256(corpus_text()).hexdigest()
    split_corpus(corpus_zip, CorpusParams(sha256=digest), SplitParams())
    with pytest.raises(CorpusError, match=f"sha256 of fra.txt is {digest}"):
        split_corpus(corpus_zip, CorpusParams(sha256="0" * 64), SplitParams())
    junk = write_zip(tmp_path / "junk.zip", b"no tab\nstill none\n")
    with pytest.raises(CorpusError, match=r"junk\.zip: no usable sentence pairs among 2 lines"):
        split_corpus(junk, CorpusParams(sha256=None), SplitParams())


def test_save_and_load_splits_round_trip(tmp_path):
    splits = split_by_source(grouped_pairs(), 0.2, 0.2, seed=1)
    params = SplitParams(valid_fraction=0.2, test_fraction=0.2, seed=1)
    save_splits(tmp_path / "data", splits, params)
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == sorted(
        [f"{n}.parquet" for n in SPLITS] + ["settings.json"])
    for name in SPLITS:
        pd.testing.assert_frame_equal(load_split(tmp_path / "data", name), splits[name])
    settings = json.loads((tmp_path / "data" / "settings.json").read_text())
    assert settings == {"max_pairs": None, "max_tokens": None, "valid_fraction": 0.2, "test_fraction": 0.2,
                        "seed": 1}


def test_load_split_errors_name_the_file(tmp_path):
    with pytest.raises(CorpusError, match=r"valid\.parquet: no such split \(run the split stage first\)"):
        load_split(tmp_path, "valid")
    (tmp_path / "train.parquet").write_bytes(b"PAR1 not really parquet")
    with pytest.raises(CorpusError, match=r"train\.parquet: unreadable parquet file") as error:
        load_split(tmp_path, "train")
    assert "\n" not in str(error.value)
    pd.DataFrame({"english": ["Go."], "french": ["Va !"]}).to_parquet(tmp_path / "test.parquet")
    with pytest.raises(CorpusError, match=r"test\.parquet: expected columns \['src', 'tgt'\], got \['english'"):
        load_split(tmp_path, "test")


# -- the stage -------------------------------------------------------------------------------------

def run_stage(monkeypatch, capsys, tmp_path, corpus, params_text):
    """`python -m pipeline.split ...` in this process (its imports are already loaded)."""
    from attention_lab.errors import run_main
    from pipeline import split as stage

    params = tmp_path / "params.yaml"
    params.write_text(params_text)
    out, report = tmp_path / "out", tmp_path / "report.json"
    monkeypatch.setattr(sys, "argv", ["split", "--params", str(params), "--corpus", str(corpus), "--out",
                                      str(out), "--report", str(report)])
    code = 0
    try:
        run_main(stage.main)
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err, out, report


def test_split_stage_writes_splits_and_report(monkeypatch, capsys, tmp_path, corpus_zip):
    code, err, out, report = run_stage(monkeypatch, capsys, tmp_path, corpus_zip,
                                       "corpus: {sha256: null}\nsplit: {valid_fraction: 0.1}\n")
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["settings.json", "test.parquet", "train.parquet",
                                                     "valid.parquet"]
    written = json.loads(report.read_text())
    assert written["pairs"] == len(pairs())
    assert {n: len(load_split(out, n)) for n in SPLITS} == {n: s["pairs"] for n, s in written["splits"].items()}


@pytest.mark.parametrize("params_text, message", [
    ("corpus: {sha256: " + "a" * 64 + "}\nsplit: {}\n", "sha256 of fra.txt is"),
    ("corpus: {sha256: null}\nsplit: {lowercase: yes please}\n", "split.lowercase: unknown key"),
    ("corpus: {sha256: null}\nsplit: {max_tokens: 0}\n", "split.max_tokens: must be >= 1"),
    ("corpus: {sha256: null}\nsplit: {valid_fraction: 0.6, test_fraction: 0.5}\n", "split.test_fraction"),
    ("corpus: {sha256: null, extra: 1}\nsplit: {}\n", "corpus.extra: unknown key"),
    ("corpus: {sha256: null}\nsplit: {max_tokens: 1}\n", "too few to hold out"),  # "Thanks", "Hello" left
])
def test_split_stage_bad_input_is_one_line_and_writes_nothing(monkeypatch, capsys, tmp_path, corpus_zip,
                                                                params_text, message):
    code, err, out, report = run_stage(monkeypatch, capsys, tmp_path, corpus_zip, params_text)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err, err
    assert not out.exists() and not report.exists()


def test_split_stage_missing_corpus(monkeypatch, capsys, tmp_path):
    code, err, out, _ = run_stage(monkeypatch, capsys, tmp_path, tmp_path / "none.zip", "corpus: {}\nsplit: {}\n")
    assert code == 2 and "none.zip: no such corpus file" in err and not out.exists()


# -- hostile corpora through the stage ------------------------------------------------------------

FIVE = "".join(f"Sentence number {i}.\tPhrase numéro {i}.\n" for i in range(5)).encode()


def test_a_bom_and_crlf_line_ends_are_read_as_if_absent(monkeypatch, capsys, tmp_path):
    corpus = write_zip(tmp_path / "bom.zip", codecs.BOM_UTF8 + FIVE.replace(b"\n", b"\r\n"))
    code, err, out, report = run_stage(monkeypatch, capsys, tmp_path, corpus, "corpus: {sha256: null}\nsplit: {}\n")
    assert code == 0 and err == "", err
    frames = pd.concat([load_split(out, name) for name in SPLITS])
    assert sorted(frames["src"]) == [f"Sentence number {i}." for i in range(5)]  # no \ufeff, no \r
    assert sorted(frames["tgt"]) == [f"Phrase numéro {i}." for i in range(5)]
    assert json.loads(report.read_text())["malformed"] == {"no_tab": 0, "empty_side": 0, "not_utf8": 0}


def test_a_five_line_corpus_is_split(monkeypatch, capsys, tmp_path):
    code, err, out, _ = run_stage(monkeypatch, capsys, tmp_path, write_zip(tmp_path / "five.zip", FIVE),
                                  "corpus: {sha256: null}\nsplit: {}\n")
    assert code == 0, err
    assert {name: len(load_split(out, name)) for name in SPLITS} == {"train": 3, "valid": 1, "test": 1}


def test_a_corpus_of_malformed_lines_fails_naming_the_file_and_a_line(monkeypatch, capsys, tmp_path):
    corpus = write_zip(tmp_path / "junk.zip", b"no tab\n\tno English\nstill no tab\n")
    code, err, out, report = run_stage(monkeypatch, capsys, tmp_path, corpus, "corpus: {sha256: null}\nsplit: {}\n")
    assert code == 2 and err.count("\n") == 1, err
    assert f"{corpus}: no usable sentence pairs among 3 lines" in err
    assert "(first: line 1)" in err and "(first: line 2)" in err
    assert not out.exists() and not report.exists()


def test_a_3000_word_line_is_dropped_over_max_tokens_naming_its_line(monkeypatch, capsys, tmp_path):
    long = " ".join(["word"] * 3000).encode()
    corpus = write_zip(tmp_path / "long.zip", FIVE + b"One more.\tUne de plus.\n" + long + b"\t" + long + b"\n")
    code, err, out, report = run_stage(monkeypatch, capsys, tmp_path, corpus,
                                       "corpus: {sha256: null}\nsplit: {max_tokens: 100}\n")
    assert code == 0, err
    assert err == f"note: {corpus}: 1 line(s) skipped: a side over split.max_tokens words (first: line 7)\n"
    assert json.loads(report.read_text())["filtered"] == {"too_long": 1}
    assert max(len(s) for name in SPLITS for s in load_split(out, name)["src"]) < 100
    # without the cap the line is kept whole: nothing is truncated
    pairs_, _ = parse(FIVE + long + b"\tMot.\n")
    assert pairs_[-1] == (" ".join(["word"] * 3000), "Mot.")
