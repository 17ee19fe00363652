"""The attention explorer page's data: the weights it embeds are the translations', every map the
model computes; it needs no network; the test split's sample is its worst and best by chrF in each
length bucket, scored as evaluate's translations table; the stage refuses unreadable evaluation reports
in one line and writes nothing."""

import json
import re
import sys

import numpy as np
import pandas as pd
import pytest

from attention_lab.evaluation.explorer import (
    SCALE,
    Entry,
    decoder_inputs,
    explored,
    identity,
    page,
    read_page_data,
    scored_sample,
)
from attention_lab.inference.translator import SearchParams, Translation, Translator

SENTENCES = ["I see the cat.", "We like the book. The dog runs.", "Tom reads."]
SEARCH = SearchParams(beam_size=3)


def explorer_page(model_dir, sentences=SENTENCES, references=()) -> tuple[Translator, str]:
    translator = Translator.load(model_dir, "cpu")
    entries = [Entry(s, "typed", tuple(references)) for s in sentences]
    return translator, page("Attention explorer", identity(translator, SEARCH), translator,
                            explored(translator, entries, SEARCH))


def translation(output_labels: list[str], decoder_maps: np.ndarray | None) -> Translation:
    return Translation(source="", src_pieces=[], pieces=[], output_labels=output_labels, text="", score=0.0,
                       attention=np.zeros((len(output_labels), 0)), unknown=[], carried=[], decoder_maps=decoder_maps)


def as_weights(flat: list[list[int]] | None, rows: int, cols: int) -> np.ndarray | None:
    return None if flat is None else np.asarray(flat, np.float64).reshape(len(flat), rows, cols) / SCALE


@pytest.mark.parametrize("fixture", ["trained_model", "transformer_model"])
def test_the_page_holds_every_map_of_the_translations(fixture, request):
    translator, text = explorer_page(request.getfixturevalue(fixture))
    data = read_page_data(text)
    assert data["layout"] == list(translator.model.decoder.attention_layout) and data["scale"] == SCALE
    greedy = translator.translate(SENTENCES, SearchParams(beam_size=1), maps=True, self_maps=True)
    beam = translator.translate(SENTENCES, SEARCH, maps=True, self_maps=True)
    assert [s["source"] for s in data["sentences"]] == SENTENCES
    for sentence, translations in zip(data["sentences"], zip(greedy, beam)):
        assert [r["search"] for r in sentence["results"]] == ["greedy", "beam 3"]
        cols = len(sentence["src"])
        encoder = translations[1].encoder_maps
        assert (sentence["encoder"] is None) == (encoder is None) == (fixture == "trained_model")
        if encoder is not None:  # one per sentence: the greedy search's is the same
            np.testing.assert_allclose(as_weights(sentence["encoder"], cols, cols), encoder, atol=0.5 / SCALE)
            np.testing.assert_allclose(translations[0].encoder_maps, encoder)
        for result, t in zip(sentence["results"], translations):
            assert result["text"] == t.text and sentence["src"] == t.src_pieces and result["out"] == t.output_labels
            rows = len(t.output_labels)
            cross = as_weights(result["cross"], rows, cols)
            np.testing.assert_allclose(cross, t.maps, atol=0.5 / SCALE)
            np.testing.assert_allclose(cross.mean(axis=0), t.attention, atol=0.5 / SCALE)  # the page's average
            if t.decoder_maps is None:
                assert result["decoder"] is None and result["inputs"] is None
            else:
                np.testing.assert_allclose(as_weights(result["decoder"], rows, rows), t.decoder_maps, atol=0.5 / SCALE)
                assert result["inputs"] == decoder_inputs(t)
    if fixture == "transformer_model":  # every layer and head, not only their average
        assert len(data["sentences"][0]["results"][0]["cross"]) == np.prod(data["layout"]) > 1


def test_each_decoder_input_is_the_piece_before_or_its_own_sentences_bos():
    # A line of two sentences, the first cut by the output limit (no <eos>): block-diagonal maps (R, T, T).
    block = np.tril(np.full((3, 3), 1 / 3))
    maps = np.zeros((2, 5, 5))
    maps[:, :3, :3], maps[:, 3:, 3:] = block, np.tril(np.full((2, 2), 0.5))
    cut = translation(output_labels=["▁Je", "▁vois", "▁le", "▁Oui", "<eos>"], decoder_maps=maps)
    assert decoder_inputs(cut) == ["<bos>", "▁Je", "▁vois", "<bos>", "▁Oui"]
    assert decoder_inputs(translation(output_labels=["▁Oui"], decoder_maps=None)) is None


