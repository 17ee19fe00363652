"""`attention-lab`: translations checked against `Translator.translate`, and every failure one
line starting with `error:`, exit status 2, no partial output."""

import fcntl
import io
import itertools
import json
import os
import pickle
import re
import resource
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
import torch
from conftest import REPO

from attention_lab.cli import main
from attention_lab.data.numbers import missing_numbers
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.model.seq2seq import ModelParams
from attention_lab.training.run import resolve_precision

torch.set_num_threads(1)

SENTENCES = ["I see the cat.", "We like the book and she takes the car now.", "Go.", "Kowalski sees the dog."]


def cli(capsys, *args, stdin=None, monkeypatch=None):
    """`attention-lab ARGS` in this process: (exit status, stdout, stderr)."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    capsys.readouterr()
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line_error(result, *texts):
    code, out, err = result
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1 and err.endswith("\n"), err
    for text in texts:
        assert text in err, err
    assert out == ""


@pytest.fixture(scope="module")
def expected(trained_model):
    """What `Translator.translate` gives with the CLI's defaults, which are `SearchParams`'s."""
    translator = Translator.load(trained_model, "cpu")

    def translate(sentences, **search):
        return [t.text for t in translator.translate(sentences, SearchParams(**search))]

    return translate


# -- translations ------------------------------------------------------------------------------------

def test_translates_sentences_from_arguments(trained_model, expected, capsys):
    code, out, err = cli(capsys, "translate", "--model", trained_model, "--device", "cpu", *SENTENCES)
    assert code == 0, err
    assert out.splitlines() == expected(SENTENCES) and out.endswith("\n")
    assert all(line.strip() for line in out.splitlines())
    # Subword mode: no word is outside the vocabulary, but the tiny corpus' train split has no "G", which is carried.
    assert "note: line 3: not read by the model, carried to the output as written: G" in err.splitlines(), err
    # Nothing else but notes: the check after writing may ask for a word the tiny corpus lacks (`Go`).
    assert all(line.startswith("note: line ") for line in err.splitlines()), err
    quiet = cli(capsys, "translate", "--model", trained_model, "--device", "cpu", "--quiet", *SENTENCES)
    assert quiet == (0, out, "")


def test_search_options_reach_the_translator(trained_model, expected, capsys):
    code, out, _ = cli(capsys, "translate", "--model", trained_model / "model.pt", "--device", "cpu", "--beam", 1,
                       "--max-len-ratio", "0.5", "--batch-size", 2, *SENTENCES)
    assert code == 0 and out.splitlines() == expected(SENTENCES, beam_size=1, max_len_ratio=0.5, batch_size=2)
    code, out, _ = cli(capsys, "translate", "--model", trained_model, "--device", "cpu", "--beam", 3,
                       "--length-penalty", "0", *SENTENCES)
    assert code == 0 and out.splitlines() == expected(SENTENCES, beam_size=3, length_penalty=0.0)
    code, out, _ = cli(capsys, "translate", "--model", trained_model, "--device", "cpu", "--beam", 3,
                       "--coverage-penalty", "0.2", "--min-len-ratio", "0.8", *SENTENCES)
    assert code == 0 and out.splitlines() == expected(SENTENCES, beam_size=3, coverage_penalty=0.2,
                                                      min_len_ratio=0.8)


def test_file_in_file_out_keeps_blank_lines(trained_model, expected, capsys, tmp_path):
    lines = ["I see the cat.", "", "You want the bread.", "   ", "Go.", ""]
    (tmp_path / "in.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = cli(capsys, "translate", "--model", trained_model, "--device", "cpu",
                         "--input", tmp_path / "in.txt", "--output", tmp_path / "out.txt")
    assert code == 0 and out == "", err
    written = (tmp_path / "out.txt").read_text(encoding="utf-8")
    assert written.endswith("\n") and written.count("\n") == len(lines)
    translations = iter(expected([line for line in lines if line.strip()]))
    assert written.splitlines() == [next(translations) if line.strip() else "" for line in lines]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.txt"]  # no temporary file left


def test_stdin_and_dash_input(trained_model, expected, capsys, monkeypatch):
    text = "He sees the dog.\n\nShe takes the car.\r\n"
    for input_args in ([], ["--input", "-"]):
        code, out, err = cli(capsys, "translate", "--model", trained_model, "--device", "cpu", *input_args,
                             stdin=text, monkeypatch=monkeypatch)
        assert code == 0, err
        first, second = expected(["He sees the dog.", "She takes the car."])
        assert out == f"{first}\n\n{second}\n"


def test_stdin_to_stdout_with_heatmap_in_a_subprocess(trained_model, expected, tmp_path):
    result = subprocess.run([sys.executable, "-m", "attention_lab.cli", "translate", "--model", str(trained_model),
                             "--device", "cpu", "--heatmap", str(tmp_path / "h.png")],
                            input="He sees the dog.\nGo.\n", capture_output=True, text=True, cwd=REPO, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines() == expected(["He sees the dog.", "Go."])
    assert (tmp_path / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_html_writes_the_explorer_page_of_the_typed_sentences(transformer_model, capsys, tmp_path, monkeypatch):
    from attention_lab.evaluation.explorer import read_page_data

    sentences = ["I see the cat.", "", "We like the book."]  # a blank line gets no entry
    code, out, err = cli(capsys, "translate", "--model", transformer_model, "--device", "cpu", "--beam", 3,
                         "--html", tmp_path / "page.html", "--input", "-", stdin="\n".join(sentences) + "\n",
                         monkeypatch=monkeypatch)
    assert code == 0, err
    data = read_page_data((tmp_path / "page.html").read_text(encoding="utf-8"))
    assert [s["source"] for s in data["sentences"]] == ["I see the cat.", "We like the book."]
    assert {s["group"] for s in data["sentences"]} == {"typed"}
    beam = [s["results"][1] for s in data["sentences"]]
    assert [r["search"] for r in beam] == ["beam 3"] * 2 and [r["text"] for r in beam] == out.split("\n")[::2][:2]
    assert all(s["encoder"] and s["results"][1]["decoder"] for s in data["sentences"])  # its self-attention too


def test_words_outside_the_vocabulary_are_noted_and_copied(word_model, capsys):
    sentences = ["She takes the car.", "Zebulon sees the dog and Priya likes the bread."]
    code, out, err = cli(capsys, "translate", "--model", word_model, "--device", "cpu", *sentences)
    assert code == 0, err
    translations = Translator.load(word_model, "cpu").translate(sentences)
    assert out.splitlines() == [t.text for t in translations]
    assert "<unk>" not in out
    notes = err.splitlines()
    assert notes[0].startswith("note: line 2: ") and "Zebulon Priya" in notes[0], err
    assert "<unk>" in notes[0] and notes[0].endswith(" ".join(translations[1].unknown))
    # The rest is the check after writing's, on the same line: a tiny model may drop the names it copies.
    assert notes[1:] == [f"note: line 2: {note}" for note in translations[1].found.notes()], err


# -- errors --------------------------------------------------------------------------------------------

def test_missing_model(capsys, tmp_path):
    one_line_error(cli(capsys, "translate", "--model", tmp_path / "none", "Go."),
                   f"{tmp_path / 'none'}: no such model file")


def test_corrupt_and_truncated_models(trained_model, capsys, tmp_path):
    (tmp_path / "junk.pt").write_bytes(b"\x00this is not a model\n" * 100)
    one_line_error(cli(capsys, "translate", "--model", tmp_path / "junk.pt", "Go."),
                   f"{tmp_path / 'junk.pt'}: corrupt or truncated model file")
    data = (trained_model / "model.pt").read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    one_line_error(cli(capsys, "translate", "--model", tmp_path / "cut.pt", "Go."),
                   f"{tmp_path / 'cut.pt'}: corrupt or truncated model file")
    torch.save({"weights": torch.zeros(2)}, tmp_path / "other.pt")
    one_line_error(cli(capsys, "translate", "--model", tmp_path / "other.pt", "Go."),
                   "other.pt: not an attention-lab model file")


def test_model_files_that_do_not_fit_this_code(trained_model, word_model, capsys, tmp_path):
    payload = torch.load(trained_model / "model.pt", weights_only=True)
    old = {**payload, "version": 1}
    torch.save(old, tmp_path / "old.pt")
    one_line_error(cli(capsys, "translate", "--model", tmp_path / "old.pt", "Go."),
                   "old.pt: model file version 1, this code reads 2")
    other_tokenizer = torch.load(word_model / "model.pt", weights_only=True)["tokenizer"]
    torch.save({**payload, "tokenizer": other_tokenizer}, tmp_path / "model.pt")
    one_line_error(cli(capsys, "translate", "--model", tmp_path, "Go."),
                   "model.pt: source vocabulary has", "but the weights expect")


class Exploit:
    def __reduce__(self):
        return (os.system, (f"touch {Path(os.environ['EXPLOIT_MARKER'])}",))


@pytest.mark.parametrize("protocol", [2, pickle.DEFAULT_PROTOCOL])
def test_malicious_pickle_is_refused(tmp_path, monkeypatch, capsys, protocol):
    marker = tmp_path / "pwned"
    monkeypatch.setenv("EXPLOIT_MARKER", str(marker))
    torch.save({"format": "attention-lab/seq2seq", "payload": Exploit()}, tmp_path / "evil.pt",
               pickle_protocol=protocol)
    one_line_error(cli(capsys, "translate", "--model", tmp_path / "evil.pt", "Go."),
                   "evil.pt: refusing to load: not a plain weights file")
    assert not marker.exists()


@pytest.mark.parametrize("content", ["", "\n  \n", "\t\r\n"])
def test_an_input_file_with_no_text_is_no_error(trained_model, capsys, tmp_path, content):
    (tmp_path / "in.txt").write_text(content)
    result = cli(capsys, "translate", "--model", trained_model, "--input", tmp_path / "in.txt",
                 "--output", tmp_path / "o.txt")
    assert result == (0, "", "")
    assert (tmp_path / "o.txt").read_text() == "\n" * len(content.splitlines())  # blank lines stay blank


@pytest.mark.parametrize("input_args", [[], ["--input", "-"]])
def test_empty_stdin_exits_0_with_no_output(trained_model, capsys, monkeypatch, input_args):
    assert cli(capsys, "translate", "--model", trained_model, *input_args, stdin="", monkeypatch=monkeypatch) == \
        (0, "", "")


def test_a_line_missing_a_number_of_its_source_is_noted(trained_model, capsys, monkeypatch):
    """The tiny corpus has no digits: the model cannot read them and carries them to the output.
    Dropped instead, they are missing from the translation, and stderr says so (not with --quiet)."""
    lines = ["I see the cat.", "I see 3 cats and 12 dogs."]
    args = ["translate", "--model", trained_model, "--device", "cpu", *lines]
    code, out, err = cli(capsys, *args)
    assert code == 0 and "3" in out and "12" in out and "numbers" not in err
    monkeypatch.setattr("attention_lab.text.protect.put_back",
                        lambda carried, source, pieces, attention, src, tgt, recase=str: recase(tgt.join(pieces)))
    code, out, err = cli(capsys, *args)
    assert code == 0 and "3" not in out
    assert "note: line 2: numbers of the source not in the translation, check it: 3 12\n" in err
    assert "line 1" not in err
    assert cli(capsys, *args, "--quiet")[2] == ""


def test_the_report_holds_a_json_object_for_each_input_line_with_what_its_checks_found(trained_model, capsys,
                                                                                     monkeypatch, tmp_path):
    (tmp_path / "in.txt").write_text("I see the cat.\n\nI see 3 cats and 12 dogs.\n")
    args = ["translate", "--model", trained_model, "--device", "cpu", "--input", tmp_path / "in.txt", "--report",
            tmp_path / "report.jsonl"]
    monkeypatch.setattr("attention_lab.text.protect.put_back",
                        lambda carried, source, pieces, attention, src, tgt, recase=str: recase(tgt.join(pieces)))
    code, out, err = cli(capsys, *args, "--quiet")
    rows = [json.loads(line) for line in (tmp_path / "report.jsonl").read_text().splitlines()]
    assert code == 0 and [row["line"] for row in rows] == [1, 2, 3] and [row["flagged"] for row in rows] == \
        [False, False, True]
    assert [row["translation"] for row in rows] == out.splitlines() and rows[2]["source"] == "I see 3 cats and 12 dogs."
    assert rows[2]["missing_numbers"] == ["3", "12"] and rows[0]["missing_numbers"] == rows[1]["added_numbers"] == []
    assert set(rows[0]) == {"line", "source", "translation", "flagged", "missing_numbers", "added_numbers",
                            "missing_names", "missing_carried", "missing_terms", "placeholders", "missing_units"}


def test_a_failed_translation_leaves_the_report_as_it_was(trained_model, capsys, tmp_path):
    report = tmp_path / "report.jsonl"
    report.write_text("old\n")
    one_line_error(cli(capsys, "translate", "--model", trained_model, "--report", report, "--max-source-chars", 5,
                       "Go.", "I see the cat."), "sentence 2")
    assert report.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["report.jsonl"]


def test_free_numbers_lets_the_search_write_a_number_the_source_lacks(digit_model, capsys):
    line, command = "I see 3 cats.", ("translate", "--model", digit_model, "--device", "cpu", "--quiet")
    (code, kept, _), (free_code, free, _) = (cli(capsys, *command, *flag, line) for flag in ([], ["--free-numbers"]))
    assert code == free_code == 0
    assert missing_numbers(kept, line) == [] and missing_numbers(free, line), free  # numbers the line lacks


def test_nothing_to_translate_from_a_terminal(trained_model, capsys, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())
    one_line_error(cli(capsys, "translate", "--model", trained_model), "nothing to translate")


def test_an_error_leaves_an_existing_output_alone(trained_model, capsys, tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("earlier translations\n")
    (tmp_path / "in.txt").write_text("I see the cat.\n")
    one_line_error(cli(capsys, "translate", "--model", tmp_path / "none.pt", "--input", tmp_path / "in.txt",
                       "--output", out), "none.pt: no such model file")
    assert out.read_text() == "earlier translations\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.txt"]


def test_bad_input_arguments(trained_model, capsys, tmp_path):
    one_line_error(cli(capsys, "translate", "--model", trained_model, "Go.", ""), "sentence 2 is empty")
    one_line_error(cli(capsys, "translate", "--model", trained_model, "--input", tmp_path / "nope.txt"),
                   f"{tmp_path / 'nope.txt'}: no such input file")
    (tmp_path / "latin1.txt").write_bytes("Go.\nÇa va ?\n".encode("latin-1"))
    one_line_error(cli(capsys, "translate", "--model", trained_model, "--input", tmp_path / "latin1.txt"),
                   f"{tmp_path / 'latin1.txt'}: line 2: not UTF-8 text (invalid continuation byte at byte 0)")
    (tmp_path / "in.txt").write_text("Go.\n")
    one_line_error(cli(capsys, "translate", "--model", trained_model, "--input", tmp_path / "in.txt", "Go."),
                   "not both")
    one_line_error(cli(capsys, "translate", "--model", trained_model, "--length-penalty", "-1", "Go."),
                   "--length-penalty: must be >= 0, got -1")
    one_line_error(cli(capsys, "translate", "--model", trained_model, "--min-len-ratio", "-1", "Go."),
                   "--min-len-ratio: must be >= 0, got -1")
    one_line_error(cli(capsys, "translate", "--model", trained_model, "--max-len-ratio", "0", "Go."),
                   "--max-len-ratio: must be > 0")
    if not torch.cuda.is_available():
        one_line_error(cli(capsys, "translate", "--model", trained_model, "--device", "cuda", "Go."),
                       "--device cuda: no CUDA device")


@pytest.mark.parametrize("option, value", [("--beam", "0"), ("--beam", "-3"), ("--beam", "four"),
                                           ("--batch-size", "0"), ("--device", "gpu")])
def test_bad_option_values_are_one_line_errors_naming_the_value(trained_model, capsys, tmp_path, option, value):
    out = tmp_path / "out.txt"
    result = cli(capsys, "translate", "--model", trained_model, "--output", out, option, value, "Go.")
    one_line_error(result, option, value)
    assert not out.exists()


@pytest.mark.parametrize("option, value", [("--set", "model.hidden_size"), ("--set-transformer", "=2"),
                                           ("--set-gpu-recipe", "layers")])
def test_bench_settings_without_key_and_value_are_one_line_errors_naming_the_option(capsys, option, value):
    one_line_error(cli(capsys, "bench", option, value), f"argument {option}: expected KEY=VALUE, got {value!r}")


def numbers(node, path=""):
    """(path, value) of every number in a JSON document."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from numbers(value, f"{path}.{key}")
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield path, node


