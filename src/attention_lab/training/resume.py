"""Resume state of a training run: only an interrupted run of the same code, config and data
continues from its last checkpoint; a finished run never does.

The state folder holds `run.json` ({fingerprint, mlflow_run_id, finished}) and Lightning's
checkpoints. It is not a DVC output: DVC neither deletes it before a run nor sees it as a change.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from attention_lab.atomic import write_json

PACKAGE = Path(__file__).resolve().parents[1]  # attention_lab, not this subpackage


def source_digest(package: Path = PACKAGE) -> bytes:
    """sha256 over every Python file of the package: a code change means a different run."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.digest()


def fingerprint(config: dict, inputs: list[Path], package: Path = PACKAGE) -> str:
    """What a checkpoint must match to be resumed: the package's source, the whole config and the
    input files' bytes."""
    digest = hashlib.sha256(source_digest(package))
    digest.update(json.dumps(config, sort_keys=True).encode())
    for path in inputs:
        digest.update(path.name.encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


class ResumeState:
    """The run's state folder. Only the process of rank 0 (`writer`) changes it."""

    def __init__(self, directory: Path, writer: bool = True) -> None:
        self.directory, self.writer = Path(directory), writer
        self.file, self.last = self.directory / "run.json", self.directory / "last.ckpt"

    def _read(self) -> dict:
        try:
            return json.loads(self.file.read_text())
        except (OSError, ValueError):
            return {}

    def prepare(self, run_fingerprint: str) -> tuple[Path | None, str | None]:
        """(checkpoint to resume, its MLflow run id), or (None, None) after wiping the folder for a
        fresh start."""
        state = self._read()
        if state.get("fingerprint") == run_fingerprint and not state.get("finished") and self.last.is_file():
            if self.writer:
                for stale in self.directory.glob(".*.tmp"):  # checkpoints a killed run was writing
                    stale.unlink()
            return self.last, state.get("mlflow_run_id")
        if self.writer:
            self.discard()
            self.record(run_fingerprint, None)
        return None, None

    def record(self, run_fingerprint: str, run_id: str | None, finished: bool = False) -> None:
        if self.writer:
            write_json(self.file, {"fingerprint": run_fingerprint, "mlflow_run_id": run_id, "finished": finished})

    def finish(self) -> None:
        """Mark the run finished (all epochs, early stopping, its budget or time limit): a rerun,
        even of the same code and config, trains afresh. The checkpoints are no longer needed."""
        state = self._read()
        self.record(state.get("fingerprint", ""), state.get("mlflow_run_id"), finished=True)

    def discard(self) -> None:
        if self.writer:
            shutil.rmtree(self.directory, ignore_errors=True)
