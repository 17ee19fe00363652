"""MLflow tracking: the experiment (its UI view, artifact location, concurrent creation), child runs
of evaluations, and a shared `mlflow server` that stores every artifact itself."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from mlflow import MlflowClient
from mlflow.entities import ViewType
from servers import tracking_server as start_tracking_server, without_tracking_env

from attention_lab.tracking import registry
from attention_lab.tracking import run as mlflow_run
from attention_lab.tracking import store as tracking
from attention_lab.tracking.run_file import RunFile, read_run_file, run_file_path, write_run_file


@pytest.fixture(scope="module")
def local_root(own_store: Path) -> Path:
    """Shared by this module's tests (each uses experiments of its own): creating a store takes seconds."""
    return own_store


@pytest.fixture
def local_store(local_root: Path) -> MlflowClient:
    return tracking.client()


def test_new_experiment_opens_in_the_model_training_view_with_artifacts_in_the_repo(local_store, local_root):
    experiment = local_store.get_experiment(tracking.ensure_experiment(local_store, "lab"))
    assert experiment.tags[tracking.EXPERIMENT_KIND_TAG] == "custom_model_development"
    assert experiment.artifact_location == (local_root / "mlruns").as_uri()
    assert tracking.ensure_experiment(local_store, "lab") == experiment.experiment_id


def test_an_older_experiment_gets_the_kind_and_a_kind_chosen_in_the_ui_stays(local_store):
    old = local_store.create_experiment("old")
    chosen = local_store.create_experiment("chosen", tags={tracking.EXPERIMENT_KIND_TAG: "genai_development"})
    tracking.ensure_experiment(local_store, "old")
    tracking.ensure_experiment(local_store, "chosen")
    assert local_store.get_experiment(old).tags[tracking.EXPERIMENT_KIND_TAG] == "custom_model_development"
    assert local_store.get_experiment(chosen).tags[tracking.EXPERIMENT_KIND_TAG] == "genai_development"


def test_a_deleted_experiment_is_a_one_line_error(local_store):
    local_store.delete_experiment(local_store.create_experiment("gone"))
    with pytest.raises(tracking.TrackingError, match=r"'gone' \(id \d+\) is deleted: restore it with") as error:
        tracking.ensure_experiment(local_store, "gone")
    assert "\n" not in str(error.value)


def test_the_run_file_reads_back_what_was_written_and_an_unreadable_one_is_a_one_line_error(tmp_path):
    assert read_run_file(tmp_path) is None  # trained before any run file: evaluate logs nothing
    written = write_run_file(tmp_path, "0123abcd", "lab", "m-42")
    assert read_run_file(tmp_path) == written == RunFile("0123abcd", "lab", "m-42")
    for text in ("{not json", "[1, 2]", '{"experiment": "lab"}', '"run"'):
        run_file_path(tmp_path).write_text(text)
        with pytest.raises(tracking.TrackingError, match=f"^{run_file_path(tmp_path)}: unreadable") as error:
            read_run_file(tmp_path)
        assert "\n" not in str(error.value)


class LateReader:
    """A client that, like a process that lost the race, does not see the experiment another
    process created between its lookup and its create."""

    def __init__(self, client: MlflowClient) -> None:
        self.client, self.lookups = client, 0

    def get_experiment_by_name(self, name: str):
        self.lookups += 1
        return None if self.lookups == 1 else self.client.get_experiment_by_name(name)

    def __getattr__(self, name: str):
        return getattr(self.client, name)


def test_losing_the_creation_race_reads_the_winners_experiment(local_store):
    winner = tracking.ensure_experiment(local_store, "race")
    late = LateReader(local_store)
    assert tracking.ensure_experiment(late, "race") == winner
    assert late.lookups == 2