def test_bench_reports_same_run_ratios_as_json(corpus_zip, tmp_path, capsys, monkeypatch):
    from attention_lab.bench import flops, report as bench_report

    # The peak from smaller products: 2,048-square ones take seconds each on one core, twice a run.
    monkeypatch.setattr(bench_report, "matmul_trial", lambda device, dtype: flops.matmul_trial(device, dtype, size=512))
    params = tmp_path / "params.yaml"
    params.write_text(json.dumps({
        "train_tokenizer": {"kind": "subword", "subword": {"size": 450, "model": "bpe"}},
        "train_seq2seq": {"data": {"batch_tokens": 256}, "model": {
            "embed_size": 8, "hidden_size": 16, "num_layers": 1, "bidirectional": True, "tie_embeddings": "all"}}}))
    code, out, err = cli(capsys, "bench", "--corpus", corpus_zip, "--pairs", 120, "--epochs", 2, "--reference",
                         "--params", params, "--splits", tmp_path / "absent", "--default-pairs", 200,
                         "--decode-sentences", 12, "--one-by-one", 3, "--set-transformer", "model.transformer.layers=1",
                         "--set-transformer", "model.transformer.model_size=16", "--set-transformer",
                         "model.transformer.ffn_size=32", "--gpu-recipe", *itertools.chain.from_iterable(
                             ("--set-gpu-recipe", f"model.transformer.{size}") for size in
                             ("layers=1", "model_size=16", "heads=2", "ffn_size=32")))
    assert code == 0, err[-3000:]
    report = json.loads(out)  # stdout holds the report alone
    assert set(report) == {"machine", "matmul_peak_gflops", "seed", "reference", "default", "transformer", "gpu_recipe",
                           "decoding", "startup", "seconds", "budget", "config"}
    parts = {k: v for k, v in report["seconds"].items() if k != "total"}  # where the run's time went
    assert set(parts) == {"peaks", "seed", "reference", "default", "transformer", "gpu_recipe", "decoding", "startup"}
    # The default budget, far more than this run needs: every phase ran all it would, none was cut short.
    budget = report["budget"]
    assert budget["budget_s"] == 540 and set(budget["phases"]) == set(parts) | {"peaks_after"}
    assert all(phase["repeats"] and min(phase["repeats"].values()) >= 1 and "cut_short" not in phase
               for phase in budget["phases"].values()), budget
    assert report["reference"]["epochs"] == 1 + budget["phases"]["reference"]["repeats"]["epochs"]
    assert 0.8 * report["seconds"]["total"] <= sum(parts.values()) <= report["seconds"]["total"] + 0.5
    assert min(parts.values()) > 0
    figures = list(numbers({k: v for k, v in report.items() if k != "config"}))
    assert len(figures) > 30 and all(value > 0 for _, value in figures), [f for f in figures if f[1] <= 0]
    assert report["machine"]["cpu"] and report["machine"]["torch"] == torch.__version__
    assert report["config"]["seed"]["model"]["hidden_size"] == ModelParams().hidden_size  # d2l's seed configuration
    assert report["config"]["default"]["model"]["hidden_size"] == 16
    # The Transformer: the default's settings but its architecture, on the same pairs
    transformer = report["config"]["transformer"]
    assert transformer["model"]["arch"] == "transformer" and transformer["model"]["transformer"]["model_size"] == 16
    assert transformer["data"] == report["config"]["default"]["data"] and transformer["pairs"] == 200
    assert report["transformer"]["tokens_per_s_over_default"] == pytest.approx(  # rounded to 2 decimals
        report["transformer"]["tokens_per_s"] / report["default"]["tokens_per_s"], rel=0.01, abs=0.005)
    # The GPU recipe (forced on here, on a CPU): its own settings, then the command line's, on the same pairs
    recipe = report["config"]["gpu_recipe"]
    assert recipe["model"]["transformer"] == {"layers": 1, "heads": 2, "model_size": 16, "ffn_size": 32,
                                              "dropout": 0.2}
    assert recipe["data"]["batch_tokens"] == 32768 and recipe["optim"]["lr"] == 0.0015
    assert recipe["trainer"]["cuda_graphs"] is False and recipe["pairs"] == 200
    for name in ("seed", "default", "transformer", "gpu_recipe"):
        run = report[name]
        assert run["epochs"] == (bench_report.RECIPE_EPOCHS if name == "gpu_recipe" else 2)
        assert run["flops_per_token"] > 0
        assert run["precision"] == resolve_precision("auto", "auto")  # bf16 on CUDA and on CPUs with native bf16
        peak = report["matmul_peak_gflops"]["bfloat16" if run["precision"] == "bf16-mixed" else "float32"]
        assert run["fraction_of_peak"] == pytest.approx(
            run["tokens_per_s"] * run["flops_per_token"] / 1e9 / peak, rel=0.02, abs=1e-3)
        assert run["fraction_of_ceiling"] == pytest.approx(run["gflops"] / run["matmul_ceiling_gflops"], rel=0.01)
        assert run["ceiling_fraction_of_peak"] == pytest.approx(run["matmul_ceiling_gflops"] / peak, rel=0.01)
    assert report["reference"]["project_over_reference"] == pytest.approx(  # rounded to 2 decimals
        report["seed"]["tokens_per_s"] / report["reference"]["tokens_per_s"], rel=0.01, abs=0.005)
    assert report["startup"]["training_stack_imported"] == []  # translating needs no Lightning, MLflow or DVC
    assert report["startup"]["translation"]
    for search, decoding in itertools.product(("greedy", "beam"), (report["decoding"], report["transformer"]["decoding"])):
        speed = decoding[search]
        assert 0 < speed["sentences"] <= 12
        assert speed["batching_speedup"] == pytest.approx(
            speed["batched_sentences_per_s"] / speed["one_by_one_sentences_per_s"], rel=0.05, abs=0.05)
    # The default search with the Transformer's self-attention maps off and on: the same outputs; the
    # recurrent model has no self-attention to measure.
    self_maps = report["transformer"]["decoding"]["self_maps"]
    assert "self_maps" not in report["decoding"] and self_maps["same_outputs"] is True
    assert self_maps["beam_size"] == SearchParams().beam_size and self_maps["sentences"] == speed["sentences"]
    assert self_maps["on_over_off"] == pytest.approx(
        self_maps["on_sentences_per_s"] / self_maps["off_sentences_per_s"], rel=0.05, abs=0.01)

