"""Characters the model cannot read (emoji, CJK) are carried around it to their place in the output,
and the rest translates as the sentence without them does; control and format characters are cleaned
away; no `<unk>` ever reaches an output."""

import pytest
import torch
from test_cli import cli

from attention_lab.data.special_tokens import UNK
from attention_lab.inference.symbols import Carried, take_out
from attention_lab.inference.translator import SearchParams, Translator

torch.set_num_threads(1)

PLAIN = "I see the cat."


@pytest.fixture(scope="module")
def translator(trained_model) -> Translator:
    return Translator.load(trained_model, "cpu")


def without(text: str, *runs: str) -> str:
    for run in runs:
        text = text.replace(run, "")
    return " ".join(text.split())


def test_take_out_notes_each_run_and_its_place():
    reads = str.isascii
    assert take_out("I love 🐱 cats.", reads) == ("I love cats.", (Carried("🐱", 2, False, False),))
    assert take_out("🐱 I love cats 你你", reads) == ("I love cats", (Carried("🐱", None, False, False),
                                                                   Carried("你你", None, True, False)))
    assert take_out("I love cats🐱. 🐱Go", reads) == ("I love cats. Go", (Carried("🐱", 2, True, True),
                                                                        Carried("🐱", 3, False, True)))
    assert take_out("🐱🐱", reads) == ("", (Carried("🐱🐱", None, False, False),))
    assert take_out(PLAIN, reads) == (PLAIN, ())


@pytest.mark.parametrize("symbol", ["🐱", "你", "🐱🐱"])
def test_a_symbol_is_carried_to_the_word_it_stood_by_and_the_rest_is_the_plain_translation(translator, symbol):
    [plain] = translator.translate([PLAIN])
    [result] = translator.translate([f"I see the {symbol} cat."])
    assert result.carried == [symbol] and result.text.count(symbol) == 1
    assert without(result.text, symbol) == plain.text
    assert result.src_pieces == plain.src_pieces  # the model never read it
    # before the word that attends most to "cat": "chat" (the tiny model translates "le chat")
    assert f"{symbol} chat" in result.text and "chat" in plain.text


def test_symbols_at_the_start_and_end_stay_there_and_several_go_back_each(translator):
    [plain] = translator.translate([PLAIN])
    [start, end, many] = translator.translate([f"🐱 {PLAIN}", f"{PLAIN} 你", f"★ I see 🐱 the cat 你."])
    assert start.text == f"🐱 {plain.text}" and end.text == f"{plain.text} 你"
    assert many.carried == ["★", "🐱", "你"] and many.text.startswith("★ ")
    assert without(many.text, "★", "🐱", "你") == plain.text and all(s in many.text for s in "★🐱你")


def test_a_line_of_symbols_alone_is_itself_with_no_search(translator, monkeypatch):
    monkeypatch.setattr("attention_lab.inference.translator.run_search", lambda *a, **k: pytest.fail("searched"))
    assert [t.text for t in translator.translate(["🐱", "🐱 你"])] == ["🐱", "🐱 你"]


def test_the_cli_notes_the_carried_characters(trained_model, translator, capsys):
    [result] = translator.translate([f"I see the 🐱 cat."])
    code, out, err = cli(capsys, "translate", "--model", trained_model, "--device", "cpu", "I see the 🐱 cat.")
    assert (code, out) == (0, f"{result.text}\n") and "🐱" in out
    assert err == "note: line 1: characters the model cannot read, carried to the output as they are: 🐱\n"


@pytest.mark.parametrize("noisy", ["I see\x00 the cat.", "I see\u200b the cat.", "I see \x1b[31mthe cat\x1b[0m.",
                                   "\ufeffI see the cat."])
def test_control_and_format_characters_leave_the_translation_unchanged(translator, noisy):
    [plain, result] = translator.translate([PLAIN, noisy])
    assert result.text == plain.text and result.carried == []


@pytest.mark.parametrize("model", ["trained_model", "word_model"])
def test_no_unk_in_any_output_whatever_the_characters(model, request):
    translator = Translator.load(request.getfixturevalue(model), "cpu")
    lines = ["Kowalski 🐱 sees the dog. 你好!", "🐱", "Go, Priya ★!", "Zoë paid 3,50 € in Łódź."]
    for beam in (1, 4):
        for result in translator.translate(lines, SearchParams(beam_size=beam)):
            assert UNK not in result.text and result.text
