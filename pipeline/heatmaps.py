"""Stage `heatmaps`: trained model -> attention heatmap PNGs (one per sentence, plus a grid).

MLflow: the PNGs join the training run and a child run of it (`tracking.run.child_run`).
"""

from attention_lab.atomic import atomic_dir
from attention_lab.config import flatten, load_section, to_dict
from attention_lab.errors import run_main
from attention_lab.evaluation.heatmaps import HeatmapParams, attention_figures
from attention_lab.inference.translator import Translator
from attention_lab.plotting import save_figure
from attention_lab.stage import stage_args
from attention_lab.tracking import run as tracking_run
from attention_lab.tracking import store as tracking
from attention_lab.tracking.run_file import read_run_file


def main() -> None:
    args = stage_args(__doc__, model="folder of model.pt and mlflow_run.json", out="folder for the PNGs")
    params = load_section(args.params, "heatmaps", HeatmapParams)
    mlflow = load_section(args.params, "mlflow", tracking.MlflowParams)
    training = tracking_run.Run.resume(mlflow, read_run_file(args.model))
    with tracking_run.child_run(training, "heatmaps", flatten({"heatmaps": to_dict(params)})) as heatmaps:
        figures, grid = attention_figures(Translator.load(args.model), params.sentences, params.search)
        figures["grid.png"] = grid
        # The whole folder at once: no PNG of a sentence that left the params, none half-written.
        with atomic_dir(args.out) as folder:
            for name, figure in figures.items():
                save_figure(figure, folder / name)
        for run in (training, heatmaps):
            for name in figures:
                run.log_artifact(args.out / name, "heatmaps")


if __name__ == "__main__":
    run_main(main)
