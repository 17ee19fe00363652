"""The attention explorer page's data: the weights it embeds are the translations', every map the
model computes; it needs no network; the test split's sample is its worst and best by chrF."""

import re

import numpy as np
import pandas as pd
import pytest

from attention_lab.evaluation.explorer import (
    SCALE,
    Entry,
    explored,
    identity,
    page,
    read_page_data,
    scored_sample,
)
from attention_lab.inference.translator import SearchParams, Translator

SENTENCES = ["I see the cat.", "We like the book. The dog runs.", "Tom reads."]
SEARCH = SearchParams(beam_size=3)


def explorer_page(model_dir, sentences=SENTENCES) -> tuple[Translator, str]:
    translator = Translator.load(model_dir, "cpu")
    entries = [Entry(s, "typed") for s in sentences]
    return translator, page("Attention explorer", identity(translator, SEARCH), translator,
                            explored(translator, entries, SEARCH))


def as_weights(flat: list[list[int]] | None, rows: int, cols: int) -> np.ndarray | None:
    return None if flat is None else np.asarray(flat, np.float64).reshape(len(flat), rows, cols) / SCALE


@pytest.mark.parametrize("fixture", ["trained_model", "transformer_model"])
def test_the_page_holds_every_map_of_the_translations(fixture, request):
    translator, text = explorer_page(request.getfixturevalue(fixture))
    data = read_page_data(text)
    assert data["layout"] == list(translator.model.decoder.attention_layout)
    greedy = translator.translate(SENTENCES, SearchParams(beam_size=1), maps=True, self_maps=True)
    beam = translator.translate(SENTENCES, SEARCH, maps=True, self_maps=True)
    assert [s["source"] for s in data["sentences"]] == SENTENCES
    for sentence, translations in zip(data["sentences"], zip(greedy, beam)):
        assert [r["search"] for r in sentence["results"]] == ["greedy", "beam 3"]
        for result, t in zip(sentence["results"], translations):
            assert result["text"] == t.text and result["src"] == t.src_pieces and result["out"] == t.output_labels
            rows, cols = len(t.output_labels), len(t.src_pieces)
            cross = as_weights(result["cross"], rows, cols)
            np.testing.assert_allclose(cross, t.maps, atol=0.5 / SCALE)
            np.testing.assert_allclose(cross.mean(axis=0), t.attention, atol=0.5 / SCALE)  # the page's average
            for name, maps, size in (("encoder", t.encoder_maps, cols), ("decoder", t.decoder_maps, rows)):
                if maps is None:
                    assert result[name] is None and fixture == "trained_model"
                else:
                    np.testing.assert_allclose(as_weights(result[name], size, size), maps, atol=0.5 / SCALE)
    if fixture == "transformer_model":  # every layer and head, not only their average
        assert len(data["sentences"][0]["results"][0]["cross"]) == np.prod(data["layout"]) > 1


def test_the_page_needs_no_network_and_its_data_survives_any_text(transformer_model):
    tricky = 'He said "</script><script>alert(1)</script>" & left.'
    _, text = explorer_page(transformer_model, [tricky])
    assert read_page_data(text)["sentences"][0]["source"] == tricky
    assert text.count("<script") == 2 and text.count("</script>") == 2  # the JSON can neither open nor close one
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), "the page loads something"
    assert not re.search(r"<link\b|@import|\bfetch\(|XMLHttpRequest|localStorage", text)


def test_the_test_sample_is_the_worst_and_the_best_by_sentence_chrf():
    refs = ["le chat noir dort", "je vois la mer", "nous aimons le livre", "il pleut", "elle lit un roman"]
    hyps = ["le chat noir dort", "je vois", "xyz", "il pleut", "elle lit le roman"]
    translations = pd.DataFrame({"source": [f"s{i}" for i in range(5)], "hypothesis": hyps,
                                 "references": [f"{r} ||| autre {r}" for r in refs]})
    sample = scored_sample(translations, 2)
    assert [e.source for e in sample] == ["s2", "s1", "s0", "s3"] or [e.source for e in sample] == \
        ["s2", "s1", "s3", "s0"]  # s0 and s3 are both perfect
    assert [e.group for e in sample] == ["worst chrF (beam)"] * 2 + ["best chrF (beam)"] * 2
    assert sample[0].references == ("nous aimons le livre", "autre nous aimons le livre")
    chrfs = [e.chrf for e in sample]
    assert chrfs[0] < chrfs[1] < chrfs[2] == chrfs[3] == 100.0
    everything = scored_sample(translations, 4)  # more than half: each sentence listed once
    assert sorted(e.source for e in everything) == [f"s{i}" for i in range(5)]


def test_the_identity_names_the_model_the_run_and_the_test_scores(transformer_model):
    translator = Translator.load(transformer_model, "cpu")
    metrics = {"beam": {"bleu": 48.2, "chrf": 65.0}, "greedy": {"bleu": 45.0, "chrf": 62.9}}
    pairs = dict(identity(translator, SEARCH, "abc123", "0123456789abcdef", metrics))
    assert pairs["model"].startswith("Transformer, 2 layers × 2 heads, width 32")
    assert pairs["MLflow run"] == "abc123" and pairs["commit"] == "0123456789ab"
    assert pairs["test BLEU, beam (greedy)"] == "48.2 (45.0)" and pairs["test chrF, beam (greedy)"] == "65.0 (62.9)"
    assert set(dict(identity(translator, SEARCH))) == {"model", "search"}
