"""Double quotes that pair up are read around, and given back as French guillemets: the model reads a
quoted sentence as the sentence without its quotes, and the translation is that sentence's, with the
guillemets in place and spaced the French way."""

import re
from dataclasses import replace

import pytest
import torch

from attention_lab.text.quotes import Quotes, edges, guillemets, outside_quotes, paired, requoted
from attention_lab.text.sentences import split
from attention_lab.text.symbols import take_out
from attention_lab.inference.translator import SearchParams, Translator

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def translator(trained_model) -> Translator:
    return Translator.load(trained_model, "cpu")


def unquoted(text: str) -> str:
    """`text` without its guillemets, a comma or stop moved out of a quote put back against its word."""
    return re.sub(r" ([,.])", r"\1", " ".join(re.sub("[«»]", " ", text).split()))


@pytest.mark.parametrize("line, expected", [
    ('"Come here," she said.', "«Come here,» she said."),
    ('She said "no" and "yes".', "She said «no» and «yes»."),
    ("“I agree,” Tom said.", "«I agree,» Tom said."),
    ('"Hi," he said, “bye.”', "«Hi,» he said, «bye.»"),
    ('("Hi")', "(«Hi»)"), ('""', "«»"), ("He said « hello » to me.", "He said «hello» to me."),
])
def test_quotes_that_pair_up_become_guillemets(line, expected):
    assert guillemets(line) == expected


@pytest.mark.parametrize("line", [
    'She said "no.', 'A "b" "c', "“Hi“ there.", "”Hi“", "I see the cat.", '5\'11" tall', 'It is 12" by 12".',
    '“He said "hi" to me.”', 'He said"hi"to me.', 'A " b', '""""',
])
def test_quotes_that_do_not_pair_up_are_left_as_typed(line):
    assert guillemets(line) == line


def test_a_quote_ending_in_an_end_mark_ends_its_sentence_and_an_opening_one_goes_with_the_next():
    assert split("«Where is it?» she asked.") == ["«Where is it?»", "she asked."]
    assert split("«Says who?» «Says me.»") == ["«Says who?»", "«Says me.»"]
    assert split("«Hi. How are you?» he asked.") == ["«Hi.", "How are you?»", "he asked."]
    assert split("«Come here,» she said.") == ["«Come here,» she said."]  # a comma ends no sentence
    assert split("Hi. «") == ["Hi.", "«"]  # an opening guillemet with no sentence after it stays
    for run in ("?!", "!!", "...", "…"):  # read as its one mark, which sentencex ends a sentence at
        assert split(f"«Really{run}» she asked.") == [f"«Really{run}»", "she asked."]


def test_edges_take_out_the_sentence_s_own_guillemets_and_note_the_capitals_inside():
    assert edges("«Come here,» she said.") == ("Come here,» she said.", Quotes(True, False))
    assert edges("Tom said, «I'm hungry.»") == ("Tom said, «I'm hungry.", Quotes(False, True, (True,)))
    assert edges("She said «no» and «Yes».") == ("She said «no» and «Yes».", Quotes(capitals=(False, True)))
    assert edges("«»") == ("", Quotes(True, True))
    assert edges("She said «no»") == ("She said «no»", Quotes(capitals=(False,)))  # its end mark goes after it
    assert edges("How are you?»") == ("How are you?", Quotes(closes=True, within=False))  # its « was a sentence back


@pytest.mark.parametrize("text, expected", [
    ("« Oui », dit-il.", True), ("Il a dit « oui » et « non ».", True), ("Rien.", True), ("« Oui. »", True),
    ("« « Salut ». »", False), ("J'ai dit oui « ! »", False), ("» Non «", False), ("« Oui", False),
])
def test_paired_tells_guillemets_in_turn_each_around_a_word(text, expected):
    assert paired(text) is expected


