"""`attention-lab bench`: its arguments, and the run they ask for (`report.run_benchmark`).
Measuring imports the training stack; building the parser does not."""

from __future__ import annotations

import argparse
import json
import os
import signal
import time
from pathlib import Path

from attention_lab.arguments import key_value, positive_int
from attention_lab.errors import Terminated, UserError

# `--quick`: every model still trains two epochs (the first warms up and is not timed) and decodes both ways.
QUICK = {"pairs": 300, "epochs": 4, "default_pairs": 2000, "decode_sentences": 40, "one_by_one": 10, "budget_s": 110}
BUDGET_S = 540  # the whole run's seconds by default: 9 minutes, under 10 with start-up and imports, on 2 cores


def add_parser(commands: argparse._SubParsersAction) -> None:
    b = commands.add_parser("bench",
                            help="measure training, decoding and start-up speed as same-run ratios, print JSON")
    b.add_argument("--corpus", default="data/fra-eng.zip", help="corpus zip (default: %(default)s)")
    b.add_argument("--pairs", type=positive_int, default=600,
                   help="seed configuration: first N corpus pairs (default: %(default)s, as d2l)")
    b.add_argument("--epochs", type=positive_int, default=100, help="seed configuration epochs (default: %(default)s)")
    b.add_argument("--reference", action="store_true",
                   help="also train the seed model the textbook's way on the same batches, and report the ratio")
    b.add_argument("--params", default="params.yaml",
                   help="the default model's train_seq2seq and train_tokenizer sections (default: %(default)s)")
    b.add_argument("--set", action="append", default=[], type=key_value, metavar="KEY=VALUE",
                   help="override a default-model train_seq2seq param, e.g. --set model.hidden_size=512")
    b.add_argument("--set-transformer", action="append", default=[], type=key_value, metavar="KEY=VALUE",
                   help="override a train_seq2seq param of the Transformer run (the default model with "
                        "model.arch=transformer, on the same batches), "
                        "e.g. --set-transformer model.transformer.layers=2")
    b.add_argument("--gpu-recipe", action=argparse.BooleanOptionalAction, default=None,
                   help="also train the GPU recipe (README: Scaling out) on the same pairs (default: on CUDA only)")
    b.add_argument("--set-gpu-recipe", action="append", default=[], type=key_value, metavar="KEY=VALUE",
                   help="override a train_seq2seq param of the GPU recipe's run, after the recipe's own")
    b.add_argument("--splits", default="artifacts/splits",
                   help="the pipeline's splits to sample the default model's pairs from, with --tokenizer; "
                        "when absent, the corpus's first lines (default: %(default)s)")
    b.add_argument("--tokenizer", default="artifacts/tokenizer", help="the pipeline's tokenizer (default: %(default)s)")
    b.add_argument("--default-pairs", type=positive_int, default=20000,
                   help="default model: training pairs (default: %(default)s)")
    b.add_argument("--default-epochs", type=positive_int, default=2, help="default model epochs (default: %(default)s)")
    b.add_argument("--model", default=None, help="decode with this model instead of the benchmark's")
    b.add_argument("--data", default=None, help="with --model: the split stage's folder whose test split is decoded")
    b.add_argument("--beam", type=positive_int, default=8, help="beam size (default: %(default)s)")
    b.add_argument("--decode-sentences", type=positive_int, default=500,
                   help="test sources decoded (default: %(default)s)")
    b.add_argument("--one-by-one", type=positive_int, default=100,
                   help="sentences decoded one at a time for the batching speed-up (default: %(default)s)")
    b.add_argument("--budget-s", type=positive_int, default=BUDGET_S, metavar="SECONDS",
                   help="the run's seconds, shared among its phases by their usual lengths: a phase that runs out "
                        "of its share ends its training or its repeats early, and the report says so "
                        "(default: %(default)s)")
    b.add_argument("--quick", action="store_true",
                   help="a first look in about a minute: fewer pairs, epochs and sentences (%s)"
                        % ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in QUICK.items()))
    b.add_argument("--verbose", action="store_true", help="also what Lightning and MLflow print while it trains")
    b.set_defaults(func=run)


def run(args: argparse.Namespace) -> None:
    from attention_lab.bench.report import BenchOptions, run_benchmark
    from attention_lab.stage import VERBOSE

    if args.verbose:
        os.environ[VERBOSE] = "1"
    if args.quick:
        if args.reference:
            raise UserError("--quick and --reference: the reference run is the long one; choose one")
        vars(args).update(QUICK)
    start = time.perf_counter()

    def stop(signum: int, frame: object) -> None:
        # Raised wherever the bench is: in training too, where Lightning calls it after its own handler.
        raise Terminated(f"bench stopped by SIGTERM after {time.perf_counter() - start:.0f} s; no report")

    signal.signal(signal.SIGTERM, stop)

    pipeline = Path(args.splits).is_dir() and Path(args.tokenizer).is_dir()
    report = run_benchmark(BenchOptions(
        corpus=args.corpus, pairs=args.pairs, epochs=args.epochs, params=args.params, overrides=tuple(args.set),
        transformer_overrides=tuple(args.set_transformer), gpu_recipe=args.gpu_recipe,
        recipe_overrides=tuple(args.set_gpu_recipe), default_pairs=args.default_pairs,
        default_epochs=args.default_epochs, reference=args.reference,
        splits=args.splits if pipeline else None, tokenizer=args.tokenizer if pipeline else None, model=args.model,
        data=args.data, beam_size=args.beam, decode_sentences=args.decode_sentences, one_by_one=args.one_by_one,
        budget_s=args.budget_s))
    print(json.dumps(report, indent=2))