# -- bounds and output paths -------------------------------------------------------------------------

def test_a_line_over_the_source_limit_is_refused_naming_the_line_with_no_output(trained_model, capsys, tmp_path):
    (tmp_path / "in.txt").write_text("Go.\n\n" + " ".join(["cat"] * 1000) + "\nI see the cat.\n")
    out = tmp_path / "out.txt"
    one_line_error(cli(capsys, "translate", "--model", trained_model, "--input", tmp_path / "in.txt",
                       "--output", out), f"{tmp_path / 'in.txt'}: line 3: ", "over --max-source-pieces 256")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]
    one_line_error(cli(capsys, "translate", "--model", trained_model, "--max-source-pieces", "5", "Go.",
                       "I see the cat."), "sentence 2: ", "over --max-source-pieces 5")
    (tmp_path / "in.txt").write_text("Go.\n\n" + "🐱 " * 50_000 + "\n")
    one_line_error(cli(capsys, "translate", "--model", trained_model, "--input", tmp_path / "in.txt"),
                   f"{tmp_path / 'in.txt'}: line 3: 100000 characters, over --max-source-chars 4096: split it into "
                   "shorter lines")
    one_line_error(cli(capsys, "translate", "--model", trained_model, "--max-source-chars", "5", "Go.",
                       "I see the cat."), "sentence 2: 14 characters, over --max-source-chars 5")


