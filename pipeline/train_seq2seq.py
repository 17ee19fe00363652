"""Stage `train_seq2seq`: splits + tokenizer -> trained model, history and metrics."""

from attention_lab.config import load_section
from attention_lab.errors import run_main
from attention_lab.stage import stage_args
from attention_lab.tracking.store import MlflowParams
from attention_lab.training.paths import TrainPaths
from attention_lab.training.params import Seq2SeqParams
from attention_lab.training.run import train_seq2seq


def main() -> None:
    args = stage_args(__doc__, data="folder of the split stage's splits", tokenizer="folder of tokenizer.json",
                      out="folder for model.pt and mlflow_run.json (and the resume state, .resume/)",
                      reports="folder for history.csv and metrics.json")
    params = load_section(args.params, "train_seq2seq", Seq2SeqParams)
    mlflow = load_section(args.params, "mlflow", MlflowParams)
    train_seq2seq(params, mlflow, TrainPaths(args.data, args.tokenizer, args.out, args.reports))


if __name__ == "__main__":
    run_main(main)
