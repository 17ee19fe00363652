"""Stage `train_seq2seq`: tokenized splits + vocabularies -> trained model, history and metrics."""

import argparse
from pathlib import Path

from attention_lab.config import load_section
from attention_lab.errors import run_main
from attention_lab.tracking import MlflowParams
from attention_lab.training import Seq2SeqParams, TrainPaths, train_seq2seq


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--data", required=True, type=Path, help="folder of the tokenized splits")
    parser.add_argument("--vocab", required=True, type=Path, help="folder of src.json and tgt.json")
    parser.add_argument("--out", required=True, type=Path, help="folder for model.pt and checkpoints/")
    parser.add_argument("--reports", required=True, type=Path, help="folder for history.csv and metrics.json")
    args = parser.parse_args()
    params = load_section(args.params, "train_seq2seq", Seq2SeqParams)
    mlflow = load_section(args.params, "mlflow", MlflowParams)
    train_seq2seq(params, mlflow, TrainPaths(args.data, args.vocab, args.out, args.reports))


if __name__ == "__main__":
    run_main(main)