def test_the_page_needs_no_network_and_its_data_survives_any_text(transformer_model):
    tricky = 'He said "</script><!--<script>alert(1)</script>" & left.'
    _, text = explorer_page(transformer_model, [tricky])
    assert read_page_data(text)["sentences"][0]["source"] == tricky
    assert text.count("<script") == 2 and text.count("</script>") == 2  # the JSON can neither open nor close one
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text), "the page loads something"
    # MLflow shows it in a frame sandboxed to scripts alone: storage, cookies or the frame's parents would throw.
    assert not re.search(r"<link\b|@import|\bfetch\(|XMLHttpRequest|localStorage|sessionStorage|indexedDB|"
                         r"document\.cookie|\blocation\b(?!\.hash)|window\.(top|parent)", text)
    # Its own URL's hash alone, each use inside a try: a sandboxed frame may refuse it (browser tests run one).
    for use in re.finditer(r"location\.hash|history\.replaceState", text):
        assert 0 <= use.start() - text.rfind("try {", 0, use.start()) < 120, use.group()


def test_the_chrf_shown_is_the_pages_own_beam_translation_against_the_references(transformer_model):
    from sacrebleu.metrics import CHRF

    refs = ["Je vois le chat.", "Je vois un chat."]
    _, text = explorer_page(transformer_model, ["I see the cat.", "Go."], refs)
    for sentence in read_page_data(text)["sentences"]:
        beam = sentence["results"][-1]["text"]
        assert sentence["chrf"] == round(CHRF().sentence_score(beam, refs).score, 1)
    assert read_page_data(explorer_page(transformer_model, ["Go."])[1])["sentences"][0]["chrf"] is None


def test_the_test_sample_is_the_worst_and_the_best_by_sentence_chrf_in_each_length_bucket():
    refs = ["le chat noir dort", "je vois la mer", "nous aimons le livre", "il pleut", "elle lit un roman"]
    hyps = ["le chat noir dort", "je vois", "xyz", "il pleut fort", "elle lit le roman"]
    long = ("We walked for a very long time along the river before the storm came and we ran home to our family"
            " that night")
    translations = pd.DataFrame({"source": [f"s{i}" for i in range(5)] + [long, long + " again"],
                                 "hypothesis": hyps + ["nous marchions", "xyz"],
                                 "references": [f"{r} ||| autre {r}" for r in refs] + ["nous avons marché"] * 2})
    sample = scored_sample(translations, 2, (5, 10, 20))
    assert [e.source for e in sample] == ["s2", "s1", "s0", "s3", long + " again", long]
    assert [e.group for e in sample] == (["test split, 1-5 words: worst chrF (beam)"] * 2
                                         + ["test split, 1-5 words: best chrF (beam)"] * 2
                                         + ["test split, 21+ words: worst chrF (beam)"] * 2)
    assert sample[0].references == ("nous aimons le livre", "autre nous aimons le livre")
    everything = scored_sample(translations, 4, (5,))  # more than half a bucket: each sentence listed once
    assert sorted(e.source for e in everything) == sorted(translations["source"])
    assert scored_sample(translations, 0) == []


def test_evaluates_table_and_the_page_score_a_sentence_alike(transformer_model):
    """One sentence score: evaluate's translations table's `sentence_chrf` is the page's chrF of the same text."""
    from attention_lab.evaluation.bleu import sentence_chrf

    assert sentence_chrf("Colol !", ["Calmez-vous !"]) < 10  # sentence BLEU gave it 50 for its `!`
    refs = ["Je vois le chat.", "Je vois un chat."]
    sentence = read_page_data(explorer_page(transformer_model, ["I see the cat."], refs)[1])["sentences"][0]
    assert sentence["chrf"] == sentence_chrf(sentence["results"][-1]["text"], refs)


def test_the_png_heatmaps_draw_weights_on_the_pages_0_to_1_scale_with_one_colour_bar(transformer_model):
    from attention_lab.evaluation.heatmaps import attention_figures

    figures, grid = attention_figures(Translator.load(transformer_model, "cpu"), ["Go.", "I see the cat."], SEARCH)
    for name, figure in [*figures.items(), ("grid", grid)]:
        images = [image for ax in figure.axes for image in ax.images]
        assert len(images) > 1 and all(i.get_clim() == (0.0, 1.0) and i.get_cmap().name == "Blues" for i in images)
        assert [ax.get_label() for ax in figure.axes].count("<colorbar>") == 1, name


