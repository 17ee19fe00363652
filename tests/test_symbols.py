"""Characters the model cannot read (emoji, CJK) are carried around it to their place in the output,
and the rest translates as the sentence without them does; control and format characters are cleaned
away; no `<unk>` ever reaches an output."""

import functools

import numpy as np
import pytest
import torch
from conftest import linear_work
from test_cli import cli

from attention_lab.data.cleaning import clean
from attention_lab.data.special_tokens import UNK
from attention_lab.data.tokenizer import Codec
from attention_lab.text.number_forms import french_numbers
from attention_lab.text.symbols import Carried, number_word, put_back, take_out
from attention_lab.inference.number_spans import number_spans
from attention_lab.inference.translator import SearchParams, Translator

torch.set_num_threads(1)

PLAIN = "I see the cat."


@pytest.fixture(scope="module")
def translator(trained_model) -> Translator:
    return Translator.load(trained_model, "cpu")


def without(text: str, *runs: str) -> str:
    """`text` without `runs`, each with the space before it: what the translator gave without them."""
    for run in runs:
        text = text.replace(f" {run}", "") if f" {run}" in text else text.replace(run, "")
    return " ".join(text.split())


class Words(Codec):
    """A codec whose pieces are the words: for placing runs by a made-up attention."""

    def pieces(self, text):
        return text.split()

    def join(self, pieces):
        return " ".join(pieces)


def test_take_out_notes_each_run_and_its_place():
    reads = str.isascii
    assert take_out("I love 🐱 cats.", reads) == ("I love cats.", (Carried("🐱", 2, False, False),))
    assert take_out("🐱 I love cats 你你", reads) == ("I love cats", (Carried("🐱", None, False, False),
                                                                   Carried("你你", None, True, False)))
    assert take_out("I love cats🐱. 🐱Go", reads) == ("I love cats. Go", (Carried("🐱", 2, True, True, True),
                                                                        Carried("🐱", 3, False, True)))
    assert take_out("🐱🐱", reads) == ("", (Carried("🐱🐱", None, False, False),))
    assert take_out(PLAIN, reads) == (PLAIN, ())


def test_a_run_between_two_words_leaves_a_space_and_none_is_left_before_punctuation():
    reads = str.isascii
    assert take_out("Tom♥Mary are here.", reads) == ("Tom Mary are here.", (Carried("♥", 0, True, True, True),))
    assert take_out("Hi!♥ Go.", reads) == ("Hi! Go.", (Carried("♥", 0, True, True),))  # after its punctuation
    assert take_out("★ I see 🐱 the cat 你.", reads) == ("I see the cat.", (
        Carried("★", None, False, False), Carried("🐱", 2, False, False), Carried("你", 3, True, False)))
    assert take_out("naïve", reads) == ("nave", (Carried("ï", 0, True, True, True),))  # a letter is in its word


def test_a_long_line_of_runs_is_taken_out_in_linear_work():
    """What the model reads was split again at each run: n² steps on a line of runs between words."""
    n = 50_000
    with linear_work(8):  # linear: 1 s each; quadratic: 20 s each
        text, carried = take_out("a♥" * n, str.isascii)
        assert text == " ".join(["a"] * n) and [c.word for c in carried] == list(range(n))
        text, carried = take_out("♥ a " * n, str.isascii)  # each before its word, the first at the start
        assert text == " ".join(["a"] * n) and [c.word for c in carried] == [None, *range(1, n)]


def test_a_long_line_of_digit_groups_is_taken_out_in_linear_work():
    """A phone number's groups were tried from each group of a line of them, to its end: n² steps."""
    n = 100_000
    with linear_work(5):  # linear: 0.4 s; quadratic: hours
        assert take_out("12 " * n + "1", str.isascii) == (("12 " * n + "1"), ())  # no phone number: all read
    assert take_out("Call 06 12 34 56 78 now.", str.isascii)[1] == (Carried("06 12 34 56 78", 1, False, False),)


@pytest.mark.parametrize("amount", ["3½", "9¾", "12⅓", "1 ¼", "0⅞"])
@pytest.mark.parametrize("line", ["Bake {} minutes.", "{} cups.", "It weighs {}."])
def test_a_number_with_its_fraction_is_carried_whole_and_the_model_reads_neither(amount, line):
    text, runs = take_out(line.format(amount), str.isascii)
    assert [run.text for run in runs] == [amount]
    assert not any(char.isdigit() for char in text) and number_spans(text) == []  # no `3` for the search to write


