"""Sentence-concatenation augmentation: joined pairs keep their members aligned, valid and test
are never joined."""

import pytest
from conftest import TINY_VOCAB, data_module

from attention_lab.config import from_mapping
from attention_lab.data.concatenation import concatenated_pairs, join
from attention_lab.data.special_tokens import EOS_ID
from attention_lab.data.splits import SplitParams, load_split
from attention_lab.data.tokenizer import Tokenizer, TokenizerParams, TOKENIZER_FILE
from attention_lab.training.paths import prepare_data


def numbered_pairs(n: int) -> list[tuple[list[int], list[int]]]:
    """Pair k: source `10+k` repeated 1-3 times, target `1000+k` repeated 1-2 times (unequal lengths)."""
    return [([10 + k] * (1 + k % 3) + [EOS_ID], [1000 + k] * (1 + k % 2) + [EOS_ID]) for k in range(n)]


def members(ids: list[int], offset: int, repeats) -> list[int]:
    """The pair numbers a joined side is made of, read back from its runs of ids."""
    found, i = [], 0
    body = ids[:-1]
    while i < len(body):
        k = body[i] - offset
        assert body[i : i + repeats(k)] == [offset + k] * repeats(k)
        found.append(k)
        i += repeats(k)
    return found


def test_joined_pairs_keep_source_and_target_of_the_same_pairs_in_order():
    pairs = numbered_pairs(37)
    made = concatenated_pairs(pairs, fraction=0.5, max_joined=4, seed=3)
    assert len(made) == round(0.5 * 37)
    sizes = set()
    for src, tgt in made:
        assert src[-1] == tgt[-1] == EOS_ID and EOS_ID not in src[:-1] + tgt[:-1]
        from_src = members(src, 10, lambda k: 1 + k % 3)
        assert from_src == members(tgt, 1000, lambda k: 1 + k % 2)
        sizes.add(len(from_src))
    assert sizes == {2, 3, 4}  # uniform over 2..max_joined: all occur among 18


def test_joining_is_seeded_and_off_at_zero():
    pairs = numbered_pairs(50)
    assert concatenated_pairs(pairs, 0.4, 3, seed=1) == concatenated_pairs(pairs, 0.4, 3, seed=1)
    assert concatenated_pairs(pairs, 0.4, 3, seed=1) != concatenated_pairs(pairs, 0.4, 3, seed=2)
    assert concatenated_pairs(pairs, 0.0, 3, seed=1) == []


@pytest.fixture(scope="module", params=[TINY_VOCAB, {"kind": "word"}], ids=["subword", "word"])
def prepared(tmp_path_factory, request):
    """The tiny corpus split and tokenized with subword pieces, and with d2l's words."""
    from corpus_factory import write_zip

    root = tmp_path_factory.mktemp("concat")
    return prepare_data(write_zip(root / "fra-eng.zip"), SplitParams(valid_fraction=0.1, test_fraction=0.1), root,
                        from_mapping(TokenizerParams, request.param, "train_tokenizer"))


def test_joined_ids_are_the_ids_of_the_sentences_written_on_one_line(prepared):
    tokenizer = Tokenizer.load(prepared.tokenizer / TOKENIZER_FILE)
    train = load_split(prepared.data, "train").iloc[:40]
    for side, codec in (("src", tokenizer.src), ("tgt", tokenizer.tgt)):
        texts = list(train[side])
        for first, second in zip(texts[::2], texts[1::2]):
            assert join(codec.encode_all([first, second])) == codec.encode(f"{first} {second}")


def test_only_the_train_pairs_are_augmented(prepared):
    plain, joined = data_module(prepared), data_module(prepared, concat_fraction=0.5, concat_max=3)
    n = len(plain.train_pairs)
    assert joined.train_pairs[:n] == plain.train_pairs
    assert joined.train_pairs[n:] == concatenated_pairs(plain.train_pairs, 0.5, 3, seed=0)
    assert len(joined.train_pairs) == n + round(0.5 * n)
    assert joined.valid_pairs == plain.valid_pairs and joined.valid_loss_pairs == plain.valid_loss_pairs
    assert joined.valid_sources == plain.valid_sources
