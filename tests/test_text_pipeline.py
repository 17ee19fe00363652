"""One text pipeline: a sentence gets the same ids and the same output text in training,
evaluation and the command line, and translating loads nothing of the training stack."""

import json
import subprocess
import sys

import pandas as pd
import pytest
import torch
from conftest import REPO, text_of

from attention_lab.cli import main
from attention_lab.data.cleaning import clean
from attention_lab.data.splits import load_split, references
from attention_lab.data.tokenizer import TOKENIZER_FILE, Tokenizer
from attention_lab.errors import UserError
from attention_lab.evaluation.report import EvaluateParams, score_test_split
from attention_lab.inference.model_file import load_model
from attention_lab.inference import training_only
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.training.datamodule import (
    DataParams,
    TranslationDataModule,
    seeded_sample,
)
from attention_lab.training.module import OptimParams, Seq2SeqModule

torch.set_num_threads(1)



@pytest.fixture(scope="module")
def stages(trained_model):
    """The trained-model fixture's folders: data (splits), vocab (tokenizer.json), model."""
    root = trained_model.parent
    return {"data": root / "data", "tokenizer": root / "tokenizer", "model": trained_model}


@pytest.fixture(scope="module")
def datamodule(stages):
    module = TranslationDataModule(stages["data"], Tokenizer.load(stages["tokenizer"] / TOKENIZER_FILE),
                                   DataParams(batch_size=4, val_bleu_size=12, val_loss_size=15), seed=0)
    module.setup("fit")
    return module


def cli_lines(capsys, *args) -> list[str]:
    capsys.readouterr()
    main(["translate", *map(str, args)])
    captured = capsys.readouterr()
    return captured.out.splitlines()


def test_the_same_ids_in_training_and_translation(stages, datamodule):
    translator = Translator.load(stages["model"], "cpu")  # the tokenizer inside the model file
    vocab_file = Tokenizer.load(stages["tokenizer"] / TOKENIZER_FILE)  # the tokenizer training read
    valid = load_split(stages["data"], "valid")
    assert len(datamodule.valid_pairs) == len(valid)
    for row, (src_ids, tgt_ids) in zip(valid.itertuples(), datamodule.valid_pairs):
        assert src_ids == translator.tokenizer.src.encode(row.src) == vocab_file.src.encode(row.src)
        assert tgt_ids == translator.tokenizer.tgt.encode(row.tgt) == vocab_file.tgt.encode(row.tgt)
        # what training teaches is exactly the reference text, and what the model reads the source
        assert text_of(translator.tokenizer.tgt, tgt_ids) == clean(row.tgt)
        assert text_of(translator.tokenizer.src, src_ids) == clean(row.src)
    train = load_split(stages["data"], "train")
    for row, (src_ids, _) in zip(train.head(20).itertuples(), datamodule.train_pairs):
        assert src_ids == translator.tokenizer.src.encode(row.src)


def test_datamodule_loaders_serve_every_pair_once(datamodule):
    train = [b for b in datamodule.train_dataloader()]
    assert sum(len(b["src_len"]) for b in train) == len(datamodule.train_pairs)
    assert sum(b["n_tokens"] for b in train) == sum(len(t) for _, t in datamodule.train_pairs)
    assert all(len(b["src_len"]) <= datamodule.params.batch_size for b in train)
    loss_loader, bleu_loader = datamodule.val_dataloader()
    served_pairs = sum(len(b["src_len"]) for b in loss_loader)
    assert served_pairs == len(datamodule.valid_loss_pairs) == min(15, len(datamodule.valid_pairs))
    assert all(pair in datamodule.valid_pairs for pair in datamodule.valid_loss_pairs)
    served = [(s, r) for b in bleu_loader for s, r in zip(b["sources"], b["refs"])]
    assert sorted(served) == sorted(datamodule.valid_sources)
    assert len(datamodule.valid_sources) == min(12, len(references(load_split(datamodule.data_dir, "valid"))))


