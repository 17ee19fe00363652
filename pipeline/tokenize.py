"""Stage `tokenize`: corpus zip -> normalised train/valid/test parquet files and a report."""

import argparse

from attention_lab.atomic import write_json
from attention_lab.config import load_section
from attention_lab.corpus import CorpusParams, TokenizeParams, save_splits, tokenize_corpus
from attention_lab.errors import run_main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--corpus", required=True, help="the fra-eng.zip archive")
    parser.add_argument("--out", required=True, help="folder for {train,valid,test}.parquet")
    parser.add_argument("--report", required=True, help="JSON report")
    args = parser.parse_args()
    corpus = load_section(args.params, "corpus", CorpusParams)
    params = load_section(args.params, "tokenize", TokenizeParams)
    splits, report = tokenize_corpus(args.corpus, corpus, params)
    save_splits(args.out, splits, params)
    write_json(args.report, report)


if __name__ == "__main__":
    run_main(main)
