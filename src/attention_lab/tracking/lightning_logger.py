"""Lightning's MLflow logger for a training run, made so that a tracking server that goes away
during training costs the run its metrics from then on, never the run itself."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

import pytorch_lightning as pl
from pytorch_lightning.utilities import rank_zero_only

from attention_lab.tracking import store as tracking
from attention_lab.tracking.views import mlflow_metric_name, run_name

STAGE = "train_seq2seq"


class TolerantMLFlowLogger(pl.loggers.MLFlowLogger):
    """Logs metrics until the tracking server first fails to take them, then prints one warning
    line and logs nothing more (the run stays open until it is recorded after training). While
    training, a request gets three tries, so a server that is gone costs seconds, not MLflow's
    default minutes of retries before it raises and ends training."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stopped = False
        self.last_step: int | None = None

    @property
    def experiment(self) -> Any:
        # Lightning points MLflow's process-wide tracking URI (and MLFLOW_TRACKING_URI) at this
        # logger's when it first connects; put back, nothing after training in this process (the
        # registry's fluent calls, a later stage or test) is sent to a store it did not name.
        with tracking.fluent_tracking_uri(self._tracking_uri):
            return super().experiment

    def _tolerant(self, call: Callable[..., None], *args: Any) -> None:
        if self.stopped:
            return
        try:
            with tracking.request_limits(retries=2, timeout_s=10):
                call(*args)
        except Exception as exc:  # MLflow raises many unrelated types for a server that went away
            self.stopped = True
            print(f"warning: MLflow tracking server {tracking.redact(self._tracking_uri)} stopped answering at "
                  f"step {self.last_step}: {tracking.reason(exc)}; training goes on, metrics from here on are not "
                  "recorded", file=sys.stderr, flush=True)

    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        self.last_step = step
        # Named for the UI's chart sections (`views.METRIC_NAMES`); history.csv keeps Lightning's keys.
        self._tolerant(super().log_metrics, {mlflow_metric_name(k): v for k, v in metrics.items()}, step)

    def finalize(self, status: str = "success") -> None:
        self._tolerant(super().finalize, status)


def make_logger(mlflow: tracking.MlflowParams, client: object, run_id: str | None) -> TolerantMLFlowLogger | None:
    """The run's MLflow logger on the checked `client` (continuing run `run_id`, if any), or None
    when tracking is off."""
    if client is None:
        return None
    if rank_zero_only.rank == 0:
        tracking.ensure_experiment(client, mlflow.experiment)
    return TolerantMLFlowLogger(experiment_name=mlflow.experiment, tracking_uri=tracking.tracking_uri(),
                                run_id=run_id, run_name=run_name(STAGE), tags=tracking.run_tags(STAGE))