def test_each_evaluation_is_a_child_run_and_the_training_run_shows_the_latest(local_store, monkeypatch, capsys,
                                                                                       tmp_path):
    mlflow = tracking.MlflowParams(experiment="children")
    training = mlflow_run.Run.create(mlflow, "train_seq2seq")
    training.finish()
    children = []
    for name, bleu in (("beam4", 30.0), ("beam8", 31.0)):
        monkeypatch.setenv("DVC_EXP_NAME", name)
        with mlflow_run.child_run(training, "evaluate", {"evaluate.search.beam_size": name[4:]}) as child:
            for run in (training, child):
                run.log_metrics({"test.beam.bleu": bleu})
                run.log_table(pd.DataFrame({"source": ["Go."], "hypothesis": [name]}), "evaluate/translations.json")
        children.append(child.run_id)
    assert f"its evaluate results now come from run {children[1]} (they came from run {children[0]}" in \
        capsys.readouterr().err
    with pytest.raises(RuntimeError):
        with mlflow_run.child_run(training, "evaluate", {}) as failed:
            raise RuntimeError("translation crashed")

    parent = local_store.get_run(training.run_id)
    assert parent.data.tags["evaluate_run_id"] == children[1] and parent.data.metrics["test.beam.bleu"] == 31.0
    for run_id, name, bleu in zip(children, ("beam4", "beam8"), (30.0, 31.0)):
        child = local_store.get_run(run_id)
        assert child.info.run_name == f"evaluate · {name}" and child.info.status == "FINISHED"
        assert child.data.tags[tracking.PARENT_RUN_TAG] == training.run_id
        assert child.data.tags["stage"] == "evaluate" and child.data.tags["dvc_experiment"] == name
        assert child.data.metrics["test.beam.bleu"] == bleu
        assert child.data.params["evaluate.search.beam_size"] == name[4:]
    assert local_store.get_run(failed.run_id).info.status == "FAILED"
    # The training run's table is the latest evaluation's, not both stacked, and the UI shows it as one.
    table = json.loads(Path(local_store.download_artifacts(training.run_id, "evaluate/translations.json",
                                                           str(tmp_path))).read_text())
    assert table == {"columns": ["source", "hypothesis"], "data": [["Go.", "beam8"]]}
    assert json.loads(parent.data.tags["mlflow.loggedArtifacts"]) == [{"path": "evaluate/translations.json",
                                                                       "type": "table"}]


@pytest.fixture(scope="module")
def tracking_server(tmp_path_factory: pytest.TempPathFactory):
    """`mlflow server` on loopback, proxying artifacts into a folder of its own."""
    root = tmp_path_factory.mktemp("server")
    with start_tracking_server(root) as base:
        yield base, root / "artifacts"


def client_env(base: str, cwd: Path) -> dict[str, str]:
    return {**without_tracking_env(), "MLFLOW_TRACKING_URI": base, "DVC_ROOT": str(cwd)}


def test_with_a_tracking_server_every_artifact_lands_in_its_store(tracking_server, trained_model, tmp_path,
                                                                 monkeypatch):
    base, store = tracking_server
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    monkeypatch.chdir(client_dir)
    for key, value in client_env(base, client_dir).items():
        monkeypatch.setenv(key, value)
    report = tmp_path / "metrics.json"
    report.write_text('{"bleu": 1.0}')

    training = mlflow_run.Run.create(tracking.MlflowParams(experiment="shared"), "train_seq2seq")
    training.log_artifact(report, "reports")
    training.finish()
    model_id = registry.log_translator(training.run_id, trained_model / "model.pt")
    with mlflow_run.child_run(training, "evaluate", {}) as evaluation:
        evaluation.log_table(pd.DataFrame({"source": ["I lost."], "hypothesis": ["J'ai perdu."]}),
                             "evaluate/translations.json")

    client = tracking.client()
    experiment = client.get_experiment_by_name("shared")
    assert experiment.artifact_location.startswith("mlflow-artifacts:")  # the server chose
    stored = {p.name: p for p in store.rglob("*") if p.is_file()}
    assert {"metrics.json", "model.pt", "MLmodel", "served_model.py", "translations.json"} <= set(stored)
    assert stored["model.pt"].read_bytes() == (trained_model / "model.pt").read_bytes()
    assert model_id in str(stored["MLmodel"])
    assert [p for p in client_dir.rglob("*")] == []  # nothing in the client's working directory