def test_validation_samples_are_seeded_and_span_every_length():
    """The valid split is sorted by length, so its first sources are all short: the samples for
    validation's loss and BLEU must be seeded draws over the whole split, not a prefix."""
    sample = seeded_sample(1000, 100, seed=0)  # index order = length order
    assert sample == seeded_sample(1000, 100, seed=0) and sample != seeded_sample(1000, 100, seed=1)
    assert sample == sorted(set(sample)) and len(sample) == 100
    assert min(sample) < 100 and max(sample) >= 900  # short and long sources alike
    assert sum(i >= 500 for i in sample) >= 30  # not concentrated at the short end
    assert seeded_sample(7, 100, seed=0) == seeded_sample(7, None, seed=0) == list(range(7))  # capped


def test_datamodule_needs_a_valid_split(tmp_path, stages):
    from attention_lab.data.archive import CorpusError
    from attention_lab.data.splits import SplitParams, save_splits

    train = load_split(stages["data"], "train")
    save_splits(tmp_path, {"train": train, "valid": train.head(0), "test": train.head(0)}, SplitParams())
    module = TranslationDataModule(tmp_path, Tokenizer.load(stages["tokenizer"] / TOKENIZER_FILE), DataParams())
    with pytest.raises(CorpusError, match=r"valid\.parquet is empty"):
        module.setup("fit")


def validation_hypotheses(stages, datamodule) -> dict[str, str]:
    """What validation BLEU scores: the training module's greedy translations of the BLEU sample."""
    loaded = load_model(stages["model"])
    module = Seq2SeqModule(loaded.model, OptimParams(), loaded.tokenizer)
    seen: dict[str, str] = {}

    def update(hyps, refs):
        seen.update(zip(current["sources"], hyps))

    module.val_bleu.update = update
    for current in datamodule.val_dataloader()[1]:
        module.validation_step(current, 0, dataloader_idx=1)
    return seen


def test_the_same_output_in_validation_evaluation_and_the_cli(stages, datamodule, capsys, tmp_path):
    valid = load_split(stages["data"], "valid")
    sample = [source for source, _ in datamodule.valid_sources]
    sentences = sample[:4]
    translator = Translator.load(stages["model"], "cpu")
    greedy = [t.text for t in translator.translate(sentences, SearchParams(beam_size=1))]
    beam = [t.text for t in translator.translate(sentences, SearchParams())]  # the defaults: the CLI's

    # training: validation BLEU's hypotheses
    hypotheses = validation_hypotheses(stages, datamodule)
    assert sorted(hypotheses) == sorted(sample)
    assert [hypotheses[s] for s in sentences] == greedy

    # evaluation: translations.tsv, written and read back as the evaluate stage does
    metrics, rows, _ = score_test_split(translator, valid, EvaluateParams(search=SearchParams()))
    rows.to_csv(tmp_path / "translations.tsv", sep="\t", index=False)
    table = pd.read_csv(tmp_path / "translations.tsv", sep="\t", keep_default_na=False)
    hypothesis = dict(zip(table["source"], table["hypothesis"]))
    assert [hypothesis[s] for s in sentences] == beam
    assert len(table) == len(references(valid)) and metrics["unk_in_outputs"] == 0
    for source, refs in datamodule.valid_sources:
        assert table.loc[table["source"] == source, "references"].item() == " ||| ".join(refs)

    # the command line
    assert cli_lines(capsys, "--model", stages["model"], "--device", "cpu", *sentences) == beam
    assert cli_lines(capsys, "--model", stages["model"], "--device", "cpu", "--beam", "1", *sentences) == greedy


