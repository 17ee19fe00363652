"""A sentence typed without its end mark, or with a run of them, is read with the one the corpus would
write; every comparison is with the same model's translation of the sentence written with it."""

import pytest
import torch

from conftest import linear_work
from attention_lab.text.end_mark import read_run, with_end_mark, with_run
from attention_lab.inference.translator import SearchParams, Translator

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def translator(trained_model) -> Translator:
    return Translator.load(trained_model, "cpu")


@pytest.mark.parametrize("sentence, expected", [
    ("I see the cat", "I see the cat."), ("Where is the cat", "Where is the cat?"),
    ("how's it going", "how's it going?"), ("Where'd he go", "Where'd he go?"), ("Can you help me", "Can you help me?"),
    ("Is Tom here", "Is Tom here?"), ("Does it hurt", "Does it hurt?"), ("Do the kids know", "Do the kids know?"),
    ("Don’t you see", "Don’t you see?"), ("Is anything wrong", "Is anything wrong?"),
    ("What a day", "What a day!"), ("Do it now", "Do it now."), ("Don't do that", "Don't do that."),
    ("Have a seat", "Have a seat."), ("Have fun", "Have fun."), ("Can't stop", "Can't stop."),
    ("Do something", "Do something."), ("It rose 15%", "It rose 15%."), ("I see the cat  ", "I see the cat."),
    ("He said \"hi\"", "He said \"hi.\""), ("\"Where is it\"", "\"Where is it?\""), ("'Can I go'", "'Can I go?'"),
    ("(where is it) ", "(where is it?)"), ("You know him, don't you", "You know him, don't you?"),
    ("So, what's up", "So, what's up?"), ("Oh, what a day", "Oh, what a day!"),
    ("When I got home, I slept", "When I got home, I slept."), ("Where is it, please", "Where is it, please?"),
    ("I met Tom, who is a doctor", "I met Tom, who is a doctor."),
    ("Where is it? I see the cat", "Where is it? I see the cat."), ("I see it. Where is it", "I see it. Where is it?"),
])
def test_a_sentence_without_an_end_mark_gets_the_one_its_first_words_call_for(sentence, expected):
    assert with_end_mark(sentence) == expected


@pytest.mark.parametrize("sentence", [
    "I see the cat.", "Where is it?", "Stop!", "Wait…", "He said \"hi.\"", "« Où ? »", "Well,", "Then:", "", "🐱 ♥",
])
def test_a_sentence_with_an_end_mark_or_no_word_is_kept_as_it_is(sentence):
    assert with_end_mark(sentence) == sentence


@pytest.mark.parametrize("line, read", [
    ("I see the cat", "I see the cat."), ("i see the cat", "I see the cat."),
    ("We like the book", "We like the book."), ("I see the cat 🐱", "I see the cat."),
])
def test_a_line_without_an_end_mark_is_the_translation_of_the_line_with_it(translator, line, read):
    for search in (SearchParams(beam_size=1), SearchParams(beam_size=3)):
        [typed] = translator.translate([line], search)
        [written] = translator.translate([read], search)
        assert typed.src_pieces == written.src_pieces and typed.source == line
        assert typed.text.replace(" 🐱", "") == written.text


def test_each_sentence_of_a_line_gets_its_own_end_mark(translator):
    [first] = translator.translate(["I see the cat."])
    [second] = translator.translate(["We like the book."])
    [line] = translator.translate(["I see the cat. we like the book"])
    assert line.text == f"{first.text} {second.text}"
    [whole] = translator.translate(["I see the cat"], SearchParams(split_sentences=False))
    assert whole.src_pieces == first.src_pieces


@pytest.mark.parametrize("sentence, read, run", [
    ("Really?!", "Really?", "?!"), ("What!?", "What?", "!?"), ("Stop!!!", "Stop!", "!!!"), ("Why??", "Why?", "??"),
    ("Wait...", "Wait.", "..."), ("Wait…", "Wait.", "…"), ("Just a moment ...", "Just a moment .", "..."),
    ('He said "no!!"', 'He said "no!"', "!!"), ("« Quoi ?! » ", "« Quoi ? » ", "?!"),
    ("Stop!", "Stop!", ""), ("Wait... then go.", "Wait... then go.", ""), ("Mr. Smith.", "Mr. Smith.", ""),
    ("", "", ""),
])
def test_a_run_of_end_marks_is_read_as_the_one_mark_the_corpus_writes(sentence, read, run):
    assert read_run(sentence) == (read, run)


def test_a_long_run_of_marks_or_sentence_is_read_in_linear_work():
    """A run tried at each of its characters and given back one at a time made n² steps: 2.8 s for 10,000 `!`."""
    n = 200_000
    run, closers = "!" * n, " )" * n
    with linear_work(2):  # linear: under 0.1 s in all; quadratic: over 5 minutes each
        assert read_run(f"Wow{run} x") == (f"Wow{run} x", "")
        assert read_run(f"Wow{run}{closers}") == (f"Wow!{closers}", run)
        assert with_end_mark("I see the cat " * (n // 14)) == "I see the cat " * (n // 14 - 1) + "I see the cat."
        assert with_end_mark("Stop. " * (n // 6) + "where is it") == "Stop. " * (n // 6) + "where is it?"
        assert with_end_mark(f"a{closers}b") == f"a{closers}b."


@pytest.mark.parametrize("translation, run, expected", [
    ("Arrête !", "!!!", "Arrête !!!"), ("Quoi ?", "?!", "Quoi ?!"), ("Quoi.", "?!", "Quoi ?!"),
    ("Attends.", "...", "Attends..."), ("Attends", "…", "Attends…"),
    ("Il a dit « Non ! »", "!!", "Il a dit « Non !! »"), ("Arrête !", "", "Arrête !"), ("", "!!", "!!"),
])
def test_the_translation_ends_with_the_run_as_typed_spaced_as_french_spaces_it(translation, run, expected):
    assert with_run(translation, run) == expected


def test_a_sentence_typed_with_a_run_of_end_marks_reads_and_translates_as_with_one(translator):
    for typed_line, written_line, run in (("I see the cat!!!", "I see the cat!", "!!!"),
                                          ("Where is the cat?!", "Where is the cat?", "?!"),
                                          ("We like the book...", "We like the book.", "...")):
        [typed] = translator.translate([typed_line])
        [written] = translator.translate([written_line])
        assert typed.src_pieces == written.src_pieces and typed.text == with_run(written.text, run)
        assert typed.text.endswith(run) and not typed.text.endswith(run[-1] * (len(run) + 1))
