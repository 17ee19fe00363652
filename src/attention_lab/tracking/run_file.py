"""`mlflow_run.json`, beside a trained model: the MLflow run that trained it and the model it
logged. The training stage writes it; evaluate, heatmaps and `attention-lab promote` read it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from attention_lab.atomic import write_json
from attention_lab.tracking.store import TrackingError

RUN_FILE = "mlflow_run.json"


@dataclass(frozen=True)
class RunFile:
    run_id: str | None  # None: trained with mlflow.enabled: false
    experiment: str
    model_id: str | None = None  # the logged model (`registry.log_translator`)


def run_file_path(model_dir: str | Path) -> Path:
    return Path(model_dir) / RUN_FILE


def write_run_file(model_dir: str | Path, run_id: str | None, experiment: str, model_id: str | None) -> RunFile:
    recorded = RunFile(run_id, experiment, model_id)
    write_json(run_file_path(model_dir), asdict(recorded))
    return recorded


def read_run_file(model_dir: str | Path) -> RunFile | None:
    """What the run file in `model_dir` records, or None when there is none."""
    path = run_file_path(model_dir)
    try:
        data = json.loads(path.read_text())
        return RunFile(data["run_id"], data.get("experiment", ""), data.get("model_id"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise TrackingError(f"{path}: unreadable ({type(exc).__name__}: {exc})") from None
