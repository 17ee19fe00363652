"""Stage `heatmaps`: trained model -> attention heatmap PNGs (one per sentence, plus a grid) and the
attention explorer page (`explorer.html`: those sentences and, in each source-length bucket, the test
split's worst and best translations, every layer and head).

MLflow: the files join the training run and a child run of it (`tracking.run.child_run`).
"""

import itertools
import json
from pathlib import Path

import pandas as pd

from attention_lab.atomic import atomic_dir, write_text
from attention_lab.config import flatten, load_section, to_dict
from attention_lab.errors import UserError, run_main
from attention_lab.evaluation.explorer import Entry, explored, identity, page, scored_sample
from attention_lab.evaluation.heatmaps import HeatmapParams, attention_figures
from attention_lab.inference.translator import Translator
from attention_lab.plotting import save_figure
from attention_lab.stage import stage_args
from attention_lab.tracking import run as tracking_run
from attention_lab.tracking import store as tracking
from attention_lab.tracking.run_file import read_run_file

EXPLORER = "explorer.html"


def read_evaluation(folder: Path) -> tuple[pd.DataFrame, dict]:
    """`evaluate`'s translations.tsv and metrics.json, checked before any work: a one-line error names the
    file and what is wrong."""
    path = folder / "translations.tsv"
    try:
        translations = pd.read_csv(path, sep="\t", keep_default_na=False, dtype=str).fillna("")
        missing = sorted({"source", "hypothesis", "references"} - set(translations.columns))
        if missing:
            raise UserError(f"{path}: no column {missing[0]!r} (run `dvc repro evaluate`)")
        path = folder / "metrics.json"
        metrics = json.loads(path.read_text(encoding="utf-8"))
        for search, score in itertools.product(("beam", "greedy"), ("bleu", "chrf")):
            if not isinstance(metrics.get(search, {}).get(score), (int, float)):
                raise UserError(f"{path}: no number at {search}.{score} (run `dvc repro evaluate`)")
    except FileNotFoundError:
        raise UserError(f"{path}: not found (run `dvc repro evaluate` first)") from None
    except (OSError, ValueError, AttributeError, pd.errors.ParserError) as exc:
        raise UserError(f"{path}: unreadable ({type(exc).__name__}: {str(exc)[:160]})") from None
    return translations, metrics


def main() -> None:
    args = stage_args(__doc__, model="folder of model.pt and mlflow_run.json",
                      evaluation="folder of the evaluate stage's translations.tsv and metrics.json",
                      out="folder for the PNGs and the explorer page")
    params = load_section(args.params, "heatmaps", HeatmapParams)
    mlflow = load_section(args.params, "mlflow", tracking.MlflowParams)
    translations, metrics = read_evaluation(args.evaluation)
    training = tracking_run.Run.resume(mlflow, read_run_file(args.model))
    with tracking_run.child_run(training, "heatmaps", flatten({"heatmaps": to_dict(params)})) as heatmaps:
        translator = Translator.load(args.model)
        figures, grid = attention_figures(translator, params.sentences, params.search)
        figures["grid.png"] = grid
        entries = [Entry(s, "your sentences (params heatmaps.sentences)") for s in params.sentences]
        entries += scored_sample(translations, params.test_sample, params.length_buckets)
        about = identity(translator, params.search, training.run_id,
                         training.tag("git_commit") or tracking.git_commit(), metrics)
        explorer = page("Attention explorer", about, translator, explored(translator, entries, params.search))
        # The whole folder at once: no PNG of a sentence that left the params, none half-written.
        with atomic_dir(args.out) as folder:
            for name, figure in figures.items():
                save_figure(figure, folder / name)
            write_text(folder / EXPLORER, explorer)
        for run in (training, heatmaps):
            for name in [*figures, EXPLORER]:
                run.log_artifact(args.out / name, "heatmaps")


if __name__ == "__main__":
    run_main(main)