@pytest.mark.parametrize("number", ["+33 1 42 68 53 00", "+1 555 123 4567", "+49 30 1234567", "+44 20 7946 0018"])
def test_a_phone_number_with_its_country_code_is_carried_whole(number):
    """Not the code and a group read and the rest carried (`+33 1` read, `42 68 53 00` carried)."""
    assert take_out(f"Call {number} today.", str.isascii) == ("Call today.", (Carried(number, 1, False, False),))
    assert [run.text for run in take_out(f"CALL {number}.", str.isascii)[1]] == [number]  # at the end too


@pytest.mark.parametrize("text", ["It rose +20 2023.", "Add +5 3 4 times.", "Score: +12 today."])
def test_a_plus_before_fewer_than_seven_digits_after_its_code_is_no_phone_number(text):
    assert take_out(text, str.isascii) == (text, ())


@pytest.mark.parametrize("text, kept, run", [
    ("Write to tom.smith@example.com.", "Write to.", Carried("tom.smith@example.com", 1, True, False)),
    ("Visit www.example.com for more.", "Visit for more.", Carried("www.example.com", 1, False, False)),
    ("See https://example.com/a?b=1. Go", "See. Go", Carried("https://example.com/a?b=1", 0, True, False)),
    ("I use tatoeba.org daily.", "I use daily.", Carried("tatoeba.org", 2, False, False)),
    ("It is -5 degrees.", "It is 5 degrees.", Carried("-", 2, False, True)),
    ("It fell to −3 today.", "It fell to 3 today.", Carried("−", 3, False, True)),
    ("-5 is cold.", "5 is cold.", Carried("-", 0, False, True)),
    ("See “www.example.com”.", "See “ ”.", Carried("www.example.com", 1, True, True)),  # the quotes are not in it
    ("WRITE TO TOM@EXAMPLE.COM.", "WRITE TO.", Carried("TOM@EXAMPLE.COM", 1, True, False)),
    ("Visit Www.Example.Com/ReadMe Today.", "Visit Today.", Carried("Www.Example.Com/ReadMe", 1, False, False)),
    ("Version 1.2.3 is out.", "Version is out.", Carried("1.2.3", 1, False, False)),
    ("My IP is 192.168.1.1.", "My IP is.", Carried("192.168.1.1", 2, True, False)),
    ("Use v1.2.3 now.", "Use now.", Carried("v1.2.3", 1, False, False)),
    ("Try 1.2.3-beta today.", "Try today.", Carried("1.2.3-beta", 1, False, False)),
    ("We won 3-2 today.", "We won today.", Carried("3-2", 2, False, False)),
    ("Call 1-800-828-6322 now.", "Call now.", Carried("1-800-828-6322", 1, False, False)),
    ("Add 1/2 cup.", "Add cup.", Carried("1/2", 1, False, False)),
    ("Ask @tom_smith now.", "Ask now.", Carried("@tom_smith", 1, False, False)),
    ("Eggs, milk, etc.", "Eggs, milk,.", Carried("etc", 1, True, False)),
    ("Eggs, milk, etc. are cheap.", "Eggs, milk, are cheap.", Carried("etc.", 2, False, False)),
    ("Ask @tom-smith now.", "Ask now.", Carried("@tom-smith", 1, False, False)),
])
def test_addresses_minus_signs_and_dotted_chains_are_carried_although_the_model_reads_them(text, kept, run):
    assert take_out(text, lambda char: True) == (kept, (run,))


@pytest.mark.parametrize("text", ["I went home.then I slept.", "Use Node.js, e.g. this.", "It is 5 - 3.",
                                  "(−3) is less.", "A 3-year-old boy.", "COVID-19 is here.", "It is 5-3a.",
                                  "Mail tom@example", "Sketches etc are here.", "Open 9:00-17:00 daily.", "The etcher.",
                                  "The ratio was 3:-2.",
                                  "Set x=-5 now.",
                                  "Call (555)-123-4567.", "Awww.that is cute.", "Ask Mr.De Niro.",
                                  "I'm tired.Net profit fell.", "It costs 2.50 now.", "Get 1.2.3.tar now.",
                                  "It is 1.5."])
def test_text_like_an_address_or_a_sign_is_read(text):
    assert take_out(text, lambda char: True) == (text, ())


def test_an_address_is_carried_whole_and_the_rest_is_the_translation_without_it(translator):
    [plain] = translator.translate([PLAIN])
    [result] = translator.translate(["I see the cat www.example.com."])
    assert result.carried == ["www.example.com"] and result.src_pieces == plain.src_pieces
    assert without(result.text, "www.example.com") == plain.text and result.text.count("www.example.com") == 1


