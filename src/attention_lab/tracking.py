"""MLflow tracking: where runs go, what every run is tagged with, and logging into an existing run.

Runs default to a sqlite database at the repository root (`DVC_ROOT` when DVC runs the stage, so
`dvc exp run --temp` lands in the same database); `MLFLOW_TRACKING_URI` overrides. The MLflow
file store is deprecated in 3.x and never used as a fallback.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from attention_lab.errors import UserError

MAX_PARAM_LENGTH = 6000  # MLflow's limit on a param value


class TrackingError(UserError):
    pass


@dataclass(frozen=True)
class MlflowParams:
    enabled: bool = True
    experiment: str = "attention-lab"

    def validate(self) -> None:
        if not self.experiment.strip():
            raise ValueError("experiment: must not be empty")


def repo_root() -> Path:
    return Path(os.environ.get("DVC_ROOT") or Path.cwd()).resolve()


def tracking_uri() -> str:
    return os.environ.get("MLFLOW_TRACKING_URI") or f"sqlite:///{repo_root() / 'mlflow.db'}"


def redact(text: str) -> str:
    """Credentials in URLs (`scheme://user:secret@host`) become `scheme://***@host`."""
    return re.sub(r"://[^/@\s]+@", "://***@", text)


@contextmanager
def _fail_fast() -> Iterator[None]:
    # MLflow retries HTTP requests with backoff for minutes by default; a check must not.
    saved = {k: os.environ.get(k) for k in ("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "MLFLOW_HTTP_REQUEST_TIMEOUT")}
    os.environ.update(MLFLOW_HTTP_REQUEST_MAX_RETRIES="0", MLFLOW_HTTP_REQUEST_TIMEOUT="10")
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def client(uri: str | None = None) -> Any:
    """An `MlflowClient` for `uri` (default `tracking_uri()`), after checking it answers."""
    from mlflow import MlflowClient

    uri = uri or tracking_uri()
    if uri.startswith("file:") or "://" not in uri:
        raise TrackingError(f"MLflow tracking URI {redact(uri)!r} is a file store, which MLflow 3 "
                            "no longer supports: use sqlite:///path/mlflow.db or http(s)://host")
    try:
        with _fail_fast():
            tracking = MlflowClient(uri)
            tracking.search_experiments(max_results=1)
    except Exception as exc:  # MLflow raises many unrelated types for an unreachable store
        reason = redact(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        raise TrackingError(f"MLflow tracking URI {redact(uri)!r} is unreachable ({reason[:200]}); "
                            "set MLFLOW_TRACKING_URI or mlflow.enabled: false") from None
    return tracking


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10,
                             cwd=repo_root())
    except OSError:
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def corpus_hash(dvc_file: Path | None = None) -> str:
    """The md5 DVC recorded for the corpus in `data.dvc`, or `unpinned` before the first download."""
    try:
        outs = yaml.safe_load((dvc_file or repo_root() / "data.dvc").read_text())["outs"]
        return str(outs[0].get("md5") or "unpinned")
    except (OSError, yaml.YAMLError, KeyError, IndexError, TypeError, AttributeError):
        return "unknown"


def ensure_experiment(tracking: Any, name: str) -> str:
    """The id of experiment `name`, created with its artifacts in `<repo root>/mlruns` (MLflow's
    default is relative to the working directory, which `dvc exp run --temp` throws away)."""
    experiment = tracking.get_experiment_by_name(name)
    if experiment is not None:
        return experiment.experiment_id
    return tracking.create_experiment(name, artifact_location=(repo_root() / "mlruns").as_uri())


def run_tags(stage: str) -> dict[str, str]:
    tags = {"stage": stage, "git_commit": _git_commit(), "corpus_md5": corpus_hash()}
    if os.environ.get("DVC_EXP_NAME"):
        tags["dvc_experiment"] = os.environ["DVC_EXP_NAME"]
    return tags


def param_values(flat: Mapping[str, Any]) -> dict[str, str]:
    return {k: str(v)[:MAX_PARAM_LENGTH] for k, v in flat.items()}


class Run:
    """Logging into one MLflow run by id (no global active run), or nothing when tracking is off."""

    def __init__(self, tracking: Any | None, run_id: str | None) -> None:
        self.client = tracking if run_id else None
        self.run_id = run_id

    @classmethod
    def create(cls, params: MlflowParams, stage: str, run_name: str | None = None) -> Run:
        if not params.enabled:
            return cls(None, None)
        tracking = client()
        run = tracking.create_run(ensure_experiment(tracking, params.experiment), run_name=run_name or stage,
                                  tags=run_tags(stage))
        return cls(tracking, run.info.run_id)

    @classmethod
    def resume(cls, params: MlflowParams, run_id: str | None) -> Run:
        """The run `run_id` (recorded by the training stage), or nothing when tracking is off."""
        if not params.enabled or not run_id:
            return cls(None, None)
        tracking = client()
        try:
            tracking.get_run(run_id)
        except Exception:
            raise TrackingError(f"MLflow run {run_id} not found at {redact(tracking_uri())!r}") from None
        return cls(tracking, run_id)

    def log_params(self, flat: Mapping[str, Any]) -> None:
        if self.client:
            from mlflow.entities import Param
            self.client.log_batch(self.run_id, params=[Param(k, v) for k, v in param_values(flat).items()])

    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        if self.client:
            import time

            from mlflow.entities import Metric
            now = int(time.time() * 1000)
            self.client.log_batch(self.run_id, metrics=[Metric(k, float(v), now, step or 0)
                                                        for k, v in metrics.items()])

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


def recorded_run_id(model_dir: str | Path) -> str | None:
    """The MLflow run id the training stage recorded beside its model, if any."""
    path = Path(model_dir) / "mlflow_run.json"
    try:
        return json.loads(path.read_text())["run_id"]
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError) as exc:
        raise TrackingError(f"{path}: unreadable ({exc})") from None
