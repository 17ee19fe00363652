"""Checkpoints written beside training: by another thread, from a copy taken when saved, in order,
whole once the fit's teardown returns, and a failed write is the stage's error."""

import errno
import threading

import pytest
import torch
from pytorch_lightning.plugins.io import TorchCheckpointIO

from attention_lab.training.checkpoint_io import BackgroundCheckpointIO


@pytest.fixture
def held(monkeypatch):
    """Writes wait until the test lets them go; the threads that ran them are recorded."""
    real, gate, threads = TorchCheckpointIO.save_checkpoint, threading.Event(), []

    def save(self, checkpoint, path, storage_options=None):
        assert gate.wait(timeout=60)
        threads.append(threading.current_thread())
        real(self, checkpoint, path, storage_options)

    monkeypatch.setattr(TorchCheckpointIO, "save_checkpoint", save)
    return gate, threads


def test_a_checkpoint_is_written_by_another_thread_as_it_was_when_saved(held, tmp_path):
    gate, threads = held
    writer = BackgroundCheckpointIO()
    weights = torch.arange(6.0).reshape(2, 3)
    moments = {"exp_avg": torch.ones(5), "step": torch.tensor(3.0)}
    for name in ("best", "last"):
        writer.save_checkpoint({"state_dict": {"w": weights}, "optimizer_states": [moments], "epoch": 0},
                               tmp_path / f"{name}.ckpt")
    weights.add_(100.0)  # training goes on while the writes wait
    moments["exp_avg"].zero_()
    assert not list(tmp_path.glob("*.ckpt"))  # saving returned before anything was written
    gate.set()
    writer.teardown()  # the fit's end: waits for the writes
    assert len(threads) == 2 and threading.main_thread() not in threads
    for name in ("best", "last"):
        written = torch.load(tmp_path / f"{name}.ckpt", weights_only=True)
        assert torch.equal(written["state_dict"]["w"], torch.arange(6.0).reshape(2, 3))
        assert torch.equal(written["optimizer_states"][0]["exp_avg"], torch.ones(5)) and written["epoch"] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.ckpt", "last.ckpt"]  # no temporary left


def test_a_failed_write_is_raised_when_training_ends_naming_the_file(held, monkeypatch, tmp_path):
    gate, _ = held
    holding = TorchCheckpointIO.save_checkpoint

    def full_disk(self, checkpoint, path, storage_options=None):
        holding(self, checkpoint, path, storage_options)  # waits for the gate, then writes
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(TorchCheckpointIO, "save_checkpoint", full_disk)
    writer = BackgroundCheckpointIO()
    writer.save_checkpoint({"state_dict": {"w": torch.ones(2)}}, tmp_path / "last.ckpt")  # returns: not written yet
    gate.set()
    with pytest.raises(OSError) as error:
        writer.teardown()
    assert error.value.errno == errno.ENOSPC and error.value.filename == str(tmp_path / "last.ckpt")
    assert not list(tmp_path.iterdir())  # neither the checkpoint nor its temporary
