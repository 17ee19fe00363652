import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import REPO


def cli(*args, stdin=None, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "attention_lab.cli", *map(str, args)], input=stdin,
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def one_line_error(result, text):
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert text in result.stderr, result.stderr


def test_translates_sentences_from_arguments(trained_model):
    result = cli("translate", "--model", trained_model, "I see the cat.", "We like the book.")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["je vois le chat.", "nous aimons le livre."]


def test_greedy_and_beam_agree_on_an_easy_sentence(trained_model):
    outputs = {beam: cli("translate", "--model", trained_model, "--beam", beam, "She takes the car.").stdout
               for beam in (1, 4)}
    assert outputs[1] == outputs[4] == "elle prend la voiture.\n"


def test_file_in_file_out_keeps_blank_lines(trained_model, tmp_path):
    (tmp_path / "in.txt").write_text("I see the cat.\n\nYou want the bread.\n")
    result = cli("translate", "--model", trained_model, "--input", tmp_path / "in.txt",
                 "--output", tmp_path / "out.txt")
    assert result.returncode == 0 and result.stdout == ""
    assert (tmp_path / "out.txt").read_text() == "je vois le chat.\n\ntu veux le pain.\n"


def test_stdin_to_stdout_with_heatmap(trained_model, tmp_path):
    result = cli("translate", "--model", trained_model, "--heatmap", tmp_path / "h.png", stdin="He sees the dog.\n")
    assert result.returncode == 0 and result.stdout == "il voit le chien.\n"
    assert (tmp_path / "h.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unknown_and_overlong_input_are_reported(trained_model):
    result = cli("translate", "--model", trained_model, "I see the zebra and the cat and the dog today.")
    assert result.returncode == 0 and result.stdout.strip()
    assert "unknown words read as <unk>: zebra" in result.stderr
    assert "warning: line 1 has 12 tokens; the model reads the first 7" in result.stderr


def test_console_script_is_installed(trained_model):
    script = Path(sys.executable).parent / "attention-lab"
    result = subprocess.run([script, "translate", "--model", trained_model, "Go."], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_missing_model(tmp_path):
    one_line_error(cli("translate", "--model", tmp_path / "none", "Go."), "no such model file")


def test_corrupt_and_truncated_models(trained_model, tmp_path):
    (tmp_path / "junk.pt").write_bytes(b"\x00this is not a model\n" * 100)
    one_line_error(cli("translate", "--model", tmp_path / "junk.pt", "Go."), "corrupt or truncated model file")
    data = (trained_model / "model.pt").read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    one_line_error(cli("translate", "--model", tmp_path / "cut.pt", "Go."), "corrupt or truncated model file")
    torch.save({"weights": torch.zeros(2)}, tmp_path / "other.pt")
    one_line_error(cli("translate", "--model", tmp_path / "other.pt", "Go."), "not an attention-lab model file")


class Exploit:
    def __reduce__(self):
        return (os.system, (f"touch {Path(os.environ['EXPLOIT_MARKER'])}",))


@pytest.mark.parametrize("protocol", [2, pickle.DEFAULT_PROTOCOL])
def test_malicious_pickle_is_refused(tmp_path, monkeypatch, protocol):
    marker = tmp_path / "pwned"
    monkeypatch.setenv("EXPLOIT_MARKER", str(marker))
    torch.save({"format": "attention-lab/seq2seq", "payload": Exploit()}, tmp_path / "evil.pt",
               pickle_protocol=protocol)
    result = cli("translate", "--model", tmp_path / "evil.pt", "Go.")
    one_line_error(result, "refusing to load: not a plain weights file")
    assert not marker.exists()


def test_vocabulary_that_does_not_match_the_weights(trained_model, tmp_path):
    payload = torch.load(trained_model / "model.pt", weights_only=True)
    payload["tgt_vocab"] = payload["tgt_vocab"][:-3]
    torch.save(payload, tmp_path / "model.pt")
    one_line_error(cli("translate", "--model", tmp_path, "Go."), "target vocabulary has")


@pytest.mark.parametrize("content", ["", "\n  \n"])
def test_empty_input(trained_model, tmp_path, content):
    (tmp_path / "in.txt").write_text(content)
    result = cli("translate", "--model", trained_model, "--input", tmp_path / "in.txt", "--output", tmp_path / "o.txt")
    one_line_error(result, "empty input")
    assert not (tmp_path / "o.txt").exists()


def test_other_bad_arguments(trained_model, tmp_path):
    one_line_error(cli("translate", "--model", trained_model, ""), "sentence 1 is empty")
    one_line_error(cli("translate", "--model", trained_model, "--input", tmp_path / "nope.txt"), "no such input file")
    one_line_error(cli("translate", "--model", trained_model, "--length-penalty", "-1", "Go."),
                   "translate.length_penalty: must be >= 0")
    result = cli("translate", "--model", trained_model, "--beam", "0", "Go.")
    assert result.returncode == 2 and "expected a positive integer" in result.stderr
    result = cli("translate", "--model", trained_model, "--device", "gpu", "Go.")
    assert result.returncode == 2 and "invalid choice: 'gpu'" in result.stderr
    if not torch.cuda.is_available():
        one_line_error(cli("translate", "--model", trained_model, "--device", "cuda", "Go."), "no CUDA device")


def test_bench_prints_measured_throughput_as_json(corpus_zip):
    result = cli("bench", "--corpus", corpus_zip, "--pairs", 120, "--epochs", 2, "--one-by-one", 3)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)  # stdout holds the report alone
    assert report["training"]["epochs"] == 2 and report["training"]["tokens_per_s"] > 0
    assert report["train_seq2seq"]["model"]["hidden_size"] == 32  # d2l's seed configuration
    for search in ("greedy", "beam"):
        speed = report["decoding"][search]
        assert speed["sentences"] == 6 and speed["batched_sentences_per_s"] > 0
        assert speed["batching_speedup"] == pytest.approx(
            speed["batched_sentences_per_s"] / speed["one_by_one_sentences_per_s"], rel=0.05)
