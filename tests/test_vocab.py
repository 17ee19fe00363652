import pandas as pd
import pytest

from attention_lab.errors import UserError
from attention_lab.vocab import BOS_ID, EOS_ID, PAD_ID, RESERVED, UNK_ID, Vocab, VocabParams, build_vocabularies

SENTENCES = [["b", "a", "c"], ["a", "b"], ["a", "d", "<eos>"], ["e"]]  # a:3 b:2 c:1 d:1 e:1


def test_reserved_ids_and_order():
    vocab = Vocab.build(SENTENCES, VocabParams(min_freq=1))
    assert vocab.tokens[:4] == RESERVED
    assert (PAD_ID, BOS_ID, EOS_ID, UNK_ID) == (0, 1, 2, 3)
    assert vocab.tokens[4:] == ("a", "b", "c", "d", "e")  # by count, then token; "<eos>" not counted twice


def test_min_freq_and_max_size():
    assert Vocab.build(SENTENCES, VocabParams(min_freq=2)).tokens[4:] == ("a", "b")
    assert Vocab.build(SENTENCES, VocabParams(min_freq=1, max_size=6)).tokens[4:] == ("a", "b")


def test_unknown_tokens_map_to_unk_and_round_trip():
    vocab = Vocab.build(SENTENCES, VocabParams(min_freq=2))
    assert vocab.encode(["a", "zzz", "b"]) == [4, UNK_ID, 5]
    assert vocab.decode(vocab.encode(["b", "a"])) == ["b", "a"]
    assert vocab.decode([BOS_ID, 4, PAD_ID, 5, EOS_ID, 4]) == ["a", "b"]  # stops at <eos>


def test_oov_rate():
    vocab = Vocab.build(SENTENCES, VocabParams(min_freq=2))
    assert vocab.oov_rate([["a", "x"], ["y", "b", "a", "z"]]) == pytest.approx(3 / 6)


def test_save_load(tmp_path):
    vocab = Vocab.build(SENTENCES, VocabParams(min_freq=1))
    vocab.save(tmp_path / "v.json")
    assert Vocab.load(tmp_path / "v.json") == vocab
    (tmp_path / "bad.json").write_text('{"tokens": ["a", "b"]}')
    with pytest.raises(UserError, match="bad.json: not a vocabulary file"):
        Vocab.load(tmp_path / "bad.json")
    with pytest.raises(UserError, match="no such vocabulary file"):
        Vocab.load(tmp_path / "none.json")


def test_build_vocabularies_uses_train_only():
    frame = lambda src, tgt: pd.DataFrame({"src": src, "tgt": tgt})  # noqa: E731
    splits = {"train": frame(["a b", "a c"], ["x y", "x z"]), "valid": frame(["q a"], ["x w"]),
              "test": frame(["a a"], ["x x"])}
    src, tgt, report = build_vocabularies(splits, VocabParams(min_freq=1))
    assert "q" not in src.index and "w" not in tgt.index
    assert report["src"] == {"size": 7, "oov_valid": 0.5, "oov_test": 0.0}
