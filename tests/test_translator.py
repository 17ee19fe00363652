"""Text in, text out: batching in input order, nothing truncated, no `<unk>` in any output."""

import math

import numpy as np
import pytest
import torch

from attention_lab.data.numbers import missing_numbers
from attention_lab.data.special_tokens import BOS_ID, EOS, EOS_ID, UNK, UNK_ID
from attention_lab.inference.translation import block_diagonal
from attention_lab.text.symbols import take_out
from attention_lab.inference.refusals import NotText
from attention_lab.inference.translator import SearchParams, SourceTooLong, Translator
from attention_lab.text.protect import replace_unknown

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
    assert (exc.value.index, exc.value.size, exc.value.limit) == (1, pieces[1], limit)


def unread(*args):
    pytest.fail("a line was read before every line was checked")


@pytest.mark.parametrize("unit", ["🐱 ", "!", "the cat "])
def test_a_line_over_the_character_limit_is_refused_before_any_reading(translator, monkeypatch, unit):
    """Reading is linear in a line's length, but a line of 100,000 characters took seconds: it is refused
    at once, naming the line and the limit."""
    long = (unit * 100_000)[:100_000]
    monkeypatch.setattr("attention_lab.inference.translator.read_lines", unread)
    with pytest.raises(SourceTooLong, match=r"^sentence 2: 100000 characters, over max_source_chars 4096: "
                                            r"split it into shorter lines$") as exc:
        translator.translate(["Go.", long, "\ud800"])  # the first refusal is named
    assert (exc.value.index, exc.value.size, exc.value.limit, exc.value.key) == (1, 100_000, 4096, "max_source_chars")


def test_a_line_at_the_character_limit_is_translated(translator):
    line = sentence(7)
    [result] = translator.translate([line], SearchParams(max_source_chars=len(line)))
    assert result.text == translator.translate([line])[0].text
    with pytest.raises(SourceTooLong, match=rf"^sentence 1: {len(line)} characters, over max_source_chars "):
        translator.translate([line], SearchParams(max_source_chars=len(line) - 1))


@pytest.mark.parametrize("line, at", [("\ud800 hello", 1), ("I see the cat\udc80.", 14)])
def test_a_line_that_is_no_text_is_refused_in_one_line_before_any_reading(translator, monkeypatch, line, at):
    """A lone surrogate (JSON's `"\\ud800"`, an undecodable byte of a command line) failed inside the segmenter."""
    monkeypatch.setattr("attention_lab.inference.translator.read_lines", unread)
    message = rf"^sentence 2: not UTF-8 text \(surrogates not allowed at character {at}\)$"
    with pytest.raises(NotText, match=message) as exc:
        translator.translate(["Go.", line])
    assert exc.value.index == 1


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


# -- numbers -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("beam", [1, 4])
def test_copy_numbers_off_lets_the_search_write_a_number_the_source_lacks(digit_model, beam):
    translator = Translator.load(digit_model, "cpu")
    lines = ["I see 3 cats.", "I see 12 dogs and 4 cats.", "I see cats."]
    kept, free = (translator.translate(lines, SearchParams(beam_size=beam, copy_numbers=copy)) for copy in (True, False))
    # missing_numbers(output, source): the groups the output writes and its source lacks, numbers made up
    assert [missing_numbers(t.text, line) for t, line in zip(kept, lines)] == [[], [], []]
    assert all(missing_numbers(t.text, line) for t, line in zip(free, lines)), [t.text for t in free]


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


# -- self-attention maps -----------------------------------------------------------------------------

SELF_MAPPED = ["I see the cat.", "We like the book and she takes the car now.", "Go."]


@pytest.fixture(scope="module")
def transformer(transformer_model) -> Translator:
    # Float32 on any CPU: the maps' sums below hold to 1e-5 there (in bf16, to 3e-3).
    return Translator.load(transformer_model, "cpu", precision="32")


def assert_same_translations(off, on) -> None:
    """Everything but the self-attention maps, exactly."""
    for a, b in zip(off, on, strict=True):
        assert (a.text, a.pieces, a.output_labels, a.src_pieces, a.score) == (b.text, b.pieces, b.output_labels,
                                                                               b.src_pieces, b.score)
        np.testing.assert_array_equal(a.attention, b.attention)
        np.testing.assert_array_equal(a.maps, b.maps)


