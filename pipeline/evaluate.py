"""Stage `evaluate`: trained model + test split -> BLEU/chrF report, translations, BLEU by length."""

from attention_lab import tracking
from attention_lab.atomic import atomic_path, write_json
from attention_lab.config import flatten, load_section
from attention_lab.corpus import load_split
from attention_lab.errors import run_main
from attention_lab.evaluate import EvaluateParams, evaluate
from attention_lab.stage import stage_args
from attention_lab.translator import Translator


def main() -> None:
    args = stage_args(__doc__, model="folder of model.pt and mlflow_run.json", data="folder of the tokenized splits",
                      out="folder for the reports")
    params = load_section(args.params, "evaluate", EvaluateParams)
    mlflow = load_section(args.params, "mlflow", tracking.MlflowParams)
    run = tracking.Run.resume(mlflow, tracking.recorded_run_id(args.model))
    metrics, translations, by_length = evaluate(Translator.load(args.model), load_split(args.data, "test"), params)
    with atomic_path(args.out / "translations.tsv") as tmp:
        translations.to_csv(tmp, sep="\t", index=False)
    with atomic_path(args.out / "bleu_by_length.csv") as tmp:
        by_length.to_csv(tmp, index=False)
    write_json(args.out / "metrics.json", metrics)
    run.log_metrics({f"test/{k}": v for k, v in flatten(metrics).items() if isinstance(v, (int, float))})
    for name in ("metrics.json", "translations.tsv", "bleu_by_length.csv"):
        run.log_artifact(args.out / name, "evaluate")


if __name__ == "__main__":
    run_main(main)