def test_the_same_output_for_a_test_sentence(stages, capsys):
    test = load_split(stages["data"], "test")
    sentence = references(test).index[-1]
    translator = Translator.load(stages["model"], "cpu")
    params = EvaluateParams(search=SearchParams(beam_size=3, length_penalty=0.0))
    _, rows, _ = score_test_split(translator, test, params)
    expected = translator.translate([sentence], params.search)[0].text
    assert rows.loc[rows["source"] == sentence, "hypothesis"].item() == expected
    assert cli_lines(capsys, "--model", stages["model"], "--device", "cpu", "--beam", "3", "--length-penalty", "0",
                     sentence) == [expected]


# Every search option, none at its default.
OPTIONS = {"beam_size": 3, "length_penalty": 0.6, "coverage_penalty": 0.4, "min_len_ratio": 1.5, "max_len_ratio": 3.0,
           "max_len_extra": 4}


def test_the_search_params_of_evaluate_and_heatmaps_reach_the_search(stages, tmp_path, monkeypatch):
    from attention_lab.config import load_section
    from attention_lab.evaluation.heatmaps import HeatmapParams, attention_figures
    from attention_lab.inference import translator as translator_module

    params = tmp_path / "params.yaml"
    params.write_text(json.dumps({"evaluate": {"search": OPTIONS, "max_sentences": 3},
                                  "heatmaps": {"search": OPTIONS, "sentences": ["I see the cat."]}}))
    calls = []
    real = translator_module.run_search

    def spy(model, src, src_len, limits, beam_size=1, alpha=0.0, **options):
        calls.append({"beam_size": beam_size, "length_penalty": alpha, "coverage_penalty": options["coverage"],
                      "min_len_ratio": options["min_len_ratio"],
                      # limits - 4 is ceil(3 × source length) = 3 × an integer
                      "max_len_ratio": ((limits - 4).double() / src_len.double()).max().item(),
                      "max_len_extra": (limits - 3 * src_len).max().item()})
        return real(model, src, src_len, limits, beam_size, alpha, **options)

    monkeypatch.setattr(translator_module, "run_search", spy)
    translator = Translator.load(stages["model"], "cpu")
    score_test_split(translator, load_split(stages["data"], "test"), load_section(params, "evaluate", EvaluateParams))
    heatmaps = load_section(params, "heatmaps", HeatmapParams)
    attention_figures(translator, heatmaps.sentences, heatmaps.search)
    beam = [call for call in calls if call["beam_size"] == OPTIONS["beam_size"]]
    assert len(beam) >= 2 and len(calls) >= 4  # each stage also decodes greedily
    for call in beam:
        assert call == OPTIONS
    greedy = [call for call in calls if call["beam_size"] == 1]
    assert all(call["min_len_ratio"] == OPTIONS["min_len_ratio"] for call in greedy)


def test_evaluate_refuses_a_source_over_the_limit_as_the_cli_does(stages):
    test = load_split(stages["data"], "test")
    translator = Translator.load(stages["model"], "cpu")
    sources = list(references(test).index)
    pieces = [len(ids) for ids in translator.tokenizer.src.encode_all(sources)]
    longest = max(range(len(sources)), key=pieces.__getitem__)
    params = EvaluateParams(search=SearchParams(max_source_pieces=pieces[longest] - 1))
    with pytest.raises(UserError, match=rf"^test split: source {longest + 1} .*: {pieces[longest]} pieces, over "
                                        rf"evaluate\.search\.max_source_pieces {pieces[longest] - 1}$"):
        score_test_split(translator, test, params)
    longest = max(range(len(sources)), key=lambda i: len(sources[i]))
    params = EvaluateParams(search=SearchParams(max_source_chars=len(sources[longest]) - 1))
    with pytest.raises(UserError, match=rf"^test split: source {longest + 1} .*: {len(sources[longest])} characters, "
                                        rf"over evaluate\.search\.max_source_chars {len(sources[longest]) - 1}$"):
        score_test_split(translator, test, params)


