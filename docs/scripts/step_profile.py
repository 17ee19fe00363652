"""Where a training step's time goes, float32 against bf16 autocast on the CPU (docs/speed.md: bf16 on the CPU).

    OMP_NUM_THREADS=1 python docs/scripts/step_profile.py --splits SPLITS --tokenizer TOKENIZER [--arch rnn]
        [--batches 60] [--rounds 3] [--rows N] [--set model.transformer.layers=2 ...]

Trains params.yaml's train_seq2seq model (the given architecture) on the stage's own batches of a 20,000-pair
sample of the splits, with the stage's allocator: forward, the token loss, backward and a fused AdamW step. Each
round trains both precisions on `--batches` batches neither has seen, profiled, then on as many more without the
profiler (its cost per operator call is not the step's); the precisions alternate, so that a machine shared with
other work slows both alike. Prints a Markdown table of self CPU time per operator group (milliseconds per batch,
the median over rounds) in each precision, and the ratio; then each precision's whole step, profiled and not.
`--rows N` keeps each batch's first N rows, its lengths and so its number of operator calls unchanged: with one row
the arithmetic is next to nothing, and the step that is left is the floor that no precision shortens. `--set` takes
train_seq2seq overrides, as the bench does.
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
from attention_lab.data.special_tokens import PAD_ID
from attention_lab.model.loss import token_loss
from attention_lab.model.seq2seq import build_model
from attention_lab.training.allocator import keep_freed_memory

# Operator name (leading underscores dropped) -> group: the first group with a pattern that is the name, starts it or
# is one of its `_`-separated words. The vocabulary's log-softmax is the loss's, before attention's softmax.
GROUPS = (("products (mm, addmm, bmm)", ("mm", "addmm", "addmv", "addbmm", "baddbmm", "bmm", "mv", "linear", "matmul")),
          ("loss (log-softmax over the vocabulary, NLL)", ("log_softmax", "nll", "cross_entropy")),
          ("attention's softmax and kernels", ("attention", "softmax")),
          ("casts (to, copy_, _to_copy)", ("copy_", "to_copy", "to", "clone")),
          ("optimizer (fused AdamW)", ("fused_adam", "adam", "foreach", "lerp")),
          ("gates and activations", ("sigmoid", "tanh", "gelu", "relu", "mul", "add", "sub", "div", "rsub")),
          ("layout and fills (cat, stack, index, fill_)", ("cat", "stack", "index", "select", "slice", "view",
                                                           "transpose", "reshape", "permute", "expand", "embedding",
                                                           "unsqueeze", "squeeze", "contiguous", "narrow", "split",
                                                           "gather", "scatter", "masked", "where", "fill", "zero",
                                                           "empty", "t")),)


def group_of(name: str) -> str:
    bare = name.removeprefix("aten::").lower().lstrip("_")
    for group, patterns in GROUPS:
        if any(bare == p or bare.startswith(p) or p in bare.split("_") for p in patterns):
            return group
    return "other (autograd's Python functions, sum, as_strided)"


def train_on(model, optimizer, batches: list[dict], bf16: bool, smoothing: float) -> float:
    """Wall-clock seconds to train on `batches`: forward, the token loss, backward and the optimizer's step."""
    start = time.perf_counter()
    for batch in batches:
        with torch.autocast("cpu", torch.bfloat16, enabled=bf16):
            logits = model(batch["src"], batch["src_len"], batch["tgt_in"])  # (B, T, V)
            loss = token_loss(logits, batch["tgt_out"], smoothing)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return time.perf_counter() - start