def test_a_line_that_is_no_text_is_refused_in_one_line(trained_model, capsys, monkeypatch):
    """An argument's bytes that are not UTF-8 reach Python as lone surrogates (and a text stream may hold
    them), which failed inside the segmenter."""
    one_line_error(cli(capsys, "translate", "--model", trained_model, "Go.", "I see \udcff the cat."),
                   "error: sentence 2: not UTF-8 text (surrogates not allowed at character 7)\n")
    one_line_error(cli(capsys, "translate", "--model", trained_model, stdin="Go.\n\nI see \udcff the cat.\n",
                       monkeypatch=monkeypatch),
                   "error: stdin: line 3: not UTF-8 text (surrogates not allowed at character 7)\n")


@pytest.mark.parametrize("option", ["--length-penalty", "--max-len-ratio"])
@pytest.mark.parametrize("value", ["inf", "-inf", "nan"])
def test_non_finite_search_settings_are_refused_naming_the_key(trained_model, capsys, option, value):
    one_line_error(cli(capsys, "translate", "--model", trained_model, f"{option}={value}", "Go."),
                   f"{option}: must be a finite number")


def refuse_to_load(*args):
    pytest.fail("the model was loaded before the paths were checked")


@pytest.mark.parametrize("option", ["--output", "--heatmap", "--html", "--report"])
def test_an_output_into_a_missing_folder_fails_naming_it_and_creates_nothing(trained_model, capsys, tmp_path, option,
                                                                             monkeypatch):
    monkeypatch.setattr(Translator, "load", refuse_to_load)
    target = tmp_path / "typo" / "out.png"
    one_line_error(cli(capsys, "translate", "--model", trained_model, option, target, "Go."),
                   f"{option} {target}: no such directory {str(tmp_path / 'typo')!r}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["--output", "--heatmap", "--html", "--report"])
def test_an_output_onto_a_directory_fails_before_translating(trained_model, capsys, tmp_path, option, monkeypatch):
    monkeypatch.setattr(Translator, "load", refuse_to_load)
    (tmp_path / "folder").mkdir()
    one_line_error(cli(capsys, "translate", "--model", trained_model, option, tmp_path / "folder", "Go."),
                   f"{option} {tmp_path / 'folder'}: is a directory")
    assert list((tmp_path / "folder").iterdir()) == []


def test_an_input_file_with_a_byte_order_mark_reads_as_without(trained_model, capsys, tmp_path, monkeypatch):
    read = []  # the sentences the translator is given
    translate = Translator.translate
    monkeypatch.setattr(Translator, "translate", lambda self, sentences, *a, **k: (
        read.append(list(sentences)), translate(self, sentences, *a, **k))[1])
    (tmp_path / "bom.txt").write_bytes("\ufeffI see the cat.\r\nGo.\r\n".encode("utf-8"))
    code, out, _ = cli(capsys, "translate", "--model", trained_model, "--input", tmp_path / "bom.txt")
    assert code == 0 and read == [["I see the cat.", "Go."]] and out.count("\n") == 2
    read.clear()
    code, _, _ = cli(capsys, "translate", "--model", trained_model, stdin="\ufeffGo.\n", monkeypatch=monkeypatch)
    assert code == 0 and read == [["Go."]]


# -- the system's failures, in the real process ---------------------------------------------------------

SCRIPT = Path(sys.executable).parent / "attention-lab"


def start(model, *args, **popen) -> subprocess.Popen:
    """`attention-lab translate --model MODEL ARGS` as its own process, stderr read as text."""
    popen = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE, **popen}
    return subprocess.Popen([str(SCRIPT), "translate", "--model", str(model), "--device", "cpu", *map(str, args)],
                            text=True, **popen)


