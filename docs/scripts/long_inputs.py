"""The comparison table of docs/long-inputs.md: each model file's BLEU, overall and by source
length, with the length ratio of each bucket, on one split, through `evaluate`'s own scoring.

    python docs/scripts/long_inputs.py --data artifacts/splits --split valid base=a/model.pt new=b/model.pt \
        [-S length_penalty=1.5 ...]

`-S key=value` sets an `evaluate.search` key for every model; `-S name:key=value` for one model only.
Choose on `--split valid`; score the chosen on `--split test`.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import yaml

from attention_lab.config import from_mapping, to_dict
from attention_lab.data.splits import load_split
from attention_lab.evaluation.report import EvaluateParams, score_test_split
from attention_lab.inference.translator import SearchParams, Translator


def search_for(name: str, settings: list[str]) -> SearchParams:
    chosen = to_dict(SearchParams())
    for setting in settings:
        key, value = setting.split("=", 1)
        owner, _, key = key.rpartition(":")
        if owner in ("", name):
            chosen[key] = yaml.safe_load(value)
    return from_mapping(SearchParams, chosen, "evaluate.search")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="the split stage's folder")
    parser.add_argument("--split", choices=("valid", "test"), required=True)
    parser.add_argument("-S", dest="settings", action="append", default=[], help="[model:]key=value")
    parser.add_argument("models", nargs="+", help="name=path/to/model.pt")
    args = parser.parse_args()
    frame = load_split(args.data, args.split)
    print("| model | search | BLEU beam (greedy) | length ratio | " + " | ".join(
        f"{b} words" for b in ("1-4", "5-6", "7-8", "9-10", "11-13", "14+")) + " |")
    print("| --- " * 10 + "|")
    for spec in args.models:
        name, path = spec.split("=", 1)
        search = search_for(name, args.settings)
        changed = {k: v for k, v in to_dict(search).items() if v != to_dict(SearchParams())[k]}
        metrics, _, by_length = score_test_split(Translator.load(path, "cpu"), frame,
                                                 replace(EvaluateParams(), search=search))
        cells = [f"{r.bleu:.1f} ({r.length_ratio:.2f})" for r in by_length.itertuples()]
        print(f"| {name} | {changed or 'defaults'} | {metrics['beam']['bleu']:.1f} ({metrics['greedy']['bleu']:.1f}) "
              f"| {metrics['beam']['length_ratio']:.3f} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
