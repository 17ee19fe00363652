"""The GPU measurements of docs/speed.md: helpers for running the stages on a lent card without
DVC or MLflow (`PYTHONPATH=src`), driven by docs/gpu_runs.sh.

    python docs/gpu_runs.py params OUT.yaml KEY=VALUE ...       # params.yaml, these keys set, MLflow off
    python docs/gpu_runs.py smoke FOLDER                        # both architectures on the tiny corpus, CUDA
    python docs/gpu_runs.py roofline PARAMS SPLITS TOKENIZER REPORTS   # the stage's run against the peak (bf16 on CUDA)
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import torch
import yaml

from attention_lab.bench.flops import matmul_peak, training_flops_per_token
from attention_lab.bench.report import epoch_batches
from attention_lab.config import from_mapping, load_section
from attention_lab.data.splits import SplitParams
from attention_lab.data.tokenizer import TokenizerParams
from attention_lab.model.seq2seq import build_model
from attention_lab.tracking.store import MlflowParams
from attention_lab.training.params import Seq2SeqParams
from attention_lab.training.paths import TrainPaths, prepare_data
from attention_lab.training.run import train_seq2seq

REPO = Path(__file__).resolve().parent.parent


def params(out: str, *settings: str) -> None:
    """params.yaml with `section.key=value` settings (values read as YAML) and MLflow off."""
    data = yaml.safe_load((REPO / "params.yaml").read_text())
    for setting in ("mlflow.enabled=false", *settings):
        key, _, value = setting.partition("=")
        *parents, leaf = key.split(".")
        node = data
        for name in parents:
            node = node[name]
        node[leaf] = yaml.safe_load(value)
    Path(out).write_text(yaml.safe_dump(data, sort_keys=False))


def smoke(folder: str) -> None:
    """A few updates of each architecture on the tests' tiny corpus, on the card: the step's paths
    (graphs, fused Adam under bf16, loader workers) run before minutes are spent on the real one."""
    sys.path.insert(0, str(REPO / "tests"))
    from conftest import TINY_TRAINING, TINY_TRANSFORMER, TINY_VOCAB
    from corpus_factory import write_zip

    root = Path(folder)
    paths = prepare_data(write_zip(root / "fra-eng.zip"), SplitParams(valid_fraction=0.1, test_fraction=0.1),
                         root, from_mapping(TokenizerParams, TINY_VOCAB, "train_tokenizer"))
    for name, model in (("rnn", TINY_TRAINING["model"]), ("transformer", TINY_TRANSFORMER)):
        config = {**TINY_TRAINING, "model": model,
                  "trainer": {**TINY_TRAINING["trainer"], "accelerator": "auto", "budget_updates": 80,
                              "validations": 2}}
        run_paths = replace(paths, out=root / name / "model", reports=root / name / "reports")
        metrics = train_seq2seq(from_mapping(Seq2SeqParams, config, "train_seq2seq"), MlflowParams(enabled=False),
                                run_paths)
        print(json.dumps({"smoke": name, **{k: metrics[k] for k in ("updates", "val_bleu", "tokens_per_s")}}))


def roofline(params_file: str, splits: str, tokenizer: str, reports: str) -> None:
    """The stage's training rate (its metrics.json) in FLOP/s, against the card's bf16 peak: FLOPs
    per target token counted by PyTorch on the stage's own first batches, under bf16 autocast."""
    config = load_section(params_file, "train_seq2seq", Seq2SeqParams)
    metrics = json.loads((Path(reports) / "metrics.json").read_text())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # the CPU: to try it out
    data, [batches] = epoch_batches(TrainPaths(Path(splits), Path(tokenizer), Path("."), Path(".")), config, 1)
    model = build_model(config.model, len(data.tokenizer.src), len(data.tokenizer.tgt)).to(device).train()
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    with torch.autocast(device.type, dtype, enabled=device.type == "cuda"):
        flops, _ = training_flops_per_token(model, batches[:8], config.optim.label_smoothing)
    peak = matmul_peak(device, dtype, size=8192 if device.type == "cuda" else 1024)
    rate = metrics["tokens_per_s"] * flops
    print(json.dumps({"roofline": reports, "tokens_per_s": metrics["tokens_per_s"], "flops_per_token": round(flops),
                      "tflops": round(rate / 1e12, 1), "peak_tflops": round(peak / 1e3, 1),
                      "fraction_of_peak": round(rate / (peak * 1e9), 4)}))


if __name__ == "__main__":
    {"params": params, "smoke": smoke, "roofline": roofline}[sys.argv[1]](*sys.argv[2:])
