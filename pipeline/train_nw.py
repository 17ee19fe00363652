"""Stage `train_nw`: Nadaraya-Watson kernel regression (d2l §11.2) -> metrics, figures, models."""

import warnings

from attention_lab.atomic import write_json
from attention_lab.config import flatten, load_section, to_dict
from attention_lab.errors import run_main
from attention_lab.nw.data import NWParams
from attention_lab.stage import stage_args
from attention_lab.tracking.store import MlflowParams


def main() -> None:
    args = stage_args(__doc__, out_reports="folder for metrics.json and figures/*.png",
                      out_models="folder for parametric.pt and estimators.json")
    params = load_section(args.params, "train_nw", NWParams)
    mlflow_params = load_section(args.params, "mlflow", MlflowParams)
    # MLflow, Lightning and matplotlib once the params are known good, and the store checked before
    # Lightning: a bad value or an unreachable store fails in seconds, not after ten of imports.
    from attention_lab.tracking.run import Run

    run = Run.create(mlflow_params, "train_nw")
    try:
        from attention_lab.nw.experiment import run_experiment, save_models
        from attention_lab.nw.figures import figures
        from attention_lab.plotting import save_figure

        # The full batch lives in memory, so the loader needs no workers.
        warnings.filterwarnings("ignore", ".*does not have many workers.*")
        reports = args.out_reports
        run.log_params(flatten({"train_nw": to_dict(params)}))
        experiment = run_experiment(params)
        metrics = experiment.metrics()
        write_json(reports / "metrics.json", metrics)
        save_models(experiment, args.out_models)
        for name, figure in figures(experiment).items():
            save_figure(figure, reports / "figures" / f"{name}.png")
            run.log_artifact(reports / "figures" / f"{name}.png", "figures")  # the file itself: drawn once
        run.log_metrics(flatten(metrics))
        for step, loss in enumerate(experiment.main.model.losses):
            run.log_metrics({"train/loss": loss}, step)
    except BaseException:
        run.finish("FAILED")
        raise
    run.finish()


if __name__ == "__main__":
    run_main(main)
