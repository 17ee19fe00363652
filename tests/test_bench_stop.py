"""`attention-lab bench` as its own process: SIGTERM while it trains stops it with one line of its own and
exit 143, leaving no temporary folder behind; `--quick` refuses `--reference` in one line."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SCRIPT = Path(sys.executable).parent / "attention-lab"


def tiny_params(folder: Path) -> Path:
    params = folder / "params.yaml"
    params.write_text(json.dumps({
        "train_tokenizer": {"kind": "subword", "subword": {"size": 450, "model": "bpe"}},
        "train_seq2seq": {"data": {"batch_tokens": 256}, "model": {"embed_size": 8, "hidden_size": 16}}}))
    return params


def test_sigterm_while_training_is_one_line_and_exit_143(corpus_zip, tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    job = subprocess.Popen([str(SCRIPT), "bench", "--corpus", str(corpus_zip), "--params",
                            str(tiny_params(tmp_path)), "--epochs", "1000", "--splits", str(tmp_path / "absent"),
                            "--budget-s", "3600"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "TMPDIR": str(scratch)})
    # 1,000 epochs of the seed model, in a budget of an hour: still training when the signal comes. Its data is in
    # the bench's temporary folder once it trains.
    deadline = time.monotonic() + 240
    while not any(scratch.glob("attention-lab-bench-*/seed/*")) and job.poll() is None:
        assert time.monotonic() < deadline, "the bench never started training"
        time.sleep(0.2)
    time.sleep(1.0)
    job.send_signal(signal.SIGTERM)
    out, err = job.communicate(timeout=120)
    assert job.returncode == 143, err[-2000:]
    assert out == ""  # no partial report
    assert err.startswith("error: bench stopped by SIGTERM after ") and err.endswith("; no report\n")
    assert err.count("\n") == 1, err
    assert not any(scratch.glob("attention-lab-bench-*"))  # its temporary folder went with it


def test_quick_with_reference_is_a_one_line_error(tmp_path):
    job = subprocess.run([str(SCRIPT), "bench", "--quick", "--reference"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
    assert job.returncode == 2 and job.stdout == ""
    assert job.stderr == "error: --quick and --reference: the reference run is the long one; choose one\n"
