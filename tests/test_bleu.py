import pytest

from attention_lab.bleu import CorpusBLEU, corpus_scores, d2l_bleu


def test_d2l_bleu_known_cases():
    assert d2l_bleu("il est calme .", "il est calme .", k=2) == 1.0
    assert d2l_bleu("il est riche .", "il est calme .", k=2) == pytest.approx(0.658, abs=5e-4)
    assert d2l_bleu("va !", "va !", k=2) == 1.0
    assert d2l_bleu("j'ai perdu .", "j'ai perdu .", k=2) == 1.0
    # brevity penalty exp(1 - 4/2) for a short but precise prediction
    assert d2l_bleu("je suis", "je suis chez moi", k=2) == pytest.approx(2.718281828 ** -1)
    assert d2l_bleu("va", "va !", k=2) == 0.0  # no bigram


def test_multi_reference_bleu_is_at_least_single_reference():
    hyps = ["je suis chez moi.", "il est calme.", "j'ai perdu."]
    refs = [["je suis à la maison.", "je suis chez moi."], ["il est calme."], ["j'ai perdu la partie.", "j'ai perdu."]]
    scores = corpus_scores(hyps, refs, lowercase=True)
    assert scores["bleu"] >= scores["bleu_single_ref"]
    assert scores["bleu"] == pytest.approx(100.0)
    assert scores["bleu_single_ref"] < 100.0
    assert "nrefs:var" in scores["signature"]["bleu"]


def test_corpus_bleu_metric_accumulates_to_the_corpus_score():
    hyps = ["je vois le chat.", "tu prends la voiture.", "nous aimons le pain.", "il veut."]
    refs = [["je vois le chat."], ["tu prends la voiture.", "prends la voiture."], ["nous aimons le livre."],
            ["il veut le chien."]]
    metric = CorpusBLEU(lowercase=True)
    metric.update(hyps[:1], refs[:1])
    metric.update(hyps[1:], refs[1:])
    assert float(metric.compute()) == pytest.approx(corpus_scores(hyps, refs, True)["bleu"], abs=1e-3)
