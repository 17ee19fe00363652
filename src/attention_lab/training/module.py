"""The LightningModule that trains a translation model (recurrent or Transformer): loss, steps,
optimizer, logged metrics.

Logged: `train/loss` and `train/nll` (every `trainer.log_every_n_steps` steps, when the logger
records them), and after every validation `train/mean_loss`, `train/mean_nll` and
`train/tokens_per_s` (d2l's throughput: non-padding target tokens per second of training; on several
processes, all their tokens over the slowest one's seconds), over the training since the previous
validation, and `val/loss`, `val/ppl` and `val/bleu` (greedy, through the same `Translator` as
`evaluate`; sacrebleu's corpus BLEU, 0-100). `loss` is what is trained (label-smoothed when
`optim.label_smoothing` > 0), `nll` the negative log-likelihood, which is what
`val/loss` measures: the two compare.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import pytorch_lightning as pl
import torch
from torch import Tensor
from pytorch_lightning.utilities import rank_zero_info
from torchmetrics import MeanMetric

from attention_lab.config import param
from attention_lab.data.tokenizer import Tokenizer
from attention_lab.errors import UserError
from attention_lab.inference.model_file import LoadedModel
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.model.fused_attention import allowed_kernels, packed_rows
from attention_lab.model.encoder_decoder import EncoderDecoder
from attention_lab.model.loss import token_loss
from attention_lab.model.transformer import TransformerSeq2Seq
from attention_lab.training.corpus_bleu import CorpusBLEU
from attention_lab.training.cuda_graphs import GraphedTraining
from attention_lab.training.training_pass import Losses, training_losses


@dataclass(frozen=True)
class OptimParams:
    lr: float = param(0.005, gt=0)
    weight_decay: float = param(0.0, ge=0)
    label_smoothing: float = param(0.0, ge=0, lt=1)
    grad_clip: float | None = param(1.0, gt=0)  # max gradient norm (d2l clips at 1); null = off
    # linear: warm-up, then linear decay to 0 over max_epochs, trainer.budget_updates or trainer.budget_minutes;
    # cosine: over max_epochs; plateau: halve lr when val/bleu stalls.
    schedule: Literal["none", "linear", "cosine", "plateau"] = "none"
    warmup_steps: int = param(0, ge=0)  # linear schedule only
    # Adam's β2 and ε: PyTorch's defaults; Vaswani et al. (2017, §5.3) train the Transformer with 0.98 and 1e-9.
    adam_beta2: float = param(0.999, gt=0, lt=1)
    adam_eps: float = param(1e-8, gt=0)


# The project's own valid split: every source is decoded greedily, however long (outputs stay capped).
# Words the model writes twice in a row stay: validation scores the model, stutters included.
VALIDATION_SEARCH = SearchParams(beam_size=1, max_source_pieces=sys.maxsize, drop_repeats=False)


# How a validation's metrics are logged: each is the same on every DDP process by then (torchmetrics'
# `compute` and the reductions above gathered them), which Lightning cannot know; unsynced, it warns once a
# metric. Their maximum over processes is each value exactly (a mean could round), one collective a metric.
SAME_ON_EVERY_RANK = {"sync_dist": True, "reduce_fx": "max"}


class DivergedError(UserError):
    pass


class Seq2SeqModule(pl.LightningModule):
    """Teacher-forced training of `model`; validation decodes greedily for BLEU."""

    def __init__(self, model: EncoderDecoder, optim: OptimParams, tokenizer: Tokenizer,
                 graph_batches: tuple[int, int | None] | None = None,
                 attention_kernels: tuple[str, ...] | None = None, attention_packing: int | None = None,
                 compile_training: bool = False) -> None:
        """`graph_batches`: (batch_size, batch_tokens) of the training batches, to replay a
        Transformer's training passes on CUDA as graphs of padded batches (`cuda_graphs.py`); None: off.
        `attention_kernels`: the kernels its teacher-forced passes may attend with (`allowed_kernels`);
        `attention_packing`: the tokens of a row of sentences attending side by side (`packed_rows`);
        `compile_training`: the training passes' logits and loss compiled (`training_pass.py`)."""
        super().__init__()
        self.model, self.optim, self.tokenizer = model, optim, tokenizer
        self.graph_batches, self.attention_kernels = graph_batches, attention_kernels
        self.attention_packing, self.compile_training = attention_packing, compile_training
        self._graphed: GraphedTraining | None = None
        self._train_losses: Losses | None = None  # set when training starts: a closure cannot be pickled
        self.val_loss = MeanMetric()
        self.val_bleu = CorpusBLEU()
        self._pending: list[tuple[int, int, Tensor]] = []  # (epoch, step, loss is finite) not yet read back
        # Training since the last validation (a stretch): summed loss and NLL, target tokens, seconds.
        self._stretch_loss = torch.zeros(2)
        self._stretch_tokens = 0
        self._stretch_start: float | None = None
        self._train_seconds = 0.0

    def forward(self, src: Tensor, src_len: Tensor, tgt_in: Tensor) -> Tensor:
        with self._attention_settings():
            return self.model(src, src_len, tgt_in)

    @contextlib.contextmanager
    def _attention_settings(self) -> Iterator[None]:
        # Set per pass, not per process: every DDP process (spawned ones too) and every graph capture sees it.
        with allowed_kernels(self.attention_kernels), packed_rows(self.attention_packing):
            yield

    # -- training ---------------------------------------------------------------------------------

    def on_train_start(self) -> None:
        # The recurrent models' packed sequences read lengths on the host, which a graph cannot hold.
        if self.graph_batches and self.device.type == "cuda" and isinstance(self.model, TransformerSeq2Seq):
            dtype = {"bf16-mixed": torch.bfloat16, "16-mixed": torch.float16}.get(self.trainer.precision)
            self._graphed = GraphedTraining(self.model, *self.graph_batches, dtype)
        self._train_losses = training_losses(self._graphed or self.model, self.optim.label_smoothing,
                                             self.compile_training)
        self._new_stretch()

    def _new_stretch(self) -> None:
        self._stretch_loss = torch.zeros(2, device=self.device)  # (loss, NLL) summed
        self._stretch_tokens = 0
        self._stretch_start, self._train_seconds = None, 0.0

    def on_train_batch_start(self, batch: dict, batch_idx: int) -> None:
        # A stretch's clock starts with its first batch: the checkpoints written after a validation
        # (over half a gigabyte for a GPU-sized model and its Adam state) and the loader's start are
        # not training time.
        if self._stretch_start is None:
            self._stretch_start = time.perf_counter()

    def training_step(self, batch: dict, batch_idx: int) -> dict:
        loss, nll = self._losses(batch)
        nll = nll.detach()
        self._stretch_loss += torch.stack([loss.detach(), nll]) * batch["n_tokens"]
        self._stretch_tokens += batch["n_tokens"]
        self._watch(loss)
        # The logger records step metrics only every `log_every_n_steps` steps, and `self.log` costs
        # ~10 % of a small model's step: it is called on the steps that are recorded.
        if (self.global_step + 1) % self.trainer.log_every_n_steps == 0 or self.trainer.should_stop:
            self.log("train/loss", loss, prog_bar=True, batch_size=batch["n_tokens"])
            self.log("train/nll", nll, batch_size=batch["n_tokens"])
            self._log_step(self.global_step + 1)  # the update this loss makes
        return {"loss": loss, "nll": nll}

    def _losses(self, batch: dict) -> tuple[Tensor, Tensor]:
        """(the loss trained on, the NLL) of the batch's teacher-forced logits (`token_losses`)."""
        with self._attention_settings():
            return self._train_losses(batch["src"], batch["src_len"], batch["tgt_in"], batch["tgt_out"])

    def _watch(self, loss: Tensor) -> None:
        # Checking finiteness needs the value on the host; on CUDA that waits for the device, so
        # the flags are read back in groups (as often as Lightning logs), naming the first bad step.
        self._pending.append((self.current_epoch, self.global_step, torch.isfinite(loss.detach())))
        if loss.device.type == "cpu" or len(self._pending) >= self.trainer.log_every_n_steps:
            self._raise_if_diverged()

    def _raise_if_diverged(self) -> None:
        pending, self._pending = self._pending, []
        if pending and not bool(torch.stack([finite for *_, finite in pending]).all()):
            epoch, step = next((e, s) for e, s, finite in pending if not bool(finite))
            raise DivergedError(f"non-finite training loss at epoch {epoch}, step {step}: lower "
                                "train_seq2seq.optim.lr or set train_seq2seq.optim.grad_clip")

    def on_train_epoch_end(self) -> None:
        self._raise_if_diverged()

    def on_train_end(self) -> None:
        if self._graphed is not None and not self._graphed.failed:
            rank_zero_info(f"CUDA graphs: {len(self._graphed.graphs)} batch shapes recorded, each replayed since")

    # -- validation -------------------------------------------------------------------------------

    def on_validation_epoch_start(self) -> None:
        if not self.trainer.sanity_checking and not self._train_seconds and self._stretch_start is not None:
            if self.device.type == "cuda":  # the stretch's queued kernels are training time too
                torch.cuda.synchronize(self.device)
            self._train_seconds = time.perf_counter() - self._stretch_start
        self.val_loss.reset()
        self.val_bleu.reset()

    def validation_step(self, batch: dict, batch_idx: int, dataloader_idx: int = 0) -> None:
        if dataloader_idx == 0:
            logits = self(batch["src"], batch["src_len"], batch["tgt_in"])  # (B, T, V)
            self.val_loss.update(token_loss(logits, batch["tgt_out"]), weight=batch["n_tokens"])
            return
        translator = Translator(LoadedModel(self.model, self.tokenizer), self.device)
        hyps = [t.text for t in translator.translate(batch["sources"], VALIDATION_SEARCH)]
        self.val_bleu.update(hyps, batch["refs"])

    def on_validation_epoch_end(self) -> None:
        if self.trainer.sanity_checking:
            return
        loss = self.val_loss.compute()
        metrics = {"val/loss": loss, "val/ppl": loss.exp(), "val/bleu": self.val_bleu.compute()}
        if self._stretch_tokens:
            # Summed over ranks so that DDP reports the throughput of the whole job, over the seconds of its
            # slowest process (each waits for the others at every update).
            strategy = self.trainer.strategy
            totals = strategy.reduce(
                torch.cat([self._stretch_loss, torch.tensor([float(self._stretch_tokens)], device=self.device)]),
                reduce_op="sum")
            seconds = strategy.reduce(torch.tensor(self._train_seconds, device=self.device), reduce_op="max")
            metrics["train/mean_loss"], metrics["train/mean_nll"] = totals[0] / totals[2], totals[1] / totals[2]
            metrics["train/tokens_per_s"] = totals[2] / seconds.clamp(min=1e-9)
            metrics["train/seconds"] = seconds
        self.log_dict(metrics, **SAME_ON_EVERY_RANK)
        self._log_step(self.global_step, **SAME_ON_EVERY_RANK)
        self._new_stretch()

    def _log_step(self, updates: int, **options) -> None:
        # Lightning sends a logged "step" to the logger as the metrics' step, in place of its count of
        # batches before the update: MLflow's curves then share history.csv's and train_loss.csv's x,
        # the number of updates made.
        self.log("step", float(updates), batch_size=1, **options)

    # -- optimization -----------------------------------------------------------------------------

    def configure_gradient_clipping(self, optimizer: torch.optim.Optimizer, gradient_clip_val: float | None = None,
                                    gradient_clip_algorithm: str | None = None) -> None:
        # Lightning's own clipping refuses an optimizer that unscales its gradients itself, as the
        # fused Adam does, under mixed precision, for fear of clipping scaled gradients. bf16 scales
        # nothing, and under fp16 the fused kernel is not used (`configure_optimizers`), so Lightning
        # has unscaled them by now: the norm is clipped here, as Lightning's would be.
        if gradient_clip_val:
            params = [p for group in optimizer.param_groups for p in group["params"]]
            torch.nn.utils.clip_grad_norm_(params, gradient_clip_val, foreach=True)

    def configure_optimizers(self) -> dict:
        # The fused kernel updates all parameters in one launch (CPU and CUDA): 3.4x a foreach
        # update on a GPU-sized model (docs/speed.md). Under fp16 the loss scaler would hand it
        # scaled gradients to clip, so there the foreach kernel updates.
        fused = self.device.type in ("cpu", "cuda") and self.trainer.precision != "16-mixed"
        optimizer = torch.optim.Adam(self.parameters(), lr=self.optim.lr, betas=(0.9, self.optim.adam_beta2),
                                     eps=self.optim.adam_eps, weight_decay=self.optim.weight_decay, fused=fused)
        if self.optim.schedule == "linear":  # set step by step by the ScheduleCallback
            return {"optimizer": optimizer}
        if self.optim.schedule == "cosine":
            scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=self.trainer.max_epochs)
            return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "epoch"}}
        if self.optim.schedule == "plateau":
            scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", factor=0.5, patience=2)
            return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "monitor": "val/bleu"}}
        return {"optimizer": optimizer}