@pytest.mark.parametrize("cluster", ["👨\u200d👩\u200d👧", "👍🏽", "🇫🇷", "🏳️\u200d🌈", "1️⃣"])
def test_a_grapheme_cluster_is_carried_whole(cluster):
    assert clean(f"I see {cluster} cats.") == f"I see {cluster} cats."
    # `1️⃣` holds a digit the model reads: the cluster is carried whole all the same
    assert take_out(f"I see {cluster} cats.", lambda char: char.isascii() and not char.isdigit() or char == "1") == (
        "I see cats.", (Carried(cluster, 2, False, False),))


def test_put_back_places_each_run_by_attention():
    # "the black cat." -> "le chat noir.": "black" (source word 1) attends to "noir." (output word 2)
    attention = np.array([[.9, 0, 0, .1], [0, .1, .8, .1], [0, .8, .1, .1], [0, 0, 0, 1]])  # (T, S)
    source, pieces, codec = "the black cat.", ["le", "chat", "noir."], Words()
    place = functools.partial(put_back, source=source, pieces=pieces, attention=attention, src=codec, tgt=codec)
    assert place([Carried("🐱", 1, False, False)]) == "le chat 🐱 noir."
    assert place([Carried("♥", 1, True, True)]) == "le chat noir.♥"
    assert place([Carried("♥", 1, True, True, True)]) == "le chat noir♥."  # typed `black♥`: before the French period
    assert place([Carried("你", 2, True, False)]) == "le chat 你 noir."  # after the word of "cat." (chat)
    assert place([Carried("★", 1, True, False)]) == "le chat noir ★."  # before the period
    assert place([Carried("★", None, False, False), Carried("你", None, True, False)]) == "★ le chat noir. 你"


def test_a_run_placed_after_a_french_punctuation_word_goes_before_it():
    # "where were you on ?" -> "où étiez-vous ?": "on" (source word 3) attends most to "?"
    attention = np.array([[.9, 0, 0, 0, 0, .1], [0, .5, .4, 0, 0, .1], [0, 0, 0, .5, .4, .1], [0, 0, 0, 0, 0, 1]])
    codec = Words()
    placed = put_back([Carried("9/11", 3, True, False)], "where were you on ?", ["où", "étiez-vous", "?"], attention,
                      codec, codec)
    assert placed == "où étiez-vous 9/11 ?"
    # A closing guillemet is no such word: the run stays outside the quote.
    attention = np.array([[.9, 0, 0, .1], [0, .9, 0, .1], [0, 0, .9, .1], [0, 0, 0, 1]])
    assert put_back([Carried("🐱", 2, True, False)], "il dit go", ["il", "dit", "»"], attention, codec,
                    codec) == "il dit » 🐱"


def test_a_run_after_a_clauses_mark_goes_after_the_outputs_mark_not_where_attention_points():
    # "i know, he said." -> "je sais pas, dit-il.": "know," (source word 1) attends most to "sais"
    attention = np.array([[.9, 0, 0, 0, .1], [0, .9, 0, 0, .1], [0, .5, .4, 0, .1], [0, 0, .5, .4, .1],
                          [0, 0, 0, .9, .1]])  # (T, S)
    source, pieces, codec = "i know, he said.", ["je", "sais", "pas,", "dit-il", "."], Words()
    place = functools.partial(put_back, source=source, pieces=pieces, attention=attention, src=codec, tgt=codec)
    assert place([Carried("»", 1, True, True)]) == "je sais pas,» dit-il ."
    assert place([Carried("»", 2, True, True)]) == "je sais pas, dit-il» ."  # `he`: no mark, attention decides
    assert place([Carried("🐱", 1, True, False)]) == "je sais 🐱 pas, dit-il ."  # spaced: by attention
    without_mark = ["je", "sais", "pas", "dit-il", "."]
    assert place([Carried("»", 1, True, True)], pieces=without_mark) == "je sais» pas dit-il ."
    # Never past the next source word's output word: "il" (of "he") comes before the next comma.
    attention = np.array([[.9, 0, 0, 0, 0, .1], [0, .9, 0, 0, 0, .1], [0, 0, .9, 0, 0, .1], [0, 0, 0, .9, 0, .1],
                          [0, 0, 0, 0, .9, .1], [0, 0, 0, 0, 0, 1]])  # (T, S)
    assert put_back([Carried("»", 1, True, True)], "i know, he said, ok", ["je", "sais", "il", "dit,", "ok"],
                    attention, codec, codec) == "je sais» il dit, ok"