def test_heatmaps_refuse_a_sentence_over_the_limit_naming_it(stages):
    from attention_lab.evaluation.heatmaps import attention_figures

    translator = Translator.load(stages["model"], "cpu")
    message = r"^heatmaps\.sentences\[1\]: \d+ pieces, over heatmaps\.search\.max_source_pieces 8$"
    with pytest.raises(UserError, match=message):
        attention_figures(translator, ["Go.", "I see the cat and we like the book."], SearchParams(max_source_pieces=8))
    message = r"^heatmaps\.sentences\[1\]: 35 characters, over heatmaps\.search\.max_source_chars 34$"
    with pytest.raises(UserError, match=message):
        attention_figures(translator, ["Go.", "I see the cat and we like the book."], SearchParams(max_source_chars=34))


def run_python(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=REPO, timeout=300)


def test_translating_imports_nothing_of_the_training_stack(stages):
    code = (
        "import sys\n"
        "from attention_lab.inference import training_only\n"
        "from attention_lab.inference.translator import Translator\n"
        f"translator = Translator.load({str(stages['model'])!r}, 'cpu')\n"
        "print(translator.translate(['Go.', 'She takes the car.'])[1].text)\n"
        "print(training_only(list(sys.modules)))\n"
    )
    result = run_python("-c", code)
    assert result.returncode == 0, result.stderr[-3000:]
    text, loaded = result.stdout.splitlines()
    assert text == Translator.load(stages["model"], "cpu").translate(["She takes the car."])[0].text
    assert loaded == "[]", f"translating imported {loaded}"


def test_the_cli_imports_nothing_of_the_training_stack(stages):
    result = run_python("-X", "importtime", "-m", "attention_lab.cli", "translate", "--model", str(stages["model"]),
                        "--device", "cpu", "Go.")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("\n") == 1 and result.stdout.strip()
    assert result.stdout.strip() == Translator.load(stages["model"], "cpu").translate(["Go."])[0].text
    imported = {line.rsplit("|", 1)[1].strip()
                for line in result.stderr.splitlines() if line.startswith("import time:") and "|" in line}
    assert "attention_lab.inference.translator" in imported and "torch" in imported  # the report is read right
    assert not training_only(imported), training_only(imported)


def test_evaluate_reports_number_fidelity_and_the_input_checks(stages, monkeypatch):
    test = pd.DataFrame({"src": ["I see the cat.", "We don't like the book.", "I see 3 cats.", "You take 12 cars."],
                         "tgt": ["Je vois le chat.", "Nous n'aimons pas le livre.", "Je vois 3 chats.",
                                 "Tu prends douze voitures."]})
    translator = Translator.load(stages["model"], "cpu")
    params = EvaluateParams(search=SearchParams(beam_size=2), input_checks=True)
    read = []
    monkeypatch.setattr(translator, "translate", lambda lines, *args, translate=translator.translate, **kwargs:
                        read.append(list(lines)) or translate(lines, *args, **kwargs))
    metrics, _, _ = score_test_split(translator, test, params)
    sources = list(test["src"])
    assert [line.lower() for line in sources] in read and [line[:-1] for line in sources] in read
    # The tiny corpus has no digits: the model cannot read them and carries them to its output.
    assert metrics["beam"]["number_sources"] == metrics["greedy"]["number_sources"] == 2
    assert metrics["beam"]["number_fidelity"] == 1.0
    # Sentence-cased sources without names read the same upper-, Title or lower-cased, unpunctuated, or
    # typed without apostrophes (`don't` read back).
    assert metrics["inputs"] == {f"{name}_bleu": metrics["greedy"]["bleu"]
                                 for name in ("upper", "title", "lower", "unpunctuated", "no_apostrophes")}
    monkeypatch.setattr("attention_lab.text.protect.put_back",
                        lambda carried, source, pieces, attention, src, tgt, recase=str: recase(tgt.join(pieces)))
    metrics, _, _ = score_test_split(translator, test, EvaluateParams(search=SearchParams(beam_size=2)))
    # Dropped, "3" is missing, and asked for; "12" is missing too, but the reference spells it out.
    assert metrics["beam"]["number_fidelity"] == 0.5 and "inputs" not in metrics
