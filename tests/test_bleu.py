"""Tests for BLEU (attention_lab.evaluation.bleu).

Expected values are worked out by hand in the tests, from the formulas (d2l §10.7 for `d2l_bleu`,
Papineni et al. 2002 as sacrebleu computes it for corpus BLEU), with the n-gram counts written out
in comments: no value here was obtained by running the code under test.
"""

import math

import pytest

from attention_lab.evaluation.bleu import (
    bleu_from_statistics,
    bleu_statistics,
    corpus_scores,
    d2l_bleu,
)


def test_d2l_bleu_known_cases():
    assert d2l_bleu("il est calme .", "il est calme .", k=2) == 1.0
    assert d2l_bleu("il est riche .", "il est calme .", k=2) == pytest.approx(0.658, abs=5e-4)  # d2l's table
    assert d2l_bleu("va !", "va !", k=2) == 1.0
    assert d2l_bleu("va", "va !", k=2) == 0.0  # no bigram


def test_d2l_bleu_clips_counts_and_penalises_brevity():
    pred = "le chat le chat sur ."  # 6 tokens
    label = "le chat est sur le tapis ."  # 7 tokens: the prediction is short
    # Unigrams: le x2 (label has 2), chat x2 (label has 1: clipped), sur, . -> 2 + 1 + 1 + 1 = 5 of 6.
    p1 = 5 / 6
    # Bigrams: (le chat) x2 (label has 1: clipped), (chat le), (chat sur), (sur .) -> 1 of 5.
    p2 = 1 / 5
    brevity = math.exp(1 - 7 / 6)
    assert d2l_bleu(pred, label, k=2) == pytest.approx(brevity * p1 ** (1 / 2) * p2 ** (1 / 4), rel=1e-12)


def test_d2l_bleu_with_trigrams_and_no_penalty_for_a_long_prediction():
    pred = "il est calme et riche ."  # 6 tokens, longer than the label: no brevity penalty
    label = "il est calme ."
    p1 = 4 / 6  # il, est, calme, . (not et, riche)
    p2 = 2 / 5  # (il est), (est calme) of (il est) (est calme) (calme et) (et riche) (riche .)
    p3 = 1 / 4  # (il est calme) of 4 trigrams
    assert d2l_bleu(pred, label, k=3) == pytest.approx(p1 ** (1 / 2) * p2 ** (1 / 4) * p3 ** (1 / 8), rel=1e-12)
    # A short but precise prediction: every n-gram matches, only the brevity penalty exp(1 - 4/2) is left.
    assert d2l_bleu("je suis", "je suis chez moi", k=2) == pytest.approx(math.exp(1 - 4 / 2), rel=1e-12)


def test_corpus_bleu_by_hand_with_a_useless_first_reference():
    # The hypothesis shares only a prefix with its second reference; its first shares nothing.
    # 13a tokenization splits on spaces here. Against "a b c d f g": 4 of 5 unigrams, 3 of 4
    # bigrams, 2 of 3 trigrams, 1 of 2 4-grams match; the closest reference length is 6 > 5.
    hyps, refs = ["a b c d e"], [["x y z", "a b c d f g"]]
    expected = 100 * math.exp(1 - 6 / 5) * (4 / 5 * 3 / 4 * 2 / 3 * 1 / 2) ** (1 / 4)
    scores = corpus_scores(hyps, refs)
    assert scores["bleu"] == pytest.approx(expected, abs=1e-3)
    assert scores["brevity_penalty"] == pytest.approx(math.exp(1 - 6 / 5), abs=1e-4)
    assert scores["bleu_precisions"] == pytest.approx([80.0, 75.0, 200 / 3, 50.0], abs=1e-3)
    assert scores["bleu_single_ref"] < 1.0  # against "x y z" alone nothing matches


def test_multi_reference_bleu_uses_every_reference_of_every_source():
    # Sources have 2, 1 and 3 references; each hypothesis equals exactly one of them, the second
    # or third where there are several, so only BLEU against all references is perfect.
    hyps = ["je suis chez moi.", "il est calme.", "j'ai perdu."]
    refs = [["je suis à la maison.", "je suis chez moi."], ["il est calme."],
            ["j'ai perdu la partie.", "nous avons perdu.", "j'ai perdu."]]
    scores = corpus_scores(hyps, refs)
    assert scores["bleu"] == pytest.approx(100.0)
    assert scores["bleu_precisions"] == pytest.approx([100.0] * 4) and scores["brevity_penalty"] == 1.0
    assert scores["bleu_single_ref"] < scores["bleu"]
    assert "nrefs:var" in scores["signature"]["bleu"]


def test_bleu_is_case_insensitive_and_bleu_cased_is_not():
    scores = corpus_scores(["Je suis chez moi."], [["je suis chez moi."]])
    assert scores["bleu"] == pytest.approx(100.0)
    assert scores["bleu_cased"] < 100.0


def test_statistics_add_up_over_batches_to_the_corpus_score():
    hyps = ["je vois le chat.", "tu prends la voiture.", "nous aimons le pain.", "il veut."]
    refs = [["je vois le chat."], ["tu prends la voiture.", "prends la voiture."], ["nous aimons le livre."],
            ["il veut le chien."]]
    parts = [bleu_statistics(hyps[:1], refs[:1]), bleu_statistics(hyps[1:], refs[1:])]
    summed = [a + b for a, b in zip(*parts)]
    assert bleu_from_statistics(summed) == pytest.approx(corpus_scores(hyps, refs)["bleu"], abs=1e-3)
