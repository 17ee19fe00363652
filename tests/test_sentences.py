"""A line of several sentences is translated sentence by sentence and joined with a space, in the
`Translator`, `attention-lab translate` and the served model alike; `split_sentences` off reads it whole."""

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import linear_work
from test_cli import cli

from attention_lab.data.special_tokens import EOS
from attention_lab.inference.translation import block_diagonal
from attention_lab.text.sentences import split
from attention_lab.inference.translator import SearchParams, SourceTooLong, Translator
from attention_lab.tracking import served_model

torch.set_num_threads(1)

FIRST, SECOND = "I see the cat.", "We like the book and she takes the car."
LINE = f"{FIRST} {SECOND}"


@pytest.fixture(scope="module")
def translator(trained_model) -> Translator:
    return Translator.load(trained_model, "cpu")


def test_split_finds_sentences_and_keeps_their_text():
    assert split("Close the window. It is cold in here.") == ["Close the window.", "It is cold in here."]
    assert split("Mr. Smith paid $3.50 for it. Really?! Yes.") == ["Mr. Smith paid $3.50 for it.", "Really?!", "Yes."]
    assert split("  Go.  ") == ["Go."]
    assert split("Visit Our Site At www.Example.com/ReadMe Today. Go!") == \
        ["Visit Our Site At www.Example.com/ReadMe Today.", "Go!"]  # a stop in an address ends no sentence
    assert split("I met Ms. Smith and Mrs. Jones. It was Ms. Lee.") == \
        ["I met Ms. Smith and Mrs. Jones.", "It was Ms. Lee."]  # nor a title's
    assert split("   ") == ["   "]  # nothing to split: the line as it is


def test_a_long_line_is_split_in_linear_work():
    """A run of end marks before a closing quote is read as one mark: tried at each of its characters, a long
    run not followed by one made n² steps."""
    run, n = "!" * 200_000, 20_000
    with linear_work(5):  # linear: 1 s in all; quadratic: minutes
        assert split(f"Wow{run} x") == [f"Wow{run} x"]
        quoted = f"« Wow{run}» she said."
        assert "".join(split(quoted)).replace(" ", "") == quoted.replace(" ", "")
        assert split("Stop it. " * n) == ["Stop it."] * n


def test_block_diagonal_puts_each_block_on_the_diagonal():
    a, b = np.ones((2, 3)), np.full((1, 2), 2.0)
    assert block_diagonal([a, b]).tolist() == [[1, 1, 1, 0, 0], [1, 1, 1, 0, 0], [0, 0, 0, 2, 2]]
    assert block_diagonal([np.ones((4, 2, 3)), np.ones((4, 1, 1))]).shape == (4, 3, 4)  # (R, T, S) maps


def test_a_line_of_two_sentences_is_their_translations_joined(translator):
    first, second = translator.translate([FIRST, SECOND], SearchParams(beam_size=4))
    [line] = translator.translate([LINE], SearchParams(beam_size=4), maps=True)
    assert line.source == LINE and line.text == f"{first.text} {second.text}"
    assert line.src_pieces == first.src_pieces + second.src_pieces and line.src_pieces.count(EOS) == 2
    assert line.pieces == first.pieces + second.pieces
    assert line.output_labels == first.output_labels + second.output_labels
    assert line.score == pytest.approx(first.score + second.score)
    (t1, s1), (t2, s2) = first.attention.shape, second.attention.shape
    assert line.attention.shape == (t1 + t2, s1 + s2) == line.maps.shape[1:]
    np.testing.assert_allclose(line.attention[:t1, :s1], first.attention, atol=1e-5)
    np.testing.assert_allclose(line.attention[t1:, s1:], second.attention, atol=1e-5)
    assert not line.attention[:t1, s1:].any() and not line.attention[t1:, :s1].any()  # each to its own source


@pytest.mark.parametrize("space", ["\u00a0", "\u2009", "\u3000", "\u2002"])
def test_a_unicode_space_before_a_stop_is_read_as_a_space_by_the_segmenter_too(translator, space):
    # sentencex panicked on these (a byte index inside the space) before the line was cleaned.
    [typed] = translator.translate([f"Plan B{space}. I see the cat{space}!"])
    assert typed.text == translator.translate(["Plan B . I see the cat !"])[0].text


def test_switched_off_the_line_is_read_as_one_sentence(translator):
    [whole] = translator.translate([LINE], SearchParams(beam_size=4, split_sentences=False))
    assert whole.src_pieces == translator.tokenizer.src.pieces(LINE) + [EOS]
    assert whole.text != translator.translate([LINE], SearchParams(beam_size=4))[0].text


def test_the_sentences_of_all_lines_are_searched_together_in_input_order(translator, monkeypatch):
    from attention_lab.inference import translator as module

    lines = [LINE, "Go.", f"{SECOND} {FIRST} Go."]
    expected = {s: t.text for s, t in zip([FIRST, SECOND, "Go."], translator.translate([FIRST, SECOND, "Go."]))}
    calls, search, done = [], module.run_search, []
    monkeypatch.setattr(module, "run_search", lambda *a, **k: calls.append(a[1].shape) or search(*a, **k))
    results = translator.translate(lines, progress=done.append)
    assert len(calls) == 1 and calls[0][0] == 6  # one batch of the lines' six sentences
    assert [t.text for t in results] == [f"{expected[FIRST]} {expected[SECOND]}", expected["Go."],
                                         f"{expected[SECOND]} {expected[FIRST]} {expected['Go.']}"]
    assert sum(done) == len(lines)  # progress counts lines, not sentences


def test_the_source_limit_holds_per_sentence(translator):
    limit = max(map(len, translator.tokenizer.src.encode_all([FIRST, SECOND])))
    assert len(translator.tokenizer.src.encode(LINE)) > limit
    [line] = translator.translate([LINE], SearchParams(max_source_pieces=limit))  # each sentence fits
    assert line.src_pieces.count(EOS) == 2
    with pytest.raises(SourceTooLong, match=r"^sentence 2: ") as exc:  # names the line
        translator.translate(["Go.", LINE], SearchParams(max_source_pieces=limit - 1))
    assert exc.value.index == 1


def test_word_mode_splits_and_joins_too(word_model):
    translator = Translator.load(word_model, "cpu")
    parts = translator.translate([FIRST, SECOND])
    assert translator.translate([LINE])[0].text == " ".join(t.text for t in parts)


def test_the_cli_splits_unless_told_not_to(trained_model, translator, capsys):
    joined = translator.translate([LINE])[0].text
    whole = translator.translate([LINE], SearchParams(split_sentences=False))[0].text
    assert cli(capsys, "translate", "--model", trained_model, "--device", "cpu", LINE) == (0, f"{joined}\n", "")
    assert cli(capsys, "translate", "--model", trained_model, "--device", "cpu", "--no-split", LINE) == \
        (0, f"{whole}\n", "")


def test_the_served_model_splits_unless_the_request_says_not_to(translator):
    served = served_model.TranslatorModel()
    served.translator = translator
    frame = pd.DataFrame({served_model.TEXT: [LINE, "", FIRST]})
    [joined, first] = [t.text for t in translator.translate([LINE, FIRST])]
    assert served.predict(None, frame)["translation"].tolist() == [joined, "", first]
    whole = translator.translate([LINE], SearchParams(split_sentences=False))[0].text
    assert served.predict(None, frame, {"split_sentences": False})["translation"].tolist() == [whole, "", first]
