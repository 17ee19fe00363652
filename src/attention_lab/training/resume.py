"""Resume state of a training run: only an interrupted run of the same code, config and data
continues from its last checkpoint; a finished run never does. A run trained but not recorded in
MLflow (the store stopped answering) is recorded by the next run of the same code, config and data,
without training again.

The state folder holds `run.json` ({fingerprint, mlflow_run_id, finished, kept}), Lightning's
checkpoints and, until the run is recorded, copies of its outputs (`trained/`). It is not a DVC
output: DVC neither deletes it before a run nor sees it as a change.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from attention_lab.atomic import atomic_path, write_json

PACKAGE = Path(__file__).resolve().parents[1]  # attention_lab, not this subpackage


def file_sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def source_digest(package: Path = PACKAGE) -> bytes:
    """sha256 over every Python file of the package: a code change means a different run."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(file_sha256(path).encode())
    return digest.digest()


def fingerprint(config: dict, inputs: list[Path], package: Path = PACKAGE) -> str:
    """What a checkpoint must match to be resumed: the package's source, the whole config and the
    input files' bytes."""
    digest = hashlib.sha256(source_digest(package))
    digest.update(json.dumps(config, sort_keys=True).encode())
    for path in inputs:
        digest.update(path.name.encode())
        digest.update(file_sha256(path).encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Start:
    """How a run starts: afresh; from `checkpoint` (an interrupted run's last); or, when `trained`,
    with training done: its recording failed, and its outputs were kept in the state folder."""

    checkpoint: Path | None = None
    run_id: str | None = None  # the MLflow run it continues
    trained: bool = False
    stale: bool = False  # afresh, in place of an interrupted run of other code, config or data


class ResumeState:
    """The run's state folder. Only the process of rank 0 (`writer`) changes it."""

    def __init__(self, directory: Path, writer: bool = True) -> None:
        self.directory, self.writer = Path(directory), writer
        self.file, self.last = self.directory / "run.json", self.directory / "last.ckpt"
        self.kept = self.directory / "trained"

    def _read(self) -> dict:
        try:
            return json.loads(self.file.read_text())
        except (OSError, ValueError):
            return {}

    def _intact(self, kept: dict[str, str]) -> bool:
        """Every kept output is there with the bytes it had when kept."""
        try:
            return all(file_sha256(self.kept / name) == digest for name, digest in kept.items())
        except OSError:
            return False

    def prepare(self, run_fingerprint: str) -> Start:
        """How the run of `run_fingerprint` starts; a fresh start wipes the folder first."""
        state = self._read()
        if state.get("fingerprint") == run_fingerprint:
            if state.get("kept") and self._intact(state["kept"]):
                return Start(run_id=state.get("mlflow_run_id"), trained=True)
            if not state.get("finished") and self.last.is_file():
                if self.writer:
                    for stale in self.directory.glob(".*.tmp"):  # checkpoints a killed run was writing
                        stale.unlink()
                return Start(self.last, state.get("mlflow_run_id"))
        # An interrupted run that was not resumed above had another fingerprint.
        stale = bool(state.get("fingerprint")) and not state.get("finished") and self.last.is_file()
        if self.writer:
            self.discard()
            self.record(run_fingerprint, None)
        return Start(stale=stale)

    def record(self, run_fingerprint: str, run_id: str | None, finished: bool = False,
               kept: dict[str, str] | None = None) -> None:
        if self.writer:
            write_json(self.file, {"fingerprint": run_fingerprint, "mlflow_run_id": run_id, "finished": finished,
                                   "kept": kept})

    def run_id(self) -> str | None:
        return self._read().get("mlflow_run_id")

    def finish(self) -> None:
        """Mark the run finished (all epochs, early stopping, its budget or time limit): a rerun,
        even of the same code and config, trains afresh unless the run's outputs are kept."""
        state = self._read()
        self.record(state.get("fingerprint", ""), state.get("mlflow_run_id"), finished=True)

    def keep(self, outputs: list[Path]) -> None:
        """Copy a finished run's outputs here, with their sha256, until it is recorded (`discard`):
        DVC deletes a stage's outputs before running it again, and a rerun after a failed
        recording restores them instead of training again. The checkpoints are no longer needed."""
        if not self.writer:
            return
        for checkpoint in self.directory.glob("*.ckpt"):
            checkpoint.unlink()
        for path in outputs:
            with atomic_path(self.kept / path.name) as tmp:
                shutil.copyfile(path, tmp)
        state = self._read()
        self.record(state.get("fingerprint", ""), state.get("mlflow_run_id"), finished=True,
                    kept={path.name: file_sha256(self.kept / path.name) for path in outputs})

    def restore(self, outputs: list[Path]) -> None:
        """Put the kept copies back in place of `outputs` (by file name)."""
        for path in outputs:
            with atomic_path(path) as tmp:
                shutil.copyfile(self.kept / path.name, tmp)

    def discard(self) -> None:
        if self.writer:
            shutil.rmtree(self.directory, ignore_errors=True)