RACER = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    import mlflow, mlflow.store.tracking.sqlalchemy_store  # imported before the start: no head start
    from attention_lab.tracking import run as mlflow_run
    from attention_lab.tracking import store as tracking
    ready, count = Path(sys.argv[1]), int(sys.argv[2])
    (ready / str(os.getpid())).touch()
    while len(list(ready.iterdir())) < count:  # all start together, once every one is ready
        time.sleep(0.005)
    print(tracking.ensure_experiment(tracking.client(), sys.argv[3]))
""")


def race(env: dict[str, str], cwd: Path, count: int = 2) -> set[str]:
    """The experiment ids that `count` processes creating experiment `raced` at once got."""
    ready = cwd / "ready"
    ready.mkdir()
    racers = [subprocess.Popen([sys.executable, "-c", RACER, str(ready), str(count), "raced"], cwd=cwd, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(count)]
    results = [racer.communicate(timeout=120) for racer in racers]
    assert [racer.returncode for racer in racers] == [0] * count, [err[-2000:] for _, err in results]
    return {out.strip() for out, _ in results}


class RacedInserts:
    """A client whose first `log_inputs` calls fail as a store's do when another process inserted the
    same dataset between this one's lookup and its insert (the message sqlite gives), or as `error` says."""

    def __init__(self, client: MlflowClient, failures: int, error: str = "") -> None:
        self.client, self.failures, self.calls = client, failures, 0
        self.error = error or ("(sqlite3.IntegrityError) UNIQUE constraint failed: datasets.experiment_id, "
                               "datasets.name, datasets.digest")

    def log_inputs(self, run_id: str, datasets):
        from mlflow.exceptions import MlflowException

        self.calls += 1
        if self.calls <= self.failures:
            raise MlflowException(self.error)
        return self.client.log_inputs(run_id, datasets=datasets)

    def __getattr__(self, name: str):
        return getattr(self.client, name)


def test_a_dataset_another_run_inserted_at_the_same_moment_is_linked_on_a_second_try(local_store, tmp_path):
    experiment = tracking.ensure_experiment(local_store, "datasets")
    frame = pd.DataFrame({"src": ["Go."], "tgt": ["Va !"]})
    for failures in (0, 1, mlflow_run.DATASET_TRIES - 1):
        run_id = local_store.create_run(experiment).info.run_id
        raced = RacedInserts(local_store, failures)
        dataset = mlflow_run.Run(raced, run_id).log_dataset(frame, "train", tmp_path / "train.parquet", "training")
        assert raced.calls == failures + 1
        [logged] = local_store.get_run(run_id).inputs.dataset_inputs
        assert (logged.dataset.name, logged.dataset.digest) == ("train", dataset.digest)
    from mlflow.exceptions import MlflowException

    run_id = local_store.create_run(experiment).info.run_id
    for raced in (RacedInserts(local_store, mlflow_run.DATASET_TRIES), RacedInserts(local_store, 1, "store down")):
        with pytest.raises(MlflowException):  # the same failure every time, or another failure: not retried past it
            mlflow_run.Run(raced, run_id).log_dataset(frame, "train", tmp_path / "train.parquet", "training")
        assert raced.calls == min(raced.failures, mlflow_run.DATASET_TRIES)


def test_processes_creating_the_experiment_at_once_all_succeed(tracking_server, tmp_path):
    base, _ = tracking_server
    ids = race(client_env(base, tmp_path), tmp_path)
    found = MlflowClient(base).search_experiments(view_type=ViewType.ALL, filter_string="name = 'raced'")
    assert [e.experiment_id for e in found] == list(ids)  # one experiment, and every process got it
    assert found[0].tags[tracking.EXPERIMENT_KIND_TAG] == "custom_model_development"


def test_processes_opening_a_new_sqlite_store_at_once_all_succeed(tmp_path):
    """Queued DVC experiments started together on a fresh clone: MLflow creates the database's
    tables on first use, which fails in all but one process unless `tracking.client` serialises it."""
    env = without_tracking_env()
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    ids = race({**env, "MLFLOW_TRACKING_URI": uri, "DVC_ROOT": str(tmp_path)}, tmp_path)
    assert ids == {MlflowClient(uri).get_experiment_by_name("raced").experiment_id}
