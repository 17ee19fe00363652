"""Numbers: digit groups and the check of those an output lacks, the renumbering augmentation (a
pair's shared numbers replaced alike on both sides, train split only), and digits split by the
tokenizer."""

import re

import numpy as np
import pytest
from conftest import assert_train_only, prepared_with

from attention_lab.data.number_augmentation import number_pairs, renumbered, shared_groups
from attention_lab.data.numbers import digit_groups, keeps_numbers, missing_numbers, number_fidelity
from attention_lab.data.tokenizer import SubwordParams
from attention_lab.data.tokenizer_training import train_subword

PAIRS = [("It's 8:30.", "Il est 8 h 30."), ("It costs 3.50 dollars.", "Ça coûte 3,50 dollars."),
         ("I owe him 50,000 yen.", "Je lui dois 50 000 yens."), ("She has 2,000 books.", "Elle a deux mille livres."),
         ("We met in 1980, 1980 was good.", "Nous nous sommes vus en 1980."), ("Go at 10:05.", "Pars à 10h05."),
         ("I have 2 cats and 12 dogs.", "J'ai 2 chats et 12 chiens."), ("No numbers.", "Pas de nombres.")]


def test_digit_groups_read_the_french_forms_alike():
    assert digit_groups("It's 10:30, 3.50 $ and 1,000 or 1980 1980.") == ["10", "30", "3", "50", "1", "000", "1980"]
    assert digit_groups("10 h 30, 3,50 $ et 1 000") == ["10", "30", "3", "50", "1", "000"]


def test_the_number_check_flags_a_missing_or_changed_number():
    assert missing_numbers("We arrived on June 12.", "Nous sommes arrivés en 122.") == ["12"]  # not a part of 122
    assert missing_numbers("He has 2 sisters and 3 brothers.", "Il a deux sœurs et trente frères.") == ["2", "3"]
    assert missing_numbers("Our flight leaves at 7:45.", "Notre vol part à 7 h 45.") == []
    assert missing_numbers("No digits.", "Pas de chiffres.") == []


def test_number_fidelity_asks_only_for_the_groups_a_reference_writes_in_digits():
    assert keeps_numbers("I have 2 cats.", "J'ai deux chats.", ["J'ai deux chats."])  # spelt out, as the reference
    assert not keeps_numbers("I have 2 cats.", "J'ai deux chats.", ["J'ai deux chats.", "J'ai 2 chats."])
    sources = ["I have 2 cats.", "It's 8:30.", "She has 3 dogs.", "I have 4 birds.", "I saw 5 cows.", "Go."]
    outputs = ["J'ai 2 chats.", "Il est 8 h 20.", "Elle a trois chiens.", "J'ai 4 oiseaux.", "J'ai vu cinq vaches.",
               "Va !"]
    refs = [["J'ai 2 chats."], ["Il est 8 h 30."],
            ["Elle a trois chiens."],  # spelt out in the reference and the output: kept
            ["J'ai quatre oiseaux."],  # spelt out in the reference, digits in the output: kept
            ["J'ai vu cinq vaches.", "J'ai vu 5 vaches."],  # the second of two writes digits: asked for, not kept
            ["Va !"]]
    assert number_fidelity(sources, outputs, refs) == {"number_sources": 5, "number_fidelity": 0.6}
    assert number_fidelity(["Go."], ["Va !"], [["Va !"]]) == {"number_sources": 0, "number_fidelity": None}


def test_renumbering_replaces_shared_groups_alike_keeps_their_shape_and_round_trips():
    rng = np.random.default_rng(0)
    for _ in range(20):
        for source, target in PAIRS:
            new_source, new_target, replacements = renumbered(source, target, rng)
            assert set(replacements) == set(shared_groups(source, target))
            assert len(set(replacements.values())) == len(replacements)  # no two groups merge
            for old, new in replacements.items():
                assert len(new) == len(old) and (new[0] != "0" or old[0] == "0")
                assert new in digit_groups(new_source) and new in digit_groups(new_target)  # alike on both sides
            undo = {new: old for old, new in replacements.items()}
            for text, new_text in ((source, new_source), (target, new_target)):
                assert re.sub(r"[0-9]+", lambda m: undo.get(m.group(), m.group()), new_text) == text
                assert re.sub(r"[0-9]", "0", new_text) == re.sub(r"[0-9]", "0", text)  # only digits changed
            hours, minutes = re.search(r"(\d+):(\d+)", new_source).groups() if ":" in source else ("0", "0")
            assert int(hours) <= 23 and int(minutes) <= 59


def test_renumbered_pairs_are_seeded_drawn_from_pairs_sharing_a_number_and_off_at_zero():
    made = number_pairs(PAIRS, fraction=2.0, seed=1)
    assert len(made) == 2 * len(PAIRS) and made == number_pairs(PAIRS, 2.0, seed=1) != number_pairs(PAIRS, 2.0, 2)
    shapes = {tuple(re.sub(r"[0-9]", "0", side) for side in pair) for pair in PAIRS if shared_groups(*pair)}
    assert {tuple(re.sub(r"[0-9]", "0", side) for side in pair) for pair in made} <= shapes
    assert number_pairs(PAIRS, 0.0, seed=1) == [] and number_pairs(PAIRS[-1:], 1.0, seed=1) == []


def test_digits_are_pieces_of_their_own_and_decode_back():
    texts = ["In 2011 we had 2011 cats.", "It is 2011 now.", "I have 12 dogs."] * 20
    split = train_subword(texts, SubwordParams(size=320, model="bpe"))
    whole = train_subword(texts, SubwordParams(size=320, model="bpe", split_digits=False))
    sentence = "In 2011 we had 12 cats."
    assert [p for p in split.pieces(sentence) if any(c.isdigit() for c in p)] == list("201112")
    assert any(len(re.sub(r"\D", "", p)) > 1 for p in whole.pieces(sentence))  # the key reaches SentencePiece
    assert split.join(split.id_pieces(split.encode(sentence))) == sentence


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    cats = [(f"I see {n} cats.", f"Je vois {n} chats.") for n in range(2, 40)]
    return prepared_with(tmp_path_factory, "numbers", cats)


def test_only_the_train_pairs_are_renumbered(prepared):
    plain, _, made = assert_train_only(prepared, {}, "number", number_pairs)
    assert len(made) == round(0.5 * len(plain.train_pairs))
