"""Text in, text out: batching in input order, nothing truncated, no `<unk>` in any output."""

import math

import numpy as np
import pytest
import torch

from attention_lab.data.special_tokens import EOS, EOS_ID, UNK, UNK_ID
from attention_lab.inference.symbols import take_out
from attention_lab.inference.translator import SearchParams, SourceTooLong, Translator, replace_unknown

torch.set_num_threads(1)

KOWALSKI = "Kowalski bought 17 kumquats in Reykjavík last Thursday."
WORDS = ("she takes the car and we like the book and he sees the dog now and you want the bread and i see "
         "the house").split()


def sentence(n_words: int, offset: int = 0) -> str:
    text = " ".join(WORDS[(offset + i) % len(WORDS)] for i in range(n_words))
    return text[0].upper() + text[1:] + "."


def mixed_sentences(count: int = 20, seed: int = 0) -> list[str]:
    """`count` sentences of 1 to 36 words in a random order (long next to short), one repeated."""
    rng = np.random.default_rng(seed)
    lengths = [1, 36] + rng.integers(1, 37, count - 3).tolist()
    sentences = [sentence(int(n), offset=int(rng.integers(len(WORDS)))) for n in lengths]
    sentences.append(sentences[3])
    return [sentences[i] for i in rng.permutation(len(sentences))]


def output_bias(translator: Translator) -> torch.Tensor:
    output = translator.model.decoder.output
    return output.bias if output.tied is not None else output.linear.bias


@pytest.fixture(scope="module")
def translator(trained_model) -> Translator:
    return Translator.load(trained_model, "cpu")


@pytest.fixture
def fresh(trained_model) -> Translator:
    """A translator of its own, whose weights a test may change."""
    return Translator.load(trained_model, "cpu")


# -- order and batching ------------------------------------------------------------------------------

@pytest.mark.parametrize("beam", [1, 4])
def test_batched_translations_come_back_in_input_order(translator, beam):
    sentences = mixed_sentences()
    lengths = [len(s.split()) for s in sentences]
    assert min(lengths) == 1 and max(lengths) == 36 and lengths != sorted(lengths)
    batched = translator.translate(sentences, SearchParams(beam_size=beam, batch_size=3))
    single = [translator.translate([s], SearchParams(beam_size=beam))[0] for s in sentences]
    assert [t.source for t in batched] == sentences
    assert [t.text for t in batched] == [t.text for t in single]
    assert [t.pieces for t in batched] == [t.pieces for t in single]
    assert [t.score for t in batched] == pytest.approx([t.score for t in single], abs=1e-4)
    for b, s in zip(batched, single):
        assert b.attention.shape == s.attention.shape
        np.testing.assert_allclose(b.attention, s.attention, atol=1e-4)
    for text in set(sentences):  # a sentence given twice gets one translation
        assert len({t.text for t in batched if t.source == text}) == 1


def test_batch_size_does_not_change_results(translator):
    sentences = mixed_sentences(12, seed=1)
    results = {size: [t.text for t in translator.translate(sentences, SearchParams(beam_size=2, batch_size=size))]
               for size in (1, 5, 128)}
    assert results[1] == results[5] == results[128]


def test_empty_input(translator):
    assert translator.translate([]) == []


# -- nothing truncated -------------------------------------------------------------------------------

def test_a_long_source_is_read_whole(translator):
    text = sentence(60)
    ratio = 2.0
    [result] = translator.translate([text], SearchParams(beam_size=4, max_len_ratio=ratio))
    pieces = translator.tokenizer.src.pieces(text)
    assert len(pieces) >= 60
    assert result.src_pieces == pieces + [EOS]  # every piece the source has, then <eos>
    assert result.attention.shape[1] == len(pieces) + 1  # a column per source piece and <eos>
    assert 1 <= result.attention.shape[0] <= math.ceil(ratio * len(result.src_pieces)) + SearchParams().max_len_extra
    assert len(result.output_labels) == result.attention.shape[0]
    np.testing.assert_allclose(result.attention.sum(axis=1), 1.0, atol=1e-4)  # each row attends to the source


@pytest.mark.parametrize("beam", [1, 3])
def test_a_long_source_may_get_a_long_output(fresh, beam):
    with torch.no_grad():
        output_bias(fresh)[EOS_ID] -= 1e4  # a model that never wants to stop
    text = sentence(60)
    ratio = 1.5
    [result] = fresh.translate([text], SearchParams(beam_size=beam, max_len_ratio=ratio, max_len_extra=7))
    limit = math.ceil(ratio * len(result.src_pieces)) + 7  # the source tokens the model read, <eos> included
    assert limit > 90
    assert len(result.pieces) == result.attention.shape[0] == limit  # cut at the limit, not before
    assert result.output_labels == result.pieces and result.text


# -- the work of one sentence is bounded ----------------------------------------------------------

def test_a_source_over_the_limit_is_refused_naming_it_before_any_search(fresh, monkeypatch):
    texts = [sentence(5), sentence(40), sentence(3)]
    pieces = [len(ids) for ids in fresh.tokenizer.src.encode_all(texts)]
    limit = pieces[1] - 1
    monkeypatch.setattr("attention_lab.inference.translator.run_search",
                        lambda *a, **k: pytest.fail("decoding started before every source was checked"))
    with pytest.raises(SourceTooLong, match=rf"^sentence 2: {pieces[1]} pieces, over max_source_pieces {limit}") as exc:
        fresh.translate(texts, SearchParams(max_source_pieces=limit))
    assert (exc.value.index, exc.value.pieces, exc.value.limit) == (1, pieces[1], limit)


