"""Stage `evaluate`: trained model + test split -> BLEU/chrF report, translations, BLEU by length.

MLflow: the test metrics, the translations (as a table) and the report files join the training run,
and are also kept in a child run of it named after the DVC experiment (`tracking.run.child_run`); there
the metrics are linked to the logged model and to the test split, so the UI's model page lists them.
The report's settings and counts (beam sizes, sources) are tags, not metric charts. The keys are
`test.beam.bleu`, not `test/...`: MLflow's run page groups charts by the part before a '/', sections
in alphabetical order, and puts keys without one last, so the learning curves (`train/*`, `val/*`)
come first and the single-value test scores after them.
"""

from attention_lab.atomic import atomic_path, write_json
from attention_lab.config import flatten, load_section, to_dict
from attention_lab.data.splits import load_split
from attention_lab.errors import run_main
from attention_lab.evaluation.report import EvaluateParams, score_test_split
from attention_lab.inference.translator import Translator
from attention_lab.stage import stage_args
from attention_lab.tracking import run as tracking_run
from attention_lab.tracking import store as tracking
from attention_lab.tracking.run_file import read_run_file

SETTINGS = ("sources", "references", "beam_size")  # what the report counts or was asked for: no metric


def main() -> None:
    args = stage_args(__doc__, model="folder of model.pt and mlflow_run.json",
                      data="folder of the split stage's splits", out="folder for the reports")
    params = load_section(args.params, "evaluate", EvaluateParams)
    mlflow = load_section(args.params, "mlflow", tracking.MlflowParams)
    training = tracking_run.Run.resume(mlflow, read_run_file(args.model))
    with tracking_run.child_run(training, "evaluate", flatten({"evaluate": to_dict(params)})) as evaluation:
        test = load_split(args.data, "test")
        translator = Translator.load(args.model, precision=params.precision)
        metrics, translations, by_length = score_test_split(translator, test, params)
        with atomic_path(args.out / "translations.tsv") as tmp:
            translations.to_csv(tmp, sep="\t", index=False)
        with atomic_path(args.out / "bleu_by_length.csv") as tmp:
            by_length.to_csv(tmp, index=False)
        write_json(args.out / "metrics.json", metrics)
        numbers = {f"test.{k}": v for k, v in flatten(metrics).items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)}
        settings = {k: v for k, v in numbers.items() if k.endswith(SETTINGS)}
        scores = {k: v for k, v in numbers.items() if k not in settings}
        test_set = evaluation.log_dataset(test, "test", args.data / "test.parquet", "testing")
        evaluation.log_metrics(scores, model_id=training.logged_model_id(), dataset=test_set)
        training.log_metrics(scores)
        for run in (training, evaluation):
            for key, value in {**settings, "test.decoding": metrics["decoding"]}.items():
                run.set_tag(key, str(value))
            run.log_table(translations, "evaluate/translations.json")
            for name in ("metrics.json", "translations.tsv", "bleu_by_length.csv"):
                run.log_artifact(args.out / name, "evaluate")


if __name__ == "__main__":
    run_main(main)
