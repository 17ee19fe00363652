"""Checkpoints written beside training: by another thread, from a copy taken when saved, tied
tensors once, in order, whole once the fit's teardown returns; a failed write is the stage's error
and no write follows it, unless the fit is already ending on an error of its own."""

import errno
import threading

import pytest
import torch
from pytorch_lightning.plugins.io import TorchCheckpointIO

from attention_lab.training.checkpoint_io import BackgroundCheckpointIO


@pytest.fixture
def held(monkeypatch):
    """Writes wait until the test lets them go (`gate`); the threads that ran them are recorded,
    and a write to a file named `full.ckpt` fails as on a full disk."""
    real, gate, threads = TorchCheckpointIO.save_checkpoint, threading.Event(), []

    def save(self, checkpoint, path, storage_options=None):
        assert gate.wait(timeout=60)
        threads.append(threading.current_thread())
        if ".full.ckpt." in str(path):  # the atomic writer's temporary for full.ckpt
            raise OSError(errno.ENOSPC, "No space left on device")
        real(self, checkpoint, path, storage_options)

    monkeypatch.setattr(TorchCheckpointIO, "save_checkpoint", save)
    yield gate, threads
    gate.set()  # a test that failed early leaves no write waiting


def test_a_checkpoint_is_written_by_another_thread_as_it_was_when_saved(held, tmp_path):
    gate, threads = held
    writer = BackgroundCheckpointIO()
    weights = torch.arange(6.0).reshape(2, 3)
    moments = {"exp_avg": torch.ones(5), "step": torch.tensor(3.0)}
    tied = {"embedding": weights, "output": weights.detach()}  # one memory under two names
    for name in ("best", "last"):
        writer.save_checkpoint({"state_dict": tied, "optimizer_states": [moments], "epoch": 0},
                               tmp_path / f"{name}.ckpt")
    weights.add_(100.0)  # training goes on while the writes wait
    moments["exp_avg"].zero_()
    assert not list(tmp_path.glob("*.ckpt"))  # saving returned before anything was written
    gate.set()
    writer.teardown()  # the fit's end: waits for the writes
    assert len(threads) == 2 and threading.main_thread() not in threads
    for name in ("best", "last"):
        written = torch.load(tmp_path / f"{name}.ckpt", weights_only=True)
        embedding, output = written["state_dict"]["embedding"], written["state_dict"]["output"]
        assert torch.equal(embedding, torch.arange(6.0).reshape(2, 3))
        assert embedding.untyped_storage().data_ptr() == output.untyped_storage().data_ptr()  # stored once
        assert torch.equal(written["optimizer_states"][0]["exp_avg"], torch.ones(5)) and written["epoch"] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.ckpt", "last.ckpt"]  # no temporary left


def test_a_failed_write_is_raised_at_the_end_and_no_write_follows_it(held, tmp_path):
    """`last.ckpt` written after a failed `best.ckpt` would name a best that is not there."""
    gate, threads = held
    writer = BackgroundCheckpointIO()
    for name in ("full", "last"):  # both queued before the first is written
        writer.save_checkpoint({"state_dict": {"w": torch.ones(2)}}, tmp_path / f"{name}.ckpt")
    gate.set()
    with pytest.raises(OSError) as error:
        writer.teardown()
    assert error.value.errno == errno.ENOSPC and error.value.filename == str(tmp_path / "full.ckpt")
    assert len(threads) == 1 and not list(tmp_path.iterdir())  # neither file, nor a temporary
    with pytest.raises(OSError):  # and the next save, were training to go on
        writer.save_checkpoint({"state_dict": {"w": torch.ones(2)}}, tmp_path / "last.ckpt")


def test_a_fit_ending_on_its_own_error_keeps_it_and_still_waits_for_the_writes(held, tmp_path, capsys):
    gate, threads = held
    writer = BackgroundCheckpointIO()
    for name in ("last", "full"):
        writer.save_checkpoint({"state_dict": {"w": torch.ones(2)}}, tmp_path / f"{name}.ckpt")
    gate.set()
    with pytest.raises(KeyboardInterrupt):
        try:
            raise KeyboardInterrupt  # as Lightning's handler runs teardown while Ctrl-C ends the fit
        except KeyboardInterrupt:
            writer.teardown()
            raise
    assert len(threads) == 2 and [p.name for p in tmp_path.iterdir()] == ["last.ckpt"]
    assert capsys.readouterr().err == ("warning: a checkpoint was not written: [Errno 28] No space left on device: "
                                       f"'{tmp_path / 'full.ckpt'}'\n")
