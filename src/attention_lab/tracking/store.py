"""MLflow tracking: where runs go, the experiment, and what every run is tagged with (logging into
one run is `tracking.run`).

Runs default to a sqlite database at the repository root (`DVC_ROOT` when DVC runs the stage, so
`dvc exp run --temp` lands in the same database); `MLFLOW_TRACKING_URI` overrides. The MLflow
file store is deprecated in 3.x and never used as a fallback.

Artifacts (reports, figures, logged models) go where the experiment's artifact location says: with
a local store, `<repo root>/mlruns`; with a tracking server, wherever the server decides (its
`--artifacts-destination` when it proxies artifacts), never the client's working directory.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from attention_lab.errors import UserError
from attention_lab.tracking.views import NOTE_TAG, SHARED_VIEW_TAG, note, shared_view

MAX_PARAM_LENGTH = 6000  # MLflow's limit on a param value
# MLflow 3's experiment type: `custom_model_development` is what the UI's experiment-type setting
# writes for "Machine learning" (the model-training view: runs, params, metrics, models) as opposed
# to "GenAI apps & agents" (traces, sessions, judges). MLflow 3.17's own UI picks the view with its
# sidebar switch (`?workflowType=machine_learning`) instead; the tag is for every other reader.
EXPERIMENT_KIND_TAG = "mlflow.experimentKind"
EXPERIMENT_KIND = "custom_model_development"
PARENT_RUN_TAG = "mlflow.parentRunId"  # what nests a run under another in the UI


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


def server_stores_artifacts(uri: str) -> bool:
    """True when `uri` is a tracking server, which chooses where artifacts go; False for a
    database the client writes to itself (sqlite, postgresql, ...), whose artifacts this process
    stores."""
    return uri.split(":", 1)[0].lower() in ("http", "https", "databricks")


def redact(text: str) -> str:
    """Credentials in URLs (`scheme://user:secret@host`) become `scheme://***@host`."""
    return re.sub(r"://[^/@\s]+@", "://***@", text)


@contextmanager
def request_limits(retries: int, timeout_s: int) -> Iterator[None]:
    """MLflow's HTTP retries and per-request timeout for this block, put back after. Its defaults
    (7 retries, backing off up to 2 minutes between them, 120 s a request) ride out a flaky network for minutes:
    right for recording a finished run, wrong for a check, or for metrics while training goes on."""
    limits = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": str(retries), "MLFLOW_HTTP_REQUEST_TIMEOUT": str(timeout_s),
              "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1"}
    saved = {k: os.environ.get(k) for k in limits}
    os.environ.update(limits)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def reason(exc: BaseException) -> str:
    """An exception as a short phrase for a one-line message: its first line, credentials redacted."""
    return redact(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)[:200]


@contextmanager
def fluent_tracking_uri(uri: str) -> Iterator[None]:
    """MLflow's fluent API at `uri` for this block only. `mlflow.set_tracking_uri` is process-wide
    and also writes (or, given None, deletes) MLFLOW_TRACKING_URI, so both are put back after."""
    import mlflow
    from mlflow.tracking._tracking_service import utils

    saved, env = utils._tracking_uri, os.environ.get("MLFLOW_TRACKING_URI")
    mlflow.set_tracking_uri(uri)
    try:
        yield
    finally:
        utils._tracking_uri = saved
        if env is None:
            os.environ.pop("MLFLOW_TRACKING_URI", None)
        else:
            os.environ["MLFLOW_TRACKING_URI"] = env


@contextmanager
def _first_use_lock(uri: str) -> Iterator[None]:
    """For a sqlite store, hold an exclusive lock on the database file across processes.

    MLflow creates and migrates a store's tables on first use, and two processes doing that at once
    (queued DVC experiments started together, DDP ranks) fail with "table ... already exists".
    `flock` is independent of sqlite's own (fcntl) locks, and opening the file for appending creates
    an empty database, which MLflow then initialises.
    """
    prefix = "sqlite:///"
    if not uri.startswith(prefix) or sys.platform == "win32":  # (Windows has no flock)
        yield
        return
    import fcntl

    with open(uri[len(prefix):], "ab") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def connect(uri: str) -> Any:
    """An `MlflowClient` for `uri` once it has answered a request, in seconds if it does not (then
    it raises what MLflow raised)."""
    from mlflow import MlflowClient

    with request_limits(retries=0, timeout_s=10), _first_use_lock(uri):
        tracking = MlflowClient(uri)
        tracking.search_experiments(max_results=1)
    return tracking


def client(uri: str | None = None) -> Any:
    """An `MlflowClient` for `uri` (default `tracking_uri()`), after checking it answers."""
    uri = uri or tracking_uri()
    if uri.startswith("file:") or "://" not in uri:
        raise TrackingError(f"MLflow tracking URI {redact(uri)!r} is a file store, which MLflow 3 "
                            "no longer supports: use sqlite:///path/mlflow.db or http(s)://host")
    try:
        return connect(uri)
    except Exception as exc:  # MLflow raises many unrelated types for an unreachable store
        raise TrackingError(f"MLflow tracking URI {redact(uri)!r} is unreachable ({reason(exc)}); "
                            "set MLFLOW_TRACKING_URI or mlflow.enabled: false") from None


def git_commit() -> str:
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
    """The id of experiment `name`, created if missing and tagged to open in the UI's
    model-training view.

    With a local store its artifacts go to `<repo root>/mlruns` (MLflow's default is relative to
    the working directory, which `dvc exp run --temp` throws away); a tracking server picks its own
    artifact location. Several processes may create it at once (queued DVC experiments, DDP
    ranks): the ones that lose the race read the winner's experiment.
    """
    from mlflow.exceptions import MlflowException

    experiment = tracking.get_experiment_by_name(name)
    if experiment is None:
        uri = tracking.tracking_uri
        location = None if server_stores_artifacts(uri) else (repo_root() / "mlruns").as_uri()
        try:
            tags = {EXPERIMENT_KIND_TAG: EXPERIMENT_KIND, SHARED_VIEW_TAG: shared_view()}
            return tracking.create_experiment(name, artifact_location=location, tags=tags)
        except MlflowException as exc:
            experiment = tracking.get_experiment_by_name(name)
            if exc.error_code != "RESOURCE_ALREADY_EXISTS" or experiment is None:
                raise
    if experiment.lifecycle_stage == "deleted":
        raise TrackingError(f"MLflow experiment {name!r} (id {experiment.experiment_id}) is deleted: restore it "
                            f"with `mlflow experiments restore --experiment-id {experiment.experiment_id}` "
                            "or set another mlflow.experiment")
    if EXPERIMENT_KIND_TAG not in experiment.tags:  # an experiment from before this tag; a kind chosen in the UI stays
        tracking.set_experiment_tag(experiment.experiment_id, EXPERIMENT_KIND_TAG, EXPERIMENT_KIND)
    if experiment.tags.get(SHARED_VIEW_TAG) != shared_view():  # this version's view
        tracking.set_experiment_tag(experiment.experiment_id, SHARED_VIEW_TAG, shared_view())
    check_artifact_location(tracking.tracking_uri, experiment.artifact_location)
    return experiment.experiment_id


def check_artifact_location(uri: str, location: str) -> None:
    """MLflow stores artifact locations as absolute paths: in a copied or moved repository, the
    experiment still points at the original's `mlruns`. New runs would write there, so this stops."""
    own = repo_root() / "mlruns"
    if uri == f"sqlite:///{repo_root() / 'mlflow.db'}" and location.startswith("file:") and \
            location.endswith("/mlruns") and location != own.as_uri():
        raise TrackingError(f"mlflow.db: the experiment's artifacts are at {location}, not this repository's "
                            f"{own}: the project was copied or moved; run `python -m attention_lab.tracking.relocate`")


def run_tags(stage: str) -> dict[str, str]:
    tags = {"stage": stage, "git_commit": git_commit(), "corpus_md5": corpus_hash(), NOTE_TAG: note(stage)}
    if os.environ.get("DVC_EXP_NAME"):
        tags["dvc_experiment"] = os.environ["DVC_EXP_NAME"]
    return tags