def test_requoted_spaces_guillemets_the_french_way():
    assert requoted("Viens ici,» Tom a dit.", Quotes(opens=True)) == "« Viens ici », Tom a dit."  # the clause as the model wrote it
    assert requoted("Elle a dit «non».", Quotes()) == "Elle a dit « non »."
    assert requoted("Elle a dit «non.", Quotes(within=False)) == "Elle a dit « non."  # `He said "No. Go."`
    assert requoted("Il a dit, «j'ai faim.", Quotes(closes=True, capitals=(True,))) == "Il a dit, « J'ai faim. »"
    assert requoted("Il a dit «chat» et «chien».", Quotes(capitals=(False, True))) == \
        "Il a dit « chat » et « Chien »."
    assert requoted("Où ?", Quotes(True, True)) == "« Où ? »"
    assert requoted("", Quotes(True, True)) == "« »"
    assert requoted("Je vois le chat.", Quotes()) == "Je vois le chat."
    assert requoted("Il a dit«oui»et partit.", Quotes(capitals=(False,))) == "Il a dit « oui » et partit."
    assert requoted("Il a dit «attends...» et partit.", Quotes(capitals=(False,))) == \
        "Il a dit « attends... » et partit."  # an ellipsis stays whole, inside
    assert requoted("Comment vas-tu ?", Quotes(closes=True, within=False)) == "Comment vas-tu ? »"
    assert requoted("Elle est partie.", Quotes(continues=True)) == "elle est partie."
    assert edges("she asked.", continues=True)[1].continues


def test_guillemets_attention_placed_out_of_turn_are_dropped_with_an_edge_one_left_alone():
    assert requoted("Salut »« .", Quotes(True, True)) == "« Salut. »"
    assert requoted("J'ai dit oui «!»", Quotes()) == "J'ai dit oui !"
    _, quotes = edges("He said «go,» «stop,» and «wait.»")
    assert requoted("Il a dit d'y aller,» « n'attendez pas.", quotes) == "Il a dit d'y aller, n'attendez pas."


@pytest.mark.parametrize("quoted, plain", [
    ('"I see the cat," she said.', "I see the cat, she said."),
    ('She said "I see the cat."', "She said I see the cat."),
    ("“We like the book,” he said.", "We like the book, he said."),
    ('I see "the cat" and the book.', "I see the cat and the book."),
])
def test_a_quoted_sentence_is_read_without_its_quotes_and_its_translation_is_that_one_s(translator, quoted, plain):
    for search in (SearchParams(beam_size=1), SearchParams(beam_size=3)):
        [typed] = translator.translate([quoted], search)
        [written] = translator.translate([plain], search)
        assert typed.src_pieces == written.src_pieces
        assert paired(typed.text) and typed.carried == written.carried  # guillemets are no characters it lacks
        assert re.search(r"«(?! )|(?<! )»|(?<=\S)«|»(?=\w)", typed.text) is None  # spaced the French way
        assert unquoted(typed.text).lower() == written.text.lower()  # a quote's first letter may be made a capital
        if quoted.startswith(('"', "“")):
            assert typed.text.startswith("« ")
        [whole] = translator.translate([quoted], replace(search, split_sentences=False))
        assert whole.text == typed.text  # one sentence: split or not alike


def test_a_sentence_typed_in_quotes_is_its_translation_in_guillemets(translator):
    [plain, typed] = translator.translate(["Where is the cat?", '"Where is the cat?"'])
    assert typed.text == f"« {plain.text} »" and typed.src_pieces == plain.src_pieces
    [two] = translator.translate(['"I see the cat." "We like the book."'])
    first, second = translator.translate(["I see the cat.", "We like the book."])
    assert two.text == f"« {first.text} » « {second.text} »"
    [told] = translator.translate(['"I see the cat." we like the book.'])  # a sentence going on after a quote
    assert told.text == f"« {first.text} » {second.text[:1].lower()}{second.text[1:]}"
    [capital] = translator.translate(['"I see the cat." We like the book.'])
    assert capital.text == f"« {first.text} » {second.text}"


def test_unpaired_quotes_are_read_as_typed(translator):
    [typed] = translator.translate(['She said "I see the cat.'])
    assert not {"«", "»"} & set(typed.text + "".join(typed.carried))


def test_a_minus_sign_that_opens_a_quote_is_carried_as_after_a_space():
    reads = str.isascii
    assert take_out("He said «-5 degrees».", outside_quotes(reads))[0] == "He said 5 degrees."
    assert take_out("He said -5 degrees.", reads)[0] == "He said 5 degrees."
