"""A reporting clause after a quote is written verb first, as French writes it; any other text is left."""

import numpy as np
import pytest

from attention_lab.text.quotes import Quotes, requoted
from attention_lab.text.reporting import SIMPLE_PAST, after_quotes, verb_first
from attention_lab.inference.translator import Translation, joined


@pytest.mark.parametrize("clause, inverted", [
    ("elle a dit.", "dit-elle."), ("il a demandé en riant.", "demanda-t-il en riant."),
    ("ils ont répondu.", "répondirent-ils."), ("elles ont crié !", "crièrent-elles !"), ("on a dit.", "dit-on."),
    ("il a chuchoté.", "a-t-il chuchoté."), ("elles ont chuchoté.", "ont-elles chuchoté."),
    ("Elle a ajouté.", "ajouta-t-elle."),
])
def test_a_pronoun_clause_of_speech_is_written_verb_first(clause, inverted):
    assert verb_first(clause) == inverted


@pytest.mark.parametrize("clause, inverted", [
    ("Tom a dit.", "dit Tom."), ("Marie a répondu à Tom.", "répondit Marie à Tom."),
    ("Jean-Luc a demandé !", "demanda Jean-Luc !"), ("Éric a dit.", "dit Éric."),
])
def test_a_name_goes_after_a_verb_of_speech_in_the_simple_past(clause, inverted):
    assert verb_first(clause) == inverted


@pytest.mark.parametrize("text", ["Tom a chuchoté.", "Tom a des chats.", "Tom et Marie ont dit.", "tom a dit.",
                                  "Cela a dit.", "TOM a dit.",
                                  "Tom a dit « non ».", "TV a dit.", "elle a des chats.", "il est parti.", "il a fini.",
                                  "ils a dit.", "il ont dit.", "ville a dit.", "« il a dit »", ""])
def test_anything_else_is_left_as_written(text):
    assert verb_first(text) == after_quotes(text) == text


def test_a_clause_that_follows_no_quote_is_left_as_written():
    assert after_quotes("Il a dit « non ».") == "Il a dit « non »."
    assert after_quotes("Il a dit « non », elle a dit « oui ».") == "Il a dit « non », elle a dit « oui »."
    assert after_quotes("« Non », elle a dit : « oui ».") == "« Non », elle a dit : « oui »."


@pytest.mark.parametrize("text, inverted", [
    ("« Viens ici », elle a dit.", "« Viens ici », dit-elle."), ("« Où ? » il a demandé.", "« Où ? » demanda-t-il."),
    ("« Un », il a dit, « deux », elle a répondu.", "« Un », dit-il, « deux », répondit-elle."),
    ("« Écoute », Tom a dit.", "« Écoute », dit Tom."), ("« Non », Tom a chuchoté.", "« Non », Tom a chuchoté."),
    ("Il a dit : « Oui. » Elle a ri.", "Il a dit : « Oui. » Elle a ri."),
])
def test_after_quotes_inverts_each_clause_right_after_a_quotes_end(text, inverted):
    assert after_quotes(text) == inverted


def test_each_simple_past_is_a_word_and_plural_ends_in_rent():
    assert all(one.isalpha() and many.endswith("rent") for one, many in SIMPLE_PAST.values())


def test_requoted_inverts_a_clause_that_goes_on_after_a_quote_and_one_inside_a_sentence():
    assert requoted("Elle a demandé.", Quotes(continues=True)) == "demanda-t-elle."
    assert requoted("Elle a demandé.", Quotes()) == "Elle a demandé."  # a sentence of its own
    assert requoted("Viens ici, elle a dit.", Quotes(opens=True, capitals=())) != "« Viens ici, dit-elle."
    assert requoted("« viens ici, » elle a dit.", Quotes(capitals=(True,))) == "« Viens ici », dit-elle."


def part(text: str) -> Translation:
    return Translation(source="", src_pieces=[], pieces=[], output_labels=[], text=text, score=0.0,
                       attention=np.zeros((0, 0)), unknown=[], carried=[])


@pytest.mark.parametrize("texts, line", [
    (["« Où allez-vous ? »", "Tom a demandé."], "« Où allez-vous ? » demanda Tom."),
    (["« Où ? »", "Elle a demandé."], "« Où ? » demanda-t-elle."), (["« Arrête ! »", "Il a crié !"],
                                                                  "« Arrête ! » cria-t-il !"),
    (["« Il est parti. »", "Tom a dit."], "« Il est parti. » Tom a dit."),  # after a full stop: a sentence
    # A sentence of its own that does more than report speech is left.
    (["« Arrête ! »", "Il a sauté."], "« Arrête ! » Il a sauté."),
    (["« Où ? »", "Elle a commencé à pleurer."], "« Où ? » Elle a commencé à pleurer."),
    (["Elle a demandé « Pourquoi ? »", "Tom a dit non."], "Elle a demandé « Pourquoi ? » Tom a dit non."),
])
def test_a_clause_of_speech_alone_after_a_sentence_a_quote_ends_is_written_verb_first(texts, line):
    assert joined("", [part(text) for text in texts]).text == line
