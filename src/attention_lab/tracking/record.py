"""A finished training run into MLflow, in one call: its config and reports as artifacts, the
model as its logged model `translator`, then the run file beside the model.

Training calls it once its files are written, so a tracking store that went away costs a rerun of
the recording (the resume state keeps the files for it), never the trained model.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attention_lab.tracking.run import Run
from attention_lab.tracking.run_file import RunFile, write_run_file
from attention_lab.tracking.store import TrackingError, connect, reason, redact, tracking_uri
from attention_lab.tracking.views import NOTE_TAG, note, run_name


def record_training(run_id: str | None, experiment: str, model_file: Path, config: dict[str, dict],
                    reports: list[Path], data_dir: Path, figures: Mapping[str, Any] | None = None,
                    model_metrics: Mapping[str, float] | None = None) -> RunFile:
    """Record the finished training run `run_id` (None: tracking is off) of `experiment` and write
    the run file beside `model_file`; `config` is logged as `config/<section>.json`, `figures` by
    their artifact names, and `model_metrics` (the model's own scores) linked to the logged model. A store that
    fails makes a one-line `TrackingError` saying what was written and what was not recorded, and
    no run file."""
    if run_id is None:
        return write_run_file(model_file.parent, None, experiment, None)
    from attention_lab.tracking.registry import (
        log_translator,  # imports all of MLflow: only when tracking
    )

    uri = tracking_uri()
    try:
        run = Run(connect(uri), run_id)  # a store that went away fails here, in seconds
        for section, values in config.items():
            run.log_dict({section: values}, f"config/{section}.json")
        for path in reports:
            run.log_artifact(path, "reports")
        for name, figure in (figures or {}).items():
            run.log_figure(figure, name)
        # Named and described for its architecture, which the run's start (Lightning's logger) does not know.
        arch = str(config.get("train_seq2seq", {}).get("model", {}).get("arch", "")) or None
        run.client.update_run(run_id, name=run_name("train_seq2seq", *filter(None, [arch])))
        run.set_tag(NOTE_TAG, note("train_seq2seq", arch))
        model_id = log_translator(run_id, model_file, data_dir)
        run.log_metrics(model_metrics or {}, model_id=model_id)
        run.finish()  # Lightning finished it, unless the store stopped answering during training
    except Exception as exc:  # MLflow raises many unrelated types for a store that stopped answering
        raise TrackingError(
            f"MLflow tracking URI {redact(uri)!r} unreachable while recording run {run_id} ({reason(exc)}): "
            f"{model_file.name} and reports were written; the run's config, reports and logged model were not "
            "recorded; rerun `dvc repro` to record them") from None
    return write_run_file(model_file.parent, run_id, experiment, model_id)

