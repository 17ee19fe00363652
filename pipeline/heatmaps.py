"""Stage `heatmaps`: trained model -> attention heatmap PNGs (one per sentence, plus a grid)."""

import shutil

from attention_lab import tracking
from attention_lab.config import load_section
from attention_lab.errors import run_main
from attention_lab.heatmaps import HeatmapParams, attention_figures
from attention_lab.plotting import save_figure
from attention_lab.stage import stage_args
from attention_lab.translator import Translator


def main() -> None:
    args = stage_args(__doc__, model="folder of model.pt and mlflow_run.json", out="folder for the PNGs")
    params = load_section(args.params, "heatmaps", HeatmapParams)
    mlflow = load_section(args.params, "mlflow", tracking.MlflowParams)
    run = tracking.Run.resume(mlflow, tracking.recorded_run_id(args.model))
    figures, grid = attention_figures(Translator.load(args.model), params.sentences, params.search)
    shutil.rmtree(args.out, ignore_errors=True)  # no PNG of a sentence that left the params
    for name, figure in {**figures, "grid.png": grid}.items():
        save_figure(figure, args.out / name)
        run.log_figure(figure, f"heatmaps/{name}")


if __name__ == "__main__":
    run_main(main)