def test_a_source_at_the_limit_is_translated(translator):
    text = sentence(40)
    limit = len(translator.tokenizer.src.encode(text))  # <eos> included
    [result] = translator.translate([text], SearchParams(beam_size=2, max_source_pieces=limit))
    assert len(result.src_pieces) == limit


@pytest.mark.parametrize("beam", [1, 3])
def test_no_output_runs_past_the_absolute_cap_whatever_the_ratio(fresh, beam):
    with torch.no_grad():
        output_bias(fresh)[EOS_ID] -= 1e4  # a model that never wants to stop
    [result] = fresh.translate([sentence(30)], SearchParams(beam_size=beam, max_len_ratio=1000.0,
                                                            max_output_pieces=17))
    assert len(result.pieces) == result.attention.shape[0] == 17


# -- no <unk> in any output --------------------------------------------------------------------------

def test_subword_outputs_never_contain_unk(translator):
    sentences = mixed_sentences(8) + [KOWALSKI, "Zoë paid 3,50 € in Łódź!", "Go.", "ÇA COÛTE 1999 ¥."]
    for beam in (1, 4):
        for result in translator.translate(sentences, SearchParams(beam_size=beam)):
            assert UNK not in result.text and UNK not in result.pieces
            assert result.unknown == [] and UNK not in result.src_pieces
    [kowalski] = translator.translate([KOWALSKI])
    read, carried = take_out(KOWALSKI, translator.tokenizer.src.reads)
    assert translator.tokenizer.src.join(kowalski.src_pieces[:-1]) == read  # all but what it cannot read
    assert kowalski.carried == [c.text for c in carried] and all(c in kowalski.text for c in kowalski.carried)


def test_subword_search_forbids_unk_even_when_the_model_wants_it(fresh):
    with torch.no_grad():
        output_bias(fresh)[UNK_ID] += 1e4
    for beam in (1, 4):
        for result in fresh.translate([KOWALSKI, "Go.", sentence(12)], SearchParams(beam_size=beam)):
            assert UNK not in result.pieces and UNK not in result.text and result.pieces


def test_replace_unknown_copies_the_most_attended_source_word():
    surface = ["Kowalski", "sees", "Zoë", "."]
    attention = np.array([  # (T, S): a column per source word, the last for <eos>
        [0.70, 0.10, 0.10, 0.05, 0.05],
        [0.05, 0.80, 0.05, 0.05, 0.05],
        [0.05, 0.10, 0.15, 0.10, 0.60],  # <eos> gets most: never copied, the best word is
        [0.10, 0.10, 0.60, 0.10, 0.10],
    ])
    pieces = [UNK, "voit", UNK, UNK]
    assert replace_unknown(pieces, attention, surface) == ["Kowalski", "voit", "Zoë", "Zoë"]
    assert pieces == [UNK, "voit", UNK, UNK]  # the input is left alone
    assert replace_unknown(["il", "voit"], attention[:2], surface) == ["il", "voit"]
    assert replace_unknown([UNK], attention[:1], []) == [UNK]  # nothing to copy from
    assert replace_unknown([], attention[:0], surface) == []


# -- word mode ---------------------------------------------------------------------------------------

NAMES = {"Zebulon", "Kowalski", "Anouk", "Priya", "Oluwaseun"}
NAMED = ["Zebulon takes the car.", "Kowalski sees the dog and Anouk likes the bread.", "Go, Priya!",
         "We want the book and Oluwaseun wants the cat now."]


def test_word_mode_outputs_never_contain_unk(word_model):
    translator = Translator.load(word_model, "cpu")
    assert translator.tokenizer.tgt.emits_unk
    for beam in (1, 4):
        for text, result in zip(NAMED, translator.translate(NAMED, SearchParams(beam_size=beam))):
            assert UNK not in result.text and UNK not in result.pieces
            surface = translator.tokenizer.src.surface(text)
            unknown = [w for w, p in zip(surface, result.src_pieces) if p == UNK]
            assert result.unknown == unknown  # words read as <unk>, reported as written
            assert set(NAMES) & set(surface) <= set(unknown) and unknown  # every name is one


def test_word_mode_copies_source_words_for_every_unk(word_model):
    translator = Translator.load(word_model, "cpu")
    with torch.no_grad():
        output_bias(translator)[UNK_ID] += 1e4  # a model that outputs nothing but <unk>
    for beam in (1, 3):
        # Every <unk> may become the same word: the repeats stay, to count the pieces the search wrote.
        search = SearchParams(beam_size=beam, max_len_ratio=1.0, max_len_extra=0, drop_repeats=False)
        results = translator.translate(NAMED, search)
        for text, result in zip(NAMED, results):
            surface = translator.tokenizer.src.surface(text)
            assert result.pieces and UNK not in result.text
            assert set(result.pieces) <= set(surface)  # each <unk> became a source word, case kept
            assert len(result.pieces) == len(result.src_pieces)  # the limit: ceil(1.0 * source tokens)
            expected = [surface[int(np.argmax(row[: len(surface)]))] for row in result.attention]
            assert result.pieces == expected
