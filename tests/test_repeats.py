"""A run of words the model wrote twice in a row is written once; French that repeats on purpose stays."""

import re

import numpy as np
import pandas as pd
import pytest
import torch
from test_cli import cli

from attention_lab.text import repeats as repeats_module
from attention_lab.text.repeats import LONGEST, written_once
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.tracking import served_model
from attention_lab.training.module import VALIDATION_SEARCH

torch.set_num_threads(1)


def pieces_of(text: str) -> list[str]:
    """SentencePiece-like pieces: `▁` starts a word, closing punctuation is a piece of its own."""
    pieces = []
    for word in text.split():
        core, tail = re.fullmatch(r"(.*?\w?)(\W*)", word).groups()
        pieces += ([f"▁{core}"] if core else []) + ([tail] if core else [f"▁{tail}"]) * bool(tail)
    return pieces


def join(pieces: list[str]) -> str:
    return " ".join("".join(pieces).replace("▁", " ").split())


def once(output: str, source: str = "It is.") -> str:
    pieces = pieces_of(output)
    kept = written_once(pieces, source, join)
    assert kept == sorted(set(kept)) and set(kept) <= set(range(len(pieces)))
    return join([pieces[t] for t in kept])


@pytest.mark.parametrize("output, written", [
    ("Il a chanté des chansons chansons.", "Il a chanté des chansons."),  # the second copy's period stays
    ("J'entends bien bien !", "J'entends bien !"),
    ("Il est parti il y a dix minutes il y a dix minutes.", "Il est parti il y a dix minutes."),
    ("Un homme à pied à pied à pied plus loin.", "Un homme à pied plus loin."),  # written three times
    ("La drogue à la drogue à la ville.", "La drogue à la ville."),  # the first copy, capital and all, stays
    ("Le médicament a-t-il agi rapidement rapidement ?", "Le médicament a-t-il agi rapidement ?"),
    ("« Bien bien », dit-il.", "« Bien », dit-il."),
    ("Oui oui. Oui, je viens.", "Oui. Oui, je viens."),  # the collapsed run ends its sentence: the next one stays
])
def test_a_run_written_twice_in_a_row_is_written_once(output, written):
    assert once(output) == written


@pytest.mark.parametrize("output, source", [
    ("Nous nous sommes perdus.", "We got lost."), ("Vous vous trompez.", "You're wrong."),
    ("Je vais le faire faire.", "I'll have it done."),  # French that doubles these on purpose
    ("Non, non, non.", "No."), ("À l'homme, à l'homme.", "Man to man."),  # punctuation inside: a clause may end
    ("Ce qui est fait est fait.", "What's done is done."),  # the source repeats a word: so may the French
    ("Il fera très très chaud.", "It will be VERY, very hot."),
    ("Il a chanté des chansons chansons.", "He sang songs, old songs."),
    ("Il est là. Il est là.", "He is here."),  # a sentence's end inside the run
    ("Elle avait une robe bleue ou une robe rouge.", "She had a dress."),  # not in a row
])
def test_french_that_may_repeat_on_purpose_stays(output, source):
    assert once(output, source) == output


def test_runs_up_to_the_longest_are_written_once_and_longer_ones_stay():
    run = " ".join(f"mot{k}" for k in range(LONGEST))
    assert once(f"Il {run} {run}.") == f"Il {run}."
    longer = f"{run} plus"
    assert once(f"Il {longer} {longer}.") == f"Il {longer} {longer}."


def test_a_piece_that_writes_nothing_starts_the_word_after_it():
    # SentencePiece writes `à` and digits after a bare `▁`, which belongs to them, not to the word before.
    pieces = ["▁Elle", "▁est", "▁", "à", "▁la", "▁maison", "▁", "à", "▁la", "▁maison", "."]
    assert join([pieces[t] for t in written_once(pieces, "She is home.", join)]) == "Elle est à la maison."
    pieces = ["▁à", "▁l", "'", "âge", "▁de", "▁l", "'", "âge", "▁de", "▁", "1", "8", "▁ans"]
    assert join([pieces[t] for t in written_once(pieces, "At 18.", join)]) == "à l'âge de 18 ans"


def test_punctuation_that_shares_a_piece_with_letters_keeps_the_run():
    pieces = ["▁Il", "▁chante", "▁bien", "▁bien."]  # the period cannot stay without its word
    assert written_once(pieces, "He sings well.", join) == [0, 1, 2, 3]
    assert written_once([], "He sings.", join) == []


def test_the_translator_writes_what_is_kept_and_labels_its_attention_rows_with_it(trained_model, monkeypatch):
    translator = Translator.load(trained_model, "cpu")
    line, raw_search = ["I see the cat."], SearchParams(drop_repeats=False)
    raw = translator.translate(line, raw_search, maps=True)[0]
    assert len(raw.pieces) >= 2
    monkeypatch.setattr(repeats_module, "written_once", lambda pieces, source, join: list(range(1, len(pieces))))
    dropped = translator.translate(line, maps=True)[0]
    assert dropped.pieces == raw.pieces[1:] and dropped.output_labels == raw.output_labels[1:]
    np.testing.assert_array_equal(dropped.attention, raw.attention[1:])
    np.testing.assert_array_equal(dropped.maps, raw.maps[:, 1:])
    assert translator.translate(line, raw_search)[0].pieces == raw.pieces  # off: nothing dropped
    assert not VALIDATION_SEARCH.drop_repeats  # validation scores the model's own words


def test_the_cli_and_the_served_model_keep_the_repeats_when_told(trained_model, monkeypatch, capsys):
    # Dropping the first piece stands for a repeat written once: the outputs then differ whatever the model says.
    line = "I see the cat."
    translator = Translator.load(trained_model, "cpu")
    raw = translator.translate([line], SearchParams(drop_repeats=False))[0].text
    monkeypatch.setattr(repeats_module, "written_once", lambda pieces, source, join: list(range(1, len(pieces))))
    once = translator.translate([line])[0].text
    assert once != raw
    command = ("translate", "--model", trained_model, "--device", "cpu", line)
    assert cli(capsys, *command) == (0, f"{once}\n", "")
    assert cli(capsys, *command[:-1], "--keep-repeats", line) == (0, f"{raw}\n", "")
    served = served_model.TranslatorModel()
    served.translator = translator
    frame = pd.DataFrame({served_model.TEXT: [line]})
    assert served.predict(None, frame)["translation"].tolist() == [once]
    assert served.predict(None, frame, {"drop_repeats": False})["translation"].tolist() == [raw]
