"""The GPU measurements of docs/speed.md: helpers for running the stages on a lent card without
DVC or MLflow (`PYTHONPATH=src`), driven by docs/scripts/gpu_runs.sh.

    python docs/scripts/gpu_runs.py params OUT.yaml KEY=VALUE ...  # params.yaml, these keys set, MLflow off
    python docs/scripts/gpu_runs.py recipe                         # the GPU recipe's settings, a line each, no budget
    python docs/scripts/gpu_runs.py smoke FOLDER                   # both architectures on the tiny corpus, CUDA
    # the stage's run against the peak (bf16 on CUDA):
    python docs/scripts/gpu_runs.py roofline PARAMS SPLITS TOKENIZER REPORTS
    # the training step alone:
    python docs/scripts/gpu_runs.py step PARAMS SPLITS TOKENIZER BATCHES [compile MINUTES]
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch
import yaml
from torch._dynamo.utils import counters

from attention_lab.bench.flops import matmul_peak, synchronize, training_flops_per_token
from attention_lab.bench.pairs import epoch_batches
from attention_lab.config import from_mapping, load_section
from attention_lab.data.splits import SplitParams
from attention_lab.data.tokenizer import TokenizerParams
from attention_lab.model.fused_attention import allowed_kernels, packed_rows
from attention_lab.model.seq2seq import build_model
from attention_lab.tracking.store import MlflowParams
from attention_lab.training import gpu_recipe
from attention_lab.training.params import Seq2SeqParams
from attention_lab.training.paths import TrainPaths, prepare_data
from attention_lab.training.cuda_graphs import GraphedTraining
from attention_lab.training.run import train_seq2seq
from attention_lab.training.training_pass import training_losses

REPO = Path(__file__).resolve().parents[2]


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


def recipe() -> None:
    print("\n".join(s for s in gpu_recipe.dvc_settings() if not s.startswith("train_seq2seq.trainer.budget_")))


def smoke(folder: str) -> None:
    """A few updates of each architecture on the tests' tiny corpus, on the card: the step's paths
    (graphs, compiling, fused Adam under bf16, loader workers) run before minutes are spent on the real one."""
    sys.path.insert(0, str(REPO / "tests"))
    from conftest import TINY_TRAINING, TINY_TRANSFORMER, TINY_VOCAB
    from corpus_factory import write_zip

    root = Path(folder)
    paths = prepare_data(write_zip(root / "fra-eng.zip"), SplitParams(valid_fraction=0.1, test_fraction=0.1),
                         root, from_mapping(TokenizerParams, TINY_VOCAB, "train_tokenizer"))
    compiled = {"compile": True, "cuda_graphs": False}
    for name, model, trainer in (("rnn", TINY_TRAINING["model"], {}), ("transformer", TINY_TRANSFORMER, {}),
                                 ("transformer-compiled", TINY_TRANSFORMER, compiled)):
        config = {**TINY_TRAINING, "model": model,
                  "trainer": {**TINY_TRAINING["trainer"], "accelerator": "auto", "budget_updates": 80,
                              "validations": 2, **trainer}}
        run_paths = replace(paths, out=root / name / "model", reports=root / name / "reports")
        metrics = train_seq2seq(from_mapping(Seq2SeqParams, config, "train_seq2seq"), MlflowParams(enabled=False),
                                run_paths)
        print(json.dumps({"smoke": name, **{k: metrics[k] for k in ("updates", "val_bleu", "tokens_per_s")}}))


def roofline(params_file: str, splits: str, tokenizer: str, reports: str) -> None:
    """The stage's training rate (its metrics.json) in FLOP/s, against the card's bf16 peak: FLOPs
    per target token counted by PyTorch on the stage's own first batches, under bf16 autocast. The
    peak is timed on 2048² products (the bench's, behind the 654 TFLOP/s of 669813d) and on 8192² ones."""
    config = load_section(params_file, "train_seq2seq", Seq2SeqParams)
    metrics = json.loads((Path(reports) / "metrics.json").read_text())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # the CPU: to try it out
    data, [batches] = epoch_batches(TrainPaths(Path(splits), Path(tokenizer), Path("."), Path(".")), config, 1)
    model = build_model(config.model, len(data.tokenizer.src), len(data.tokenizer.tgt)).to(device).train()
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    with torch.autocast(device.type, dtype, enabled=device.type == "cuda"):
        flops, _ = training_flops_per_token(model, batches[:8], config.optim.label_smoothing)
    rate = metrics["tokens_per_s"] * flops
    result = {"roofline": reports, "tokens_per_s": metrics["tokens_per_s"], "flops_per_token": round(flops),
              "tflops": round(rate / 1e12, 1)}
    for size in (2048, 8192) if device.type == "cuda" else (1024,):
        peak = matmul_peak(device, dtype, size=size)
        result[f"peak_tflops_{size}"] = round(peak / 1e3, 1)
        result[f"fraction_of_peak_{size}"] = round(rate / (peak * 1e9), 4)
    print(json.dumps(result))


def accurate(results: list[dict]) -> list[dict]:
    """The runs whose packed rows are as accurate as one sentence a row (`step`'s `packed_error`)."""
    return [r for r in results if r.get("packed_error", 0) <= 2 * r.get("alone_error", 0) + 1e-3]


def step(params_file: str, splits: str, tokenizer: str, count: str = "40", only: str = "", minutes: str = "8") -> None:
    """The stage's training step (graphed forward and backward, the loss, clipping, fused Adam, bf16
    autocast) alone, on the first COUNT batches of its first epoch, with each attention setting
    (the kernels allowed, the tokens of a packed row): target tokens/s and the fraction of the bf16
    peak; then where an eager step's device time goes (torch.profiler), for PyTorch's choice and the
    fastest, whose settings it prints last for docs/scripts/gpu_runs.sh.
    The graphs follow the params' `trainer.cuda_graphs`. ONLY=compile instead times the eager step
    against the compiled one of `trainer.compile` (training/training_pass.py), one sentence a row and
    128 tokens a row, with the kernels, packing and compiling docs/scripts/gpu_runs.sh's KERNELS, PACKING
    and COMPILE name where set: `warm_s` is the compiling, which a budget pays (the graphs compiled
    are counted: a recompile shows there), and it prints the setting that trains the most tokens
    in MINUTES of budget, for docs/scripts/gpu_runs.sh."""
    config = load_section(params_file, "train_seq2seq", Seq2SeqParams)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # the CPU: to try it out
    on_cuda = device.type == "cuda"
    dtype = torch.bfloat16 if on_cuda else torch.float32
    start = time.perf_counter()
    data, [epoch] = epoch_batches(TrainPaths(Path(splits), Path(tokenizer), Path("."), Path(".")), config, 1)
    batches = [{k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in b.items()}
               for b in epoch[:int(count)]]
    tokens = sum(b["n_tokens"] for b in batches)
    print(json.dumps({"batches": len(batches), "tokens": tokens, "setup_s": round(time.perf_counter() - start, 1)}))
    model = build_model(config.model, len(data.tokenizer.src), len(data.tokenizer.tgt)).to(device).train()
    with torch.autocast(device.type, dtype, enabled=on_cuda):
        flops, _ = training_flops_per_token(model, batches[:4], config.optim.label_smoothing)
    peak = matmul_peak(device, dtype, size=8192 if on_cuda else 1024)

    def run(kernels: tuple[str, ...] | None, graphs: bool, passes: int = 2, profile: bool = False,
            compiled: bool = False, packing: int | None = None) -> dict:
        torch.manual_seed(config.seed)
        model = build_model(config.model, len(data.tokenizer.src), len(data.tokenizer.tgt)).to(device).train()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, fused=True)
        graphed = GraphedTraining(model, config.data.batch_size, config.data.batch_tokens, dtype) if graphs else None
        torch._dynamo.reset()  # each compiled run pays its own compiling, not the cache of the one before
        losses = training_losses(graphed or model, config.optim.label_smoothing, compiled)
        graphs_before = counters["stats"]["unique_graphs"]
        # Packed rows must be as accurate as one sentence a row in the card's kernels and dtypes: each
        # one's largest error on the first batch against float32 one-a-row logits, over the largest logit.
        errors = {}
        if packing:
            batch = batches[0]
            inputs = (batch["src"], batch["src_len"], batch["tgt_in"])
            model.eval()
            with torch.no_grad(), allowed_kernels(kernels):
                exact = model(*inputs)
                with torch.autocast(device.type, dtype, enabled=on_cuda):
                    alone = model(*inputs).float()
                    with packed_rows(packing):
                        packed = model(*inputs).float()
            model.train()
            errors = {name: float(f"{((x - exact).abs().max() / exact.abs().max()).item():.3g}")
                      for name, x in (("alone_error", alone), ("packed_error", packed))}

        def one(batch: dict) -> None:
            with torch.autocast(device.type, dtype, enabled=on_cuda):
                loss, _ = losses(batch["src"], batch["src_len"], batch["tgt_in"], batch["tgt_out"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

        with allowed_kernels(kernels), packed_rows(packing):
            first = time.perf_counter()
            for batch in batches:  # records each bucket's graph
                one(batch)
            synchronize(device)
            warm = time.perf_counter() - first
            first = time.perf_counter()
            for _ in range(passes):
                for batch in batches:
                    one(batch)
            synchronize(device)
            seconds = time.perf_counter() - first
            if profile:
                activities = [torch.profiler.ProfilerActivity.CPU]
                activities += [torch.profiler.ProfilerActivity.CUDA] if on_cuda else []
                with torch.profiler.profile(activities=activities) as prof:
                    profiled = time.perf_counter()
                    for batch in batches[:8]:
                        one(batch)
                    synchronize(device)
                    profiled = time.perf_counter() - profiled
                events = prof.key_averages()
                key = "self_device_time_total" if on_cuda else "self_cpu_time_total"
                print(events.table(sort_by=key, row_limit=25, max_name_column_width=70))
                print(json.dumps({"profiled_s": round(profiled, 3)}))  # beside the table's device time
        rate = passes * tokens / seconds
        graphs_compiled = counters["stats"]["unique_graphs"] - graphs_before
        result = {"kernels": kernels, "packing": packing, "compiled": compiled,
                  "graphs": graphed is not None and not graphed.failed,
                  "compiled_graphs": graphs_compiled, "warm_s": round(warm, 1),
                  **errors,
                  "tokens_per_s": round(rate), "fraction_of_peak": round(rate * flops / (peak * 1e9), 4)}
        print(json.dumps(result), flush=True)
        return result

    print(json.dumps({"flops_per_token": round(flops), "peak_tflops": round(peak / 1e3, 1)}))
    if only == "compile":
        # Each compiled run compiles from nothing, as the stage's first run on a fresh machine does.
        torch._inductor.config.force_disable_caches = True
        preset = {name: yaml.safe_load(os.environ.get(name) or "null") for name in ("KERNELS", "PACKING", "COMPILE")}
        kernels = tuple(preset["KERNELS"]) if preset["KERNELS"] else None
        results = [run(kernels, graphs=False, compiled=compiled, packing=packing)
                   for packing in ([preset["PACKING"]] if preset["PACKING"] else [None, 128])
                   for compiled in ([preset["COMPILE"]] if preset["COMPILE"] is not None else [False, True])]
        # The tokens a run of MINUTES trains: the first pass over the batches is warm-up, compiling included.
        budget = float(minutes) * 60
        best = max(accurate(results),
                   key=lambda r: r["tokens_per_s"] * (budget - r["warm_s"] + tokens / r["tokens_per_s"]))
        print("fastest compile:", str(best["compiled"]).lower(), flush=True)
        print("fastest packing:", best["packing"] or "", flush=True)
        return
    results = []
    # The math kernel and flash-else-math ran slowest at a7c35b6 (docs/speed.md), so they are left out.
    for kernels, packing in ((None, None), (("efficient", "math"), None), (None, 64), (None, 128), (None, 256),
                             (("efficient", "math"), 128), (("cudnn", "math"), 128)):
        try:
            results.append(run(kernels, graphs=on_cuda and config.trainer.cuda_graphs, packing=packing))
        except RuntimeError as exc:
            print(json.dumps({"kernels": kernels, "packing": packing, "error": str(exc).splitlines()[0][:200]}),
                  flush=True)
        if on_cuda:
            torch.cuda.empty_cache()
    best = max(accurate(results), key=lambda r: r["tokens_per_s"])
    for kernels, packing in dict.fromkeys([(None, None), (best["kernels"], best["packing"])]):
        try:
            run(kernels, graphs=False, passes=1, profile=True, packing=packing)
        except Exception as exc:  # the profile only informs: the choice above stands
            print(json.dumps({"profile": kernels, "packing": packing, "error": repr(exc)[:200]}), flush=True)
    print("fastest kernels:", ",".join(best["kernels"] or ()), flush=True)
    print("fastest packing:", best["packing"] or "", flush=True)


if __name__ == "__main__":
    {"params": params, "recipe": recipe, "smoke": smoke, "roofline": roofline, "step": step}[sys.argv[1]](*sys.argv[2:])