@pytest.mark.parametrize("buckets", [[], [5, 5, 10], [10, 5], [0, 5]])
def test_length_buckets_must_increase_from_one_word(buckets, tmp_path):
    from attention_lab.config import ConfigError, load_section
    from attention_lab.evaluation.heatmaps import HeatmapParams

    (tmp_path / "params.yaml").write_text(json.dumps({"heatmaps": {"length_buckets": buckets}}))
    with pytest.raises(ConfigError, match="heatmaps.length_buckets"):
        load_section(tmp_path / "params.yaml", "heatmaps", HeatmapParams)


def test_the_identity_names_the_model_the_run_and_the_test_scores(transformer_model, monkeypatch):
    translator = Translator.load(transformer_model, "cpu")
    metrics = {"beam": {"bleu": 48.2, "chrf": 65.0}, "greedy": {"bleu": 45.0, "chrf": 62.9}}
    monkeypatch.setenv("DVC_EXP_NAME", "bandy-tomb")
    pairs = dict(identity(translator, SEARCH, "abc123", "0123456789abcdef", metrics))
    assert pairs["model"].startswith("Transformer, 2 layers × 2 heads, width 32")
    assert pairs["DVC experiment"] == "bandy-tomb" and pairs["tokenizer"].startswith("subword, ")
    assert pairs["MLflow run"] == "abc123" and pairs["commit"] == "0123456789ab"
    assert pairs["test BLEU, beam (greedy)"] == "48.2 (45.0)" and pairs["test chrF, beam (greedy)"] == "65.0 (62.9)"
    monkeypatch.delenv("DVC_EXP_NAME")
    assert set(dict(identity(translator, SEARCH))) == {"model", "tokenizer", "search"}


# -- the stage -------------------------------------------------------------------------------------

GOOD_METRICS = {"beam": {"bleu": 1.0, "chrf": 2.0}, "greedy": {"bleu": 3.0, "chrf": 4.0}}


@pytest.mark.parametrize("tsv, metrics, message", [
    (None, GOOD_METRICS, "translations.tsv: not found"),
    ("source\thypothesis\nGo.\tVa !\n", GOOD_METRICS, "translations.tsv: no column 'references'"),
    ("source\thypothesis\treferences\nGo.\tVa !\tVa !\n", None, "metrics.json: not found"),
    ("source\thypothesis\treferences\nGo.\tVa !\tVa !\n", "{", "metrics.json: unreadable"),
    ("source\thypothesis\treferences\nGo.\tVa !\tVa !\n", {"beam": {"bleu": 1.0}}, "metrics.json: no number at beam.chrf"),
    # The page's identity shows greedy's scores beside the beam's: a report without them is refused too.
    ("source\thypothesis\treferences\nGo.\tVa !\tVa !\n", {**GOOD_METRICS, "greedy": {"bleu": 3.0}},
     "metrics.json: no number at greedy.chrf"),
])
def test_the_stage_refuses_unreadable_evaluation_reports_in_one_line_before_any_work(
        tsv, metrics, message, trained_model, tmp_path, monkeypatch, capsys):
    from attention_lab.errors import run_main
    from attention_lab.inference import translator as translator_module
    from pipeline import heatmaps as stage

    evaluation, out = tmp_path / "evaluate", tmp_path / "heatmaps"
    evaluation.mkdir()
    if tsv is not None:
        (evaluation / "translations.tsv").write_text(tsv)
    if metrics is not None:
        (evaluation / "metrics.json").write_text(metrics if isinstance(metrics, str) else json.dumps(metrics))
    (tmp_path / "params.yaml").write_text("mlflow: {enabled: false}\nheatmaps: {sentences: [Go.]}\n")
    monkeypatch.setattr(translator_module.Translator, "load", lambda *a, **k: pytest.fail("the model was loaded"))
    monkeypatch.setattr(sys, "argv", ["heatmaps", "--params", str(tmp_path / "params.yaml"), "--model",
                                      str(trained_model), "--evaluation", str(evaluation), "--out", str(out)])
    with pytest.raises(SystemExit) as exit_:
        run_main(stage.main)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1 and message in err, err
    assert not out.exists()
