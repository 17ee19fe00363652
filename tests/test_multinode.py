"""The README's multi-node command, run for real: two `torchrun` launchers on loopback, each a node
of one CPU process (gloo), train a tiny Transformer on the generated corpus together. The project's
one distributed training: rank 0 alone writes and records, and averaging's scoring, a validation
after training, runs on every process."""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import pytorch_lightning as pl
import torch
from conftest import REPO, TINY_TRAINING, TINY_TRANSFORMER
from mlflow import MlflowClient
from servers import free_port

from attention_lab.config import from_mapping
from attention_lab.inference.model_file import LoadedModel, load_model
from attention_lab.stage import VERBOSE
from attention_lab.training.datamodule import TranslationDataModule
from attention_lab.training.module import Seq2SeqModule
from attention_lab.training.run import Seq2SeqParams, resolve_precision

NODES = 2
VALIDATIONS = 4
EXPERIMENT = "multinode"
# Many small batches of unequal lengths, an odd number of them: padding the nodes' shares by
# repetition (counting some sentences twice) would then change the sums.
DATA = {**TINY_TRAINING["data"], "batch_size": 5, "batch_tokens": 130, "val_bleu_size": 40}


def readme_command() -> list[str]:
    """The README's multi-node `torchrun` line, as words."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(r"`(torchrun --nnodes=2 [^`]+)`", text.replace("\n", " "))
    assert found, "README: no multi-node torchrun command"
    return shlex.split(re.sub(r"\s+", " ", found.group(1)))


def node_command(node: int, port: int, params: Path, paths, folder: Path) -> list[str]:
    """The README's command for node `node` of this machine: one process per node, the master on
    loopback, each node with output folders of its own (as separate machines have)."""
    words = []
    for word in readme_command():
        word = word.replace("HOST", "127.0.0.1").replace("29500", str(port)).replace("RANK", str(node))
        words.append("--nproc-per-node=1" if word.startswith("--nproc-per-node=") else word)
    assert words[-1] == "..." and "-m" in words, words  # the stage's own arguments follow
    stage = ["--params", params, "--data", paths.data, "--tokenizer", paths.tokenizer,
             "--out", folder / "model", "--reports", folder / "reports"]
    return [str(Path(sys.executable).parent / words[0]), *words[1:-1], *map(str, stage)]


@pytest.fixture(scope="module")
def trained(tmp_path_factory, tiny_data):
    """(data paths, the folder of each node) after the two-node run."""
    root, paths = tmp_path_factory.mktemp("multinode"), tiny_data
    trainer = {**TINY_TRAINING["trainer"], "max_epochs": 2, "validations": VALIDATIONS, "average_last": 2,
               "num_nodes": NODES}  # as the README sets it
    params = root / "params.yaml"
    params.write_text(json.dumps({"train_seq2seq": {**TINY_TRAINING, "data": DATA, "model": TINY_TRANSFORMER,
                                                    "trainer": trainer},
                                  "mlflow": {"experiment": EXPERIMENT}}))
    port = free_port()
    # gloo binds the address the host name resolves to unless told the interface: loopback here.
    # Quiet, as a user runs it (`ATTENTION_LAB_VERBOSE` unset).
    env = {**os.environ, "OMP_NUM_THREADS": "1", "GLOO_SOCKET_IFNAME": "lo", "PYTHONUNBUFFERED": "1"}
    env.pop(VERBOSE, None)
    folders = [root / f"node{node}" for node in range(NODES)]
    jobs = [subprocess.Popen(node_command(node, port, params, paths, folders[node]), cwd=REPO, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for node in range(NODES)]
    try:
        logs = [job.communicate(timeout=240)[0] for job in jobs]
    finally:
        for job in jobs:
            job.kill()
    assert [job.returncode for job in jobs] == [0] * NODES, "\n".join(
        f"node {node}:\n{log[-3000:]}" for node, log in enumerate(logs))
    return paths, folders, logs


def exported(paths, folder: Path) -> tuple[Seq2SeqParams, LoadedModel, TranslationDataModule]:
    """The run's params, the model a node exported, and the run's data for one process to read."""
    params = from_mapping(Seq2SeqParams, {**TINY_TRAINING, "data": DATA}, "train_seq2seq")
    loaded = load_model(folder / "model")
    return params, loaded, TranslationDataModule(paths.data, loaded.tokenizer, params.data, params.seed)


def test_two_nodes_train_together(trained):
    paths, folders, logs = trained
    # A quiet stage prints none of Lightning's distributed start-up lines, on either node.
    noise = ("Initializing distributed", "GLOBAL_RANK", "distributed_backend=", "All distributed processes")
    assert not [line for log in logs for line in log.splitlines() if any(n in line for n in noise)], logs
    # Every metric a validation logs is the same on both processes, and logged saying so: Lightning warns
    # of any it would have to assume differs (`sync_dist`).
    assert not any("sync_dist" in log for log in logs), [line for log in logs for line in log.splitlines()
                                                         if "sync_dist" in line]
    metrics = json.loads((folders[0] / "reports" / "metrics.json").read_text())
    assert metrics["epochs"] == 2 and torch.isfinite(torch.tensor(metrics["train_loss"]))
    # The nodes met: each made its share of the updates of a world of two, not all of them.
    _, _, data = exported(paths, folders[0])
    data.setup("fit")
    assert metrics["updates"] == sum(data.steps_per_epoch(2, NODES, 0)) < sum(data.steps_per_epoch(2)), metrics
    history = (folders[0] / "reports" / "history.csv").read_text().splitlines()
    assert len(history) == 1 + VALIDATIONS == 1 + metrics["validations"], history  # the nodes validated together
    assert metrics["averaged_validations"] == 2 and metrics["average_val_bleu"] >= 0
    assert load_model(folders[0] / "model").model.params.arch == "transformer"


def test_only_rank_0_writes(trained):
    _, folders, _ = trained
    assert sorted(p.name for p in (folders[0] / "model").iterdir()) == ["mlflow_run.json", "model.pt"]
    assert sorted(p.name for p in (folders[0] / "reports").iterdir()) == ["history.csv", "metrics.json",
                                                                           "train_loss.csv"]
    written = sorted(str(p.relative_to(folders[1])) for p in folders[1].rglob("*")) if folders[1].exists() else []
    assert written == [], written
    client = MlflowClient()
    assert len(client.search_runs([client.get_experiment_by_name(EXPERIMENT).experiment_id])) == 1


def test_validation_equals_one_processs(trained):
    """The model the two nodes exported, validated by one process on the same split, gives the
    val metrics the two nodes recorded for it: each node validated a disjoint share of the
    sentences and the sums were added up, neither repeated nor dropped."""
    paths, folders, _ = trained
    recorded = json.loads((folders[0] / "reports" / "metrics.json").read_text())
    params, loaded, data = exported(paths, folders[0])
    trainer = pl.Trainer(accelerator="cpu", devices=1, logger=False, enable_progress_bar=False,
                         enable_model_summary=False, use_distributed_sampler=False,
                         precision=resolve_precision(params.trainer.precision, "cpu"))  # as the nodes trained
    one = trainer.validate(Seq2SeqModule(loaded.model, params.optim, loaded.tokenizer), datamodule=data,
                           verbose=False)[0]
    assert [len(loader) % 2 for loader in data.val_dataloader()] == [1, 1]  # loss pairs, BLEU sources
    assert one["val/bleu"] == pytest.approx(recorded["val_bleu"], abs=1e-4)
    assert one["val/loss"] == pytest.approx(recorded["val_loss"], rel=1e-5)
    assert one["val/ppl"] == pytest.approx(recorded["val_ppl"], rel=1e-5)