def failed(job, status: int, message: str) -> None:
    """`job` ended with `status` and the one line `error: MESSAGE`, no traceback."""
    _, err = job.communicate(timeout=300)
    assert (job.returncode, err) == (status, f"error: {message}\n")


def long_input(folder: Path, repeats: int = 3000) -> Path:
    """12,000 lines: many chunks, tens of seconds of beam search. Sentences of characters the tiny
    model reads all of, so that stderr holds no note of carried characters ("Go.": no "G")."""
    path = folder / "in.txt"
    path.write_text("".join(f"{s}\n" for s in SENTENCES[:2] * (2 * repeats)))
    return path


def wait_for_a_partial_write(job, out: Path) -> Path:
    """The file written to (`out`'s temporary, or `out` itself were it written in place), once it
    holds translations: the job is midway."""
    while job.poll() is None:
        partial = [p for p in [*out.parent.glob(f".{out.name}.*.tmp"), out] if p.exists() and p.stat().st_size > 0]
        if partial:
            return partial[0]
        time.sleep(0.05)
    pytest.fail(f"the job ended ({job.returncode}) before it wrote any translation: give it more lines")


def test_a_killed_job_leaves_no_output_and_the_next_run_clears_its_temporary(trained_model, expected, tmp_path):
    """The translations go to a temporary name, renamed when all are written: a job killed while
    it writes (SIGKILL runs no cleanup) leaves no `--output`, partial or not. Both jobs run the
    installed console script."""
    out = tmp_path / "out.txt"
    job = start(trained_model, "--input", long_input(tmp_path), "--output", out)
    partial = wait_for_a_partial_write(job, out)
    job.kill()
    job.communicate(timeout=60)
    assert not out.exists() and partial.exists()
    done = subprocess.run([str(SCRIPT), "translate", "--model", str(trained_model), "--output", str(out), "Go."],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert out.read_text().splitlines() == expected(["Go."])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.txt"]  # the stale temporary is gone


def as_in_a_terminal() -> None:
    """SIGINT as a terminal leaves it: a shell without job control starts background jobs (a CI
    runner's) with SIGINT ignored, their children inherit that, and Python then installs no
    KeyboardInterrupt handler (the Ctrl-C test saw exit 0 there)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_is_one_line_exit_130_and_leaves_no_output(trained_model, tmp_path):
    out = tmp_path / "out.txt"
    job = start(trained_model, "--input", long_input(tmp_path), "--output", out, preexec_fn=as_in_a_terminal)
    wait_for_a_partial_write(job, out)
    job.send_signal(signal.SIGINT)
    failed(job, 130, "interrupted")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt"]


def test_ctrl_c_while_writing_to_stdout_is_one_line_exit_130(trained_model, tmp_path):
    job = start(trained_model, "--input", long_input(tmp_path), stdout=subprocess.PIPE, preexec_fn=as_in_a_terminal)
    assert job.stdout.readline().strip()  # midway: translations are coming out
    job.send_signal(signal.SIGINT)
    failed(job, 130, "interrupted")


def test_a_write_failing_midway_leaves_the_earlier_output_untouched(trained_model, tmp_path):
    """A file-size limit of 4 KiB (RLIMIT_FSIZE) fails the write after its first blocks, as a
    full disk would, with errno EFBIG."""
    out = tmp_path / "out.txt"
    out.write_text("earlier translations\n")
    limit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))  # noqa: E731
    job = start(trained_model, "--beam", 1, "--input", long_input(tmp_path, 100), "--output", out, preexec_fn=limit)
    failed(job, 1, f"{out}: File too large")
    assert out.read_text() == "earlier translations\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.txt", "out.txt"]


def test_a_full_disk_under_stdout_is_one_line(trained_model):
    with open("/dev/full", "w") as full:  # every write fails with ENOSPC
        failed(start(trained_model, *SENTENCES, stdout=full), 1, "stdout: No space left on device")


def test_a_closed_pipe_is_one_line(trained_model, tmp_path):
    """`attention-lab translate --input big.txt | head -1`: the reader leaves after one line."""
    job = start(trained_model, "--beam", 1, "--input", long_input(tmp_path), stdout=subprocess.PIPE)
    assert job.stdout.readline().strip()
    job.stdout.close()
    assert job.wait(timeout=300) == 1
    assert job.stderr.read() == "error: stdout: Broken pipe\n"


def test_a_folder_given_as_the_input_file_is_one_line(trained_model, tmp_path):
    (tmp_path / "folder").mkdir()
    out = tmp_path / "out.txt"
    failed(start(trained_model, "--input", tmp_path / "folder", "--output", out), 2,
           f"{tmp_path / 'folder'}: is a directory, not a file")
    assert not out.exists()


def test_every_command_reads_a_file_given_as_a_folder_as_one_line(tmp_path):
    (tmp_path / "mlflow_run.json").write_text("{}")
    given = tmp_path / "mlflow_run.json"
    done = subprocess.run([str(SCRIPT), "promote", "--model-dir", str(given)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2 and done.stderr.startswith(f"error: {given}/mlflow_run.json: unreadable ")
    assert done.stderr.count("\n") == 1, done.stderr


@pytest.mark.skipif(not Path("/sys").is_dir(), reason="sysfs refuses new files, even to root")
def test_an_output_where_writing_is_not_permitted_is_one_line(trained_model):
    out = Path("/sys/translations.txt")
    failed(start(trained_model, "--output", out, "Go."), 1, f"{out}: Permission denied")
    assert not out.exists()


def read_terminal(args: list) -> tuple[int, bytes]:
    """Run `args` with stderr on a pseudo-terminal of 24 rows of 100 columns (a new one has 0):
    (exit status, what it showed there)."""
    controller, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    job = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=terminal)
    os.close(terminal)
    shown = b""
    while True:
        try:
            data = os.read(controller, 4096)
        except OSError:  # EIO: the job closed the terminal
            break
        if not data:
            break
        shown += data
    os.close(controller)
    return job.wait(timeout=300), shown


def test_a_long_input_shows_progress_on_a_terminal_only(trained_model, tmp_path):
    path = long_input(tmp_path, 30)  # 120 lines
    args = [str(SCRIPT), "translate", "--model", str(trained_model), "--beam", "1", "--input", str(path),
            "--output", str(tmp_path / "out.txt")]
    code, shown = read_terminal(args)
    assert code == 0, shown[-2000:]
    assert re.search(rb"\d+/120 \[", shown) and b"lines/s" in shown, shown[-2000:]  # tqdm's count of the total
    assert read_terminal(args + ["--quiet"]) == (0, b"")
    piped = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert (piped.returncode, piped.stderr) == (0, "")