def test_a_minus_sign_goes_back_against_its_number_wherever_attention_points():
    # "it is 5 degrees." -> "il fait 5 degrés.": the word "5" attends most to "il"
    attention = np.array([[0, 0, .9, 0, .1], [.5, .4, 0, 0, .1], [.3, .3, .3, 0, .1], [0, 0, 0, .9, .1]])  # (T, S)
    codec = Words()
    placed = put_back([Carried("-", 2, False, True)], "it is 5 degrees.", ["il", "fait", "5", "degrés."], attention,
                      codec, codec)
    assert placed == "il fait -5 degrés."
    assert put_back([Carried("🐱", 2, False, True)], "it is cat degrees.", ["il", "fait", "chat", "degrés."],
                    attention, codec, codec) == "🐱il fait chat degrés."  # no number: attention decides


@pytest.mark.parametrize("word, words, at", [("5", ["il", "fait", "5"], 2), ("5", ["50", "5,5"], 1),
                                             ("5.5", ["(5,5)"], 0), ("cat", ["5"], None), ("5", ["six"], None)])
def test_number_word(word, words, at):
    assert number_word(word, words) == at


def test_runs_go_to_the_words_of_the_text_as_recased_when_its_numbers_join_words():
    # "2.5 cats here." -> "2 5 chats ici.", recased "2,5 chats ici.": one word fewer before "chats"
    attention = np.array([[.9, 0, 0, .1], [.9, 0, 0, .1], [0, .9, 0, .1], [0, 0, .9, .1]])  # (T, S)
    codec, source = Words(), "2.5 cats here."
    assert put_back([Carried("🐱", 1, True, True)], source, ["2", "5", "chats", "ici."], attention, codec, codec,
                    lambda text: french_numbers(text, source)) == "2,5 chats🐱 ici."


@pytest.mark.parametrize("symbol", ["🐱", "你", "🐱🐱", "👨\u200d👩\u200d👧"])
def test_a_symbol_is_carried_to_the_word_it_stood_by_and_the_rest_is_the_plain_translation(translator, symbol):
    [plain] = translator.translate([PLAIN])
    [result] = translator.translate([f"I see the {symbol} cat."])
    assert result.carried == [symbol] and result.text.count(symbol) == 1
    assert without(result.text, symbol) == plain.text
    assert result.src_pieces == plain.src_pieces  # the model never read it
    # before the output word that attends most to "cat", as the plain translation's attention says
    expected = put_back((Carried(symbol, 3, False, False),), PLAIN, plain.pieces, plain.attention,
                        translator.tokenizer.src, translator.tokenizer.tgt)
    assert result.text == expected


def test_a_run_between_two_words_reaches_the_model_as_a_space(translator):
    [spaced] = translator.translate(["Tom Mary are here."])
    [glued] = translator.translate(["Tom♥Mary are here."])
    assert glued.src_pieces == spaced.src_pieces and glued.carried == ["♥"]
    assert without(glued.text, "♥") == spaced.text


def test_symbols_at_the_start_and_end_stay_there_and_several_go_back_each(translator):
    # One sentence a call: each is the same computation as the plain sentence's, on any processor.
    [plain] = translator.translate([PLAIN])
    [start], [end], [many] = (translator.translate([line]) for line in
                              (f"🐱 {PLAIN}", f"{PLAIN} 你", "★ I see 🐱 the cat 你."))
    assert start.text == f"🐱 {plain.text}" and end.text == f"{plain.text} 你"
    assert many.src_pieces == plain.src_pieces  # no space before the period reached the model
    assert many.carried == ["★", "🐱", "你"] and many.text.startswith("★ ")
    assert without(many.text, "★", "🐱", "你") == plain.text and all(s in many.text for s in "★🐱你")


def test_a_line_of_symbols_alone_is_itself_with_no_search(translator, monkeypatch):
    monkeypatch.setattr("attention_lab.inference.translator.run_search", lambda *a, **k: pytest.fail("searched"))
    assert [t.text for t in translator.translate(["🐱", "🐱 你"])] == ["🐱", "🐱 你"]
    # With punctuation the model would read alone, too: the sentence is given back as written.
    lines = ["🐱.", "www.example.com.", "etc.", "@tom!", "...", "🐱!!!"]
    assert [t.text for t in translator.translate(lines)] == [*lines[:-1], "🐱 !!!"]


def test_the_cli_notes_the_carried_characters(trained_model, translator, capsys):
    [result] = translator.translate(["I see the 🐱 cat."])
    code, out, err = cli(capsys, "translate", "--model", trained_model, "--device", "cpu", "I see the 🐱 cat.")
    assert (code, out) == (0, f"{result.text}\n") and "🐱" in out
    assert err == "note: line 1: not read by the model, carried to the output as written: 🐱\n"


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
