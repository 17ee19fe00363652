"""Stage `split`: corpus zip -> cleaned train/valid/test parquet files and a report."""

import sys

from attention_lab.atomic import write_json
from attention_lab.config import load_section
from attention_lab.data.splits import (
    CorpusParams,
    SplitParams,
    save_splits,
    skipped_lines,
    split_corpus,
)
from attention_lab.errors import run_main
from attention_lab.stage import stage_args


def main() -> None:
    args = stage_args(__doc__, corpus="the fra-eng.zip archive", out="folder for {train,valid,test}.parquet",
                      report="JSON report")
    corpus = load_section(args.params, "corpus", CorpusParams)
    params = load_section(args.params, "split", SplitParams)
    splits, report = split_corpus(args.corpus, corpus, params)
    for line in skipped_lines(report):
        print(f"note: {args.corpus}: {line}", file=sys.stderr)
    save_splits(args.out, splits, params)
    write_json(args.report, report)


if __name__ == "__main__":
    run_main(main)