def profiled(model, optimizer, batches: list[dict], bf16: bool, smoothing: float) -> tuple[dict, float, int]:
    """Self CPU milliseconds per group over `batches`, the profiled wall-clock seconds, and the operator calls."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        seconds = train_on(model, optimizer, batches, bf16, smoothing)
    groups, calls = defaultdict(float), 0
    for event in prof.key_averages():
        groups[group_of(event.key)] += event.self_cpu_time_total / 1e3
        calls += event.count
    return groups, seconds, calls


def first_rows(batch: dict, rows: int) -> dict:
    """The batch's first `rows` rows at its full widths S and T (the same operator calls), its tokens recounted."""
    kept = {key: value[:rows] for key, value in batch.items() if key != "n_tokens"}
    return {**kept, "n_tokens": int((kept["tgt_out"] != PAD_ID).sum())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=Path, required=True)
    parser.add_argument("--tokenizer", type=Path, required=True)
    parser.add_argument("--arch", choices=("rnn", "transformer"), default="rnn")
    parser.add_argument("--batches", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=None, help="keep each batch's first ROWS rows")
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args()
    section = read_params(Path("params.yaml"))["train_seq2seq"]
    params = with_overrides(section, (f"model.arch={args.arch}", *args.set), 1)
    with tempfile.TemporaryDirectory() as root:
        data, [batches] = epoch_batches(sample_splits(args.splits, args.tokenizer, Path(root), 20_000), params, 1)
    # Each round trains on batches it has not seen, as the stage does: a profiled stretch, then a plain one.
    batches = [first_rows(b, args.rows) if args.rows else b for b in batches]
    stretches = [batches[k:k + args.batches] for k in range(5, len(batches) - args.batches + 1, args.batches)]
    if len(stretches) < 2 * args.rounds:
        raise SystemExit(f"--batches {args.batches} --rounds {args.rounds}: needs {5 + 2 * args.batches * args.rounds} "
                         f"batches (two stretches a round), the sample has {len(batches)}")
    torch.manual_seed(params.seed)
    models = {bf16: build_model(params.model, len(data.tokenizer.src), len(data.tokenizer.tgt)).train()
              for bf16 in (False, True)}
    # As the stage trains: glibc keeps freed memory (each step's large activations would come from fresh pages),
    # and the fused AdamW.
    keep_freed_memory()
    optimizers = {bf16: torch.optim.AdamW(m.parameters(), lr=params.optim.lr, fused=True) for bf16, m in models.items()}
    smoothing, results = params.optim.label_smoothing, {False: [], True: []}
    for bf16 in (False, True):  # a warm-up each: oneDNN's first calls pick and pack kernels
        train_on(models[bf16], optimizers[bf16], batches[:5], bf16, smoothing)
    for r in range(args.rounds):
        for bf16 in (False, True):
            groups, seconds, calls = profiled(models[bf16], optimizers[bf16], stretches[2 * r], bf16, smoothing)
            plain = train_on(models[bf16], optimizers[bf16], stretches[2 * r + 1], bf16, smoothing)
            n = args.batches
            results[bf16].append(({g: ms / n for g, ms in groups.items()}, 1e3 * seconds / n, calls / n,
                                  1e3 * plain / n, sum(b["n_tokens"] for b in stretches[2 * r + 1]) / plain))
    median = {bf16: [statistics.median(r[k] for r in rounds) for k in range(1, 5)] for bf16, rounds in results.items()}
    groups = {bf16: {g: statistics.median(r[0].get(g, 0.0) for r in rounds) for g in {g for r in rounds for g in r[0]}}
              for bf16, rounds in results.items()}
    names = sorted(set(groups[False]) | set(groups[True]), key=lambda g: -groups[False].get(g, 0.0))
    rows = f" of {args.rows} row(s)" if args.rows else ""
    print(f"{args.arch}, {args.rounds} rounds of {args.batches} new batches{rows} profiled and {args.batches} plain, "
          f"{torch.get_num_threads()} thread(s), medians\n")
    print("| operator group | float32 ms/batch | bf16 ms/batch | float32 / bf16 |")
    print("| --- | ---: | ---: | ---: |")
    for name in names:
        fp32, bf16 = groups[False].get(name, 0.0), groups[True].get(name, 0.0)
        print(f"| {name} | {fp32:.2f} | {bf16:.2f} | {fp32 / bf16 if bf16 else float('inf'):.2f}× |")
    for k, label in ((0, "profiled"), (2, "not profiled")):
        fp32, bf16 = median[False][k], median[True][k]
        print(f"| **whole step (wall clock, {label})** | {fp32:.2f} | {bf16:.2f} | **{fp32 / bf16:.2f}×** |")
    spread = {bf16: statistics.pstdev(r[3] for r in rounds) / median[bf16][2] for bf16, rounds in results.items()}
    print(f"\noperator calls per batch: float32 {median[False][1]:.0f}, bf16 {median[True][1]:.0f}; target tokens/s, "
          f"not profiled: float32 {median[False][3]:.0f}, bf16 {median[True][3]:.0f}; spread of the plain step over "
          f"rounds: float32 {spread[False]:.1%}, bf16 {spread[True]:.1%}")


if __name__ == "__main__":
    main()