@pytest.mark.parametrize("beam", [1, 4])
def test_self_maps_change_nothing_else_and_are_distributions_over_what_each_piece_may_read(transformer, beam):
    # A repeat the text steps drop takes its column with it (`input_columns`): the rows after it read less than 1.
    search = SearchParams(beam_size=beam, drop_repeats=False)
    off = transformer.translate(SELF_MAPPED, search, maps=True)
    on = transformer.translate(SELF_MAPPED, search, maps=True, self_maps=True)
    assert_same_translations(off, on)
    assert all(t.encoder_maps is None and t.decoder_maps is None for t in off)  # only when asked
    for t in on:
        layers, heads = t.layout
        sources, steps = len(t.src_pieces), len(t.output_labels)
        assert t.encoder_maps.shape == (layers * heads, sources, sources) and t.encoder_maps.dtype == np.float32
        assert t.decoder_maps.shape == (layers * heads, steps, steps)
        np.testing.assert_allclose(t.encoder_maps.sum(-1), 1.0, atol=1e-5)  # padding in the batch: cut off
        np.testing.assert_allclose(t.decoder_maps.sum(-1), 1.0, atol=1e-5)
        assert (np.triu(t.decoder_maps, 1) == 0).all() and (t.decoder_maps[:, 1:, 0] > 0).all()
    # Each sentence batched with others of other lengths, as alone.
    for t, text in zip(on, SELF_MAPPED):
        [alone] = transformer.translate([text], search, self_maps=True)
        np.testing.assert_allclose(alone.encoder_maps, t.encoder_maps, atol=1e-5)
        np.testing.assert_allclose(alone.decoder_maps, t.decoder_maps, atol=1e-5)


def test_self_maps_are_the_models_own_for_the_chosen_output(transformer, monkeypatch):
    """The model's `self_attention` for the source and `<bos>` + the output the search chose, rows and
    columns as the translation labels them."""
    from attention_lab.inference import translator as module

    chosen, search = [], module.run_search

    def recorded(*args, **kwargs):
        chosen.append(search(*args, **kwargs))
        return chosen[-1]

    monkeypatch.setattr(module, "run_search", recorded)
    text = SELF_MAPPED[1]
    [t] = transformer.translate([text], SearchParams(drop_repeats=False), self_maps=True)
    [decoded] = chosen
    length = int(decoded.lengths[0])
    outputs = decoded.tokens[0, :length].tolist()
    src = torch.tensor([transformer.tokenizer.src.encode(text)])
    with torch.no_grad():
        encoder, decoder = transformer.model.self_attention(src, torch.tensor([src.shape[1]]),
                                                            torch.tensor([[BOS_ID] + outputs[:-1]]))
    np.testing.assert_allclose(t.encoder_maps, encoder[0].numpy(), atol=1e-6)
    np.testing.assert_allclose(t.decoder_maps, decoder[0].numpy(), atol=1e-6)
    assert outputs[-1] == EOS_ID and t.output_labels[-1] == EOS  # the last row: the step that wrote <eos>
    assert t.output_labels[:-1] == [transformer.tokenizer.tgt.piece(i) for i in outputs[:-1]]


def test_a_line_of_sentences_gets_their_self_maps_block_diagonal(transformer):
    line = "I see the cat. Go."
    [whole] = transformer.translate([line], self_maps=True)
    parts = transformer.translate(["I see the cat.", "Go."], self_maps=True)
    assert len(whole.src_pieces) == sum(len(p.src_pieces) for p in parts)  # read as two sentences
    for field_name in ("encoder_maps", "decoder_maps"):
        blocks = [getattr(p, field_name) for p in parts]
        np.testing.assert_allclose(getattr(whole, field_name), block_diagonal(blocks), atol=1e-6)
    # A line with nothing the model can read: empty maps, as the cross-attention's
    [empty] = transformer.translate(["🐱"], maps=True, self_maps=True)
    layers, heads = empty.layout
    assert empty.maps.shape == empty.encoder_maps.shape == empty.decoder_maps.shape == (layers * heads, 0, 0)


def test_a_dropped_repeat_leaves_both_axes_of_the_decoders_self_maps(transformer, monkeypatch):
    """A step the repeats rule drops loses its row and the column of the piece it wrote: the columns stay
    the inputs ["<bos>"] + output_labels[:-1]."""
    from attention_lab.text import repeats as module

    text = SELF_MAPPED[1]
    [full] = transformer.translate([text], SearchParams(drop_repeats=False), self_maps=True)
    assert len(full.pieces) >= 4
    monkeypatch.setattr(module, "written_once", lambda pieces, source, join: [t for t in range(len(pieces)) if t != 1])
    [dropped] = transformer.translate([text], self_maps=True)
    rows = [t for t in range(len(full.output_labels)) if t != 1]
    assert dropped.output_labels == [full.output_labels[t] for t in rows]
    inputs = ["<bos>"] + full.output_labels[:-1]  # the columns' labels before the drop
    columns = [j for j in range(len(inputs)) if j != 2]  # input 2 is output 1, the dropped piece
    assert [inputs[j] for j in columns] == ["<bos>"] + dropped.output_labels[:-1]
    np.testing.assert_array_equal(dropped.decoder_maps, full.decoder_maps[:, rows][:, :, columns])
    assert (np.triu(dropped.decoder_maps, 1) == 0).all()
    np.testing.assert_array_equal(dropped.encoder_maps, full.encoder_maps)


def test_a_recurrent_model_has_no_self_maps(translator):
    off = translator.translate(SELF_MAPPED, maps=True)
    on = translator.translate(SELF_MAPPED + ["🐱"], maps=True, self_maps=True)
    assert_same_translations(off, on[:3])
    assert all(t.encoder_maps is None and t.decoder_maps is None for t in on)
