"""float32 against bf16 autocast on the CPU, through the real stages (docs/speed.md: bf16 on the CPU).

    python docs/scripts/precision_runs.py run NAME --arch rnn --precision bf16-mixed --threads 1 --updates 1500
    python docs/scripts/precision_runs.py run NAME --arch transformer --precision 32-true --threads 1 --minutes 21 \
        --set model.transformer.layers=2 --set model.transformer.model_size=160 ...
    python docs/scripts/precision_runs.py table ROOT

`run` trains (`pipeline.train_seq2seq`) on the pipeline's splits and tokenizer with params.yaml's train_seq2seq
section and the given architecture, precision, threads and budget (`--updates`: exactly that many, 4 validations;
`--minutes`: the clock, as `make repro`), MLflow off, into ROOT/NAME; with `--minutes` it also scores the test
split (`pipeline.evaluate`, beam and greedy, without the input-check variants). `table` prints a Markdown table
of every run under ROOT: updates, target tokens/s, validation loss and greedy BLEU at the best validation, and
test BLEU where scored. Run side by side (one core each) to compare at equal minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def run(args: argparse.Namespace) -> None:
    folder = args.root / args.name
    folder.mkdir(parents=True, exist_ok=True)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    train = params["train_seq2seq"]
    train["model"]["arch"] = args.arch
    trainer = train["trainer"]
    trainer.update(precision=args.precision, budget_updates=args.updates, budget_minutes=args.minutes,
                   progress_bar=False, **({"validations": 4} if args.updates else {}))
    for item in args.set:  # `model.transformer.layers=2`, `trainer.strategy=ddp`
        key, value = item.split("=", 1)
        *parents, leaf = key.split(".")
        node = train
        for name in parents:
            node = node[name]
        node[leaf] = yaml.safe_load(value)
    params["mlflow"]["enabled"] = False
    params["evaluate"]["input_checks"] = False
    (folder / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads), "PYTHONPATH": str(REPO / "src")}
    common = ["--params", str(folder / "params.yaml")]
    subprocess.run([sys.executable, "-m", "pipeline.train_seq2seq", *common, "--data", str(args.splits),
                    "--tokenizer", str(args.tokenizer), "--out", str(folder / "model"), "--reports",
                    str(folder / "train")], cwd=REPO, env=env, check=True)
    if args.minutes:
        subprocess.run([sys.executable, "-m", "pipeline.evaluate", *common, "--model", str(folder / "model"),
                        "--data", str(args.splits), "--out", str(folder / "evaluate")], cwd=REPO, env=env, check=True)


def table(args: argparse.Namespace) -> None:
    print("| run | updates | target tokens/s | val loss | val BLEU (greedy) | test BLEU (beam) | test BLEU (greedy) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for folder in sorted(p for p in args.root.iterdir() if (p / "train" / "metrics.json").exists()):
        m = json.loads((folder / "train" / "metrics.json").read_text())
        test = folder / "evaluate" / "metrics.json"
        t = json.loads(test.read_text()) if test.exists() else None
        beam, greedy = (f"{t['beam']['bleu']:.1f}", f"{t['greedy']['bleu']:.1f}") if t else ("", "")
        print(f"| {folder.name} | {m['updates']:,} | {m['tokens_per_s']:,.0f} | {m['val_loss']:.4f} "
              f"| {m['val_bleu']:.1f} | {beam} | {greedy} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(required=True)
    r = commands.add_parser("run")
    r.add_argument("name")
    r.add_argument("--root", type=Path, default=Path("runs/precision"))
    r.add_argument("--arch", choices=("rnn", "transformer"), required=True)
    r.add_argument("--precision", choices=("32-true", "bf16-mixed"), required=True)
    r.add_argument("--threads", type=int, required=True)
    budget = r.add_mutually_exclusive_group(required=True)
    budget.add_argument("--updates", type=int)
    budget.add_argument("--minutes", type=float)
    r.add_argument("--set", action="append", default=[], help="a train_seq2seq setting, KEY=VALUE (dotted key)")
    r.add_argument("--splits", type=Path, default=REPO / "artifacts/splits")
    r.add_argument("--tokenizer", type=Path, default=REPO / "artifacts/tokenizer")
    r.set_defaults(func=run)
    t = commands.add_parser("table")
    t.add_argument("root", type=Path, nargs="?", default=Path("runs/precision"))
    t.set_defaults(func=table)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
