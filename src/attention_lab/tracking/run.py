"""Logging into one MLflow run by id, and the child runs of a training run (where runs go and how
they are tagged is `tracking.store`)."""

from __future__ import annotations

import json
import posixpath
import sys
import tempfile
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from attention_lab.tracking.run_file import RunFile
from attention_lab.tracking.views import run_name
from attention_lab.tracking.store import (
    MAX_PARAM_LENGTH,
    PARENT_RUN_TAG,
    MlflowParams,
    TrackingError,
    client,
    ensure_experiment,
    redact,
    run_tags,
    tracking_uri,
)


# What a store says when two processes insert the same dataset at once (sqlite, PostgreSQL, MySQL).
DUPLICATE_INSERT = ("IntegrityError", "UniqueViolation", "UNIQUE constraint failed", "Duplicate entry")
DATASET_TRIES = 3


def param_values(flat: Mapping[str, Any]) -> dict[str, str]:
    return {k: str(v)[:MAX_PARAM_LENGTH] for k, v in flat.items()}


class Run:
    """Logging into one MLflow run by id (no global active run), or nothing when tracking is off."""

    def __init__(self, tracking: Any | None, run_id: str | None) -> None:
        self.client = tracking if run_id else None
        self.run_id = run_id

    @classmethod
    def create(cls, params: MlflowParams, stage: str, name: str | None = None) -> Run:
        if not params.enabled:
            return cls(None, None)
        tracking = client()
        run = tracking.create_run(ensure_experiment(tracking, params.experiment), run_name=name or run_name(stage),
                                  tags=run_tags(stage))
        return cls(tracking, run.info.run_id)

    @classmethod
    def resume(cls, params: MlflowParams, recorded: RunFile | None) -> Run:
        """The training run a run file records (`read_run_file`), or nothing when tracking is off
        or the model was trained without it."""
        run_id = recorded.run_id if recorded else None
        if not params.enabled or not run_id:
            return cls(None, None)
        tracking = client()
        try:
            tracking.get_run(run_id)
        except Exception:
            raise TrackingError(f"MLflow run {run_id} not found at {redact(tracking_uri())!r}") from None
        return cls(tracking, run_id)

    def child(self, stage: str) -> Run:
        """A new run nested under this one (same experiment), for a stage that can run several
        times against one training run: each DVC experiment that only re-evaluates gets its own."""
        if not self.client:
            return Run(None, None)
        experiment_id = self.client.get_run(self.run_id).info.experiment_id
        # Named for its stage first (`evaluate · bandy-tomb`): named for the DVC experiment alone, as its
        # parent's name ends, it would read as a second training run.
        run = self.client.create_run(experiment_id, run_name=run_name(stage),
                                     tags={**run_tags(stage), PARENT_RUN_TAG: self.run_id})
        return Run(self.client, run.info.run_id)

    def tag(self, key: str) -> str | None:
        return self.client.get_run(self.run_id).data.tags.get(key) if self.client else None

    def set_tag(self, key: str, value: str) -> None:
        if self.client:
            self.client.set_tag(self.run_id, key, value)

    def logged_model_id(self) -> str | None:
        """The id of the last MLflow model this run logged (`registry.log_translator`), if any."""
        if not self.client:
            return None
        outputs = self.client.get_run(self.run_id).outputs
        models = outputs.model_outputs if outputs else []
        return models[-1].model_id if models else None

    def log_params(self, flat: Mapping[str, Any]) -> None:
        if self.client:
            from mlflow.entities import Param
            self.client.log_batch(self.run_id, params=[Param(k, v) for k, v in param_values(flat).items()])

    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None, model_id: str | None = None,
                    dataset: Any | None = None) -> None:
        """Log `metrics`; `model_id` and `dataset` (from `log_dataset`) link them to a logged model
        and to the data they were measured on, which the UI's model page shows."""
        if self.client:
            import time

            from mlflow.entities import Metric
            now = int(time.time() * 1000)
            link = {"model_id": model_id, "dataset_name": dataset.name if dataset else None,
                    "dataset_digest": dataset.digest if dataset else None}
            self.client.log_batch(self.run_id, metrics=[Metric(k, float(v), now, step or 0, **link)
                                                        for k, v in metrics.items()])

    def log_dataset(self, frame: Any, name: str, source: str | Path, context: str) -> Any | None:
        """Record a pandas frame as this run's input (`context`: training, validation, testing):
        its digest, schema and row count, not its rows. Returns the MLflow dataset."""
        if not self.client:
            return None
        import mlflow.data
        from mlflow.entities import DatasetInput, InputTag
        from mlflow.exceptions import MlflowException
        from mlflow.utils.mlflow_tags import MLFLOW_DATASET_CONTEXT

        with warnings.catch_warnings():
            # MLflow registers one local-file source class twice (for "" and "file:") and warns
            # that a path could be either.
            warnings.filterwarnings("ignore", message="The specified dataset source can be interpreted in multiple")
            dataset = mlflow.data.from_pandas(frame, source=Path(source).resolve().as_uri(), name=name)
        inputs = [DatasetInput(dataset._to_mlflow_entity(), [InputTag(MLFLOW_DATASET_CONTEXT, context)])]
        # The store looks a dataset up, then inserts it: two runs of one experiment logging the same split
        # at once (queued experiments with equal budgets finish together) both insert, and the later one
        # fails. Tried again, it finds the dataset and only links it to its run.
        for tries_left in reversed(range(DATASET_TRIES)):
            try:
                self.client.log_inputs(self.run_id, datasets=inputs)
                return dataset
            except MlflowException as exc:
                if not tries_left or not any(marker in str(exc) for marker in DUPLICATE_INSERT):
                    raise

    def log_table(self, frame: Any, artifact_file: str) -> None:
        """A pandas frame as an MLflow table: JSON in `MlflowClient.log_table`'s format, listed in
        the run's `mlflow.loggedArtifacts` tag, so the UI shows it as a table. Unlike
        `log_table`, which appends rows to a table already logged under that name, this replaces
        it: a training run re-evaluated shows the latest translations, not both sets stacked."""
        if self.client:
            from mlflow.utils.mlflow_tags import MLFLOW_LOGGED_ARTIFACTS

            folder, name = posixpath.split(artifact_file)
            with tempfile.TemporaryDirectory() as tmp:
                frame.to_json(Path(tmp) / name, orient="split", index=False, date_format="iso")
                self.client.log_artifact(self.run_id, str(Path(tmp) / name), folder or None)
            listed = json.loads(self.tag(MLFLOW_LOGGED_ARTIFACTS) or "[]")
            entry = {"path": artifact_file, "type": "table"}
            if entry not in listed:
                self.set_tag(MLFLOW_LOGGED_ARTIFACTS, json.dumps([*listed, entry]))

    def log_artifact(self, path: str | Path, artifact_path: str | None = None) -> None:
        if self.client:
            self.client.log_artifact(self.run_id, str(path), artifact_path)

    def log_dict(self, data: dict, artifact_file: str) -> None:
        if self.client:
            self.client.log_dict(self.run_id, data, artifact_file)

    def log_figure(self, figure: Any, artifact_file: str) -> None:
        if self.client:
            self.client.log_figure(self.run_id, figure, artifact_file)

    def finish(self, status: str = "FINISHED") -> None:
        if self.client:
            self.client.set_terminated(self.run_id, status)


@contextmanager
def child_run(training: Run, stage: str, params: Mapping[str, Any]) -> Iterator[Run]:
    """A run of `stage` nested under the training run whose model it uses, with `params` logged:
    finished when the block ends, FAILED if it raises.

    The stage logs its results into both: the training run shows the latest ones beside its model,
    and each child keeps its own, so DVC experiments that only re-run `evaluate` or `heatmaps`
    against one trained model (`-S evaluate.search.beam_size=8`) never overwrite each other. The
    training run's tag `<stage>_run_id` names the child its current results come from.
    """
    child = training.child(stage)
    try:
        child.log_params(params)
        yield child
    except BaseException:
        child.finish("FAILED")
        raise
    child.finish()
    key = f"{stage}_run_id"
    previous = training.tag(key)
    if previous and previous != child.run_id:
        print(f"note: MLflow run {training.run_id}: its {stage} results now come from run {child.run_id} "
              f"(they came from run {previous}, which keeps its own copy)", file=sys.stderr)
    training.set_tag(key, child.run_id)

