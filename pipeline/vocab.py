"""Stage `vocab`: train split -> source/target vocabularies and their OOV report."""

import argparse
from pathlib import Path

from attention_lab.atomic import write_json
from attention_lab.config import load_section
from attention_lab.corpus import SPLITS, load_split
from attention_lab.errors import run_main
from attention_lab.vocab import VocabParams, build_vocabularies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--data", required=True, help="folder of the tokenized splits")
    parser.add_argument("--out", required=True, help="folder for src.json and tgt.json")
    parser.add_argument("--report", required=True, help="JSON report")
    args = parser.parse_args()
    params = load_section(args.params, "vocab", VocabParams)
    splits = {name: load_split(args.data, name) for name in SPLITS}
    src, tgt, report = build_vocabularies(splits, params)
    src.save(Path(args.out) / "src.json")
    tgt.save(Path(args.out) / "tgt.json")
    write_json(args.report, report)


if __name__ == "__main__":
    run_main(main)
