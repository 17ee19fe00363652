"""Where a training step's time goes, float32 against bf16 autocast on the CPU (docs/speed.md: bf16 on the CPU).

    OMP_NUM_THREADS=1 python docs/scripts/step_profile.py --splits SPLITS --tokenizer TOKENIZER [--arch rnn]
        [--batches 60] [--rounds 3] [--set model.transformer.layers=2 ...]

Trains params.yaml's train_seq2seq model (the given architecture) on the stage's own batches of a 20,000-pair
sample of the splits: forward, the token loss, backward and an AdamW step, the same batches in both precisions.
The two precisions alternate round by round, so that a machine shared with other work slows both alike. Prints a
Markdown table of self CPU time per operator group (milliseconds per batch, the median round) in each precision,
and the ratio; then each precision's whole step. `--set` takes train_seq2seq overrides, as the bench does.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

from attention_lab.bench.pairs import epoch_batches, sample_splits
from attention_lab.bench.report import with_overrides
from attention_lab.config import read_params
from attention_lab.model.loss import token_loss
from attention_lab.model.seq2seq import build_model

# Operator name -> group; the first pattern contained in the name wins. Products first: `addmm` holds `mm`.
GROUPS = (("products (mm, addmm, bmm, linear)", ("mm", "linear", "matmul", "bmm", "baddbmm")),
          ("attention kernels", ("attention", "softmax")),
          ("casts (to, copy_, _to_copy)", ("copy_", "_to_copy", "to", "clone")),
          ("gates and activations", ("sigmoid", "tanh", "gelu", "relu", "mul", "add", "sub", "div", "rsub")),
          ("loss", ("nll", "log_softmax", "cross_entropy")),
          ("optimizer", ("adam", "_foreach", "lerp", "sqrt", "addcdiv", "addcmul")),
          ("layout (cat, stack, index, view)", ("cat", "stack", "index", "select", "slice", "view", "transpose",
                                                 "reshape", "permute", "expand", "embedding", "unsqueeze",
                                                 "squeeze", "contiguous", "narrow", "split", "gather",
                                                 "scatter", "masked", "where", "fill", "zero", "empty", "t")),)


def group_of(name: str) -> str:
    bare = name.removeprefix("aten::").lower()
    for group, patterns in GROUPS:
        if any(bare == p or bare.startswith(p) or p in bare.split("_") for p in patterns):
            return group
    return "other"


def one_round(model, optimizer, batches: list[dict], bf16: bool, smoothing: float) -> tuple[dict, float, int]:
    """Self CPU milliseconds per group over `batches`, the wall-clock seconds, and the number of operator calls."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        start = time.perf_counter()
        for batch in batches:
            with torch.autocast("cpu", torch.bfloat16, enabled=bf16):
                logits = model(batch["src"], batch["src_len"], batch["tgt_in"])  # (B, T, V)
                loss = token_loss(logits, batch["tgt_out"], smoothing)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        seconds = time.perf_counter() - start
    groups, calls = defaultdict(float), 0
    for event in prof.key_averages():
        groups[group_of(event.key)] += event.self_cpu_time_total / 1e3
        calls += event.count
    return groups, seconds, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=Path, required=True)
    parser.add_argument("--tokenizer", type=Path, required=True)
    parser.add_argument("--arch", choices=("rnn", "transformer"), default="rnn")
    parser.add_argument("--batches", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args()
    section = read_params(Path("params.yaml"))["train_seq2seq"]
    params = with_overrides(section, (f"model.arch={args.arch}", *args.set), 1)
    with tempfile.TemporaryDirectory() as root:
        data, [batches] = epoch_batches(sample_splits(args.splits, args.tokenizer, Path(root), 20_000), params, 1)
    batches, tokens = batches[:args.batches], sum(b["n_tokens"] for b in batches[:args.batches])
    results = {}
    torch.manual_seed(params.seed)
    models = {bf16: build_model(params.model, len(data.tokenizer.src), len(data.tokenizer.tgt)).train()
              for bf16 in (False, True)}
    optimizers = {bf16: torch.optim.AdamW(m.parameters(), lr=params.optim.lr) for bf16, m in models.items()}
    for bf16 in (False, True):  # a warm-up round each: oneDNN's first calls pick and pack kernels
        one_round(models[bf16], optimizers[bf16], batches[:5], bf16, params.optim.label_smoothing)
    for _ in range(args.rounds):
        for bf16 in (False, True):
            results.setdefault(bf16, []).append(one_round(models[bf16], optimizers[bf16], batches, bf16,
                                                          params.optim.label_smoothing))
    n = len(batches)
    median = {bf16: sorted(rounds, key=lambda r: r[1])[len(rounds) // 2] for bf16, rounds in results.items()}
    names = sorted({g for groups, _, _ in median.values() for g in groups}, key=lambda g: -median[False][0][g])
    print(f"{args.arch}, {n} batches, {tokens} target tokens, {torch.get_num_threads()} thread(s), "
          f"median of {args.rounds} rounds\n")
    print("| operator group | float32 ms/batch | bf16 ms/batch | float32 / bf16 |")
    print("| --- | ---: | ---: | ---: |")
    for name in names:
        fp32, bf16 = median[False][0][name] / n, median[True][0][name] / n
        print(f"| {name} | {fp32:.2f} | {bf16:.2f} | {fp32 / bf16 if bf16 else float('inf'):.2f}× |")
    fp32_s, bf16_s = median[False][1], median[True][1]
    print(f"| **whole step (wall clock, profiled)** | {1e3 * fp32_s / n:.2f} | {1e3 * bf16_s / n:.2f} | "
          f"**{fp32_s / bf16_s:.2f}×** |")
    print(f"\noperator calls per batch: float32 {median[False][2] / n:.0f}, bf16 {median[True][2] / n:.0f}; "
          f"target tokens/s: float32 {tokens / fp32_s:.0f}, bf16 {tokens / bf16_s:.0f}; spread of the step over "
          f"rounds: float32 {statistics.pstdev(r[1] for r in results[False]) / fp32_s:.1%}, "
          f"bf16 {statistics.pstdev(r[1] for r in results[True]) / bf16_s:.1%}")


if __name__ == "__main__":
    main()
