"""The `train_seq2seq` section of params.yaml: what `run` builds a training run from and `steps`
records, in a module of its own so that neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from attention_lab.config import param, seed_param
from attention_lab.model.params import ModelParams
from attention_lab.training.datamodule import DataParams
from attention_lab.training.module import OptimParams


@dataclass(frozen=True)
class TrainerParams:
    accelerator: Literal["auto", "cpu", "gpu", "cuda", "mps"] = "auto"
    devices: int | Literal["auto"] = param("auto", ge=1)
    strategy: Literal["auto", "ddp", "ddp_spawn"] = "auto"
    num_nodes: int = param(1, ge=1)
    precision: Literal["auto", "32-true", "bf16-mixed", "16-mixed", "64-true"] = "auto"  # auto: bf16 on CUDA
    max_epochs: int = param(250, ge=1)  # used when neither budget is set
    # Wall-clock minutes of training and the validations along it (the last validation follows); the
    # linear schedule decays to 0 over them.
    budget_minutes: float | None = param(None, gt=0)
    # Exactly this many optimizer updates, the linear schedule decaying to 0 over them: no clock is
    # involved, so the same seed, data, params and thread count give the same model, bit for bit.
    budget_updates: int | None = param(None, ge=1)
    # Validations spread evenly over the run (in updates, or in minutes of budget_minutes); the last
    # comes where training ends. Each is a point of the learning curves and a checkpoint candidate.
    validations: int = param(16, ge=1)
    # The validation score that chooses the model, which the average of average_last must match, and
    # early stopping watches: val_loss (lowest; the NLL of data.val_loss_size valid pairs) or val_bleu
    # (highest; greedy, data.val_bleu_size sources). Under the linear schedule the loss falls to the
    # end, as the whole valid split's BLEU rises, where 500 sources' BLEU picks earlier weights by
    # its noise (docs/model-choice.md).
    monitor: Literal["val_loss", "val_bleu"] = "val_loss"
    # The model is the average of the weights at the last N validations when that average scores at
    # least as well as the best validation by `monitor` (same sample); null = the best validation's weights.
    average_last: int | None = param(None, ge=2)
    # The model is an exponential moving average of the weights (training/ema.py), which every
    # validation scores: the decay kept per update; null = off. Not with average_last, which would
    # then average weights the EMA swapped in and out.
    ema_decay: float | None = param(None, gt=0, lt=1)
    early_stopping_patience: int | None = param(None, ge=1)  # validations without a better `monitor`
    log_every_n_steps: int = param(50, ge=1)
    # On CUDA, a Transformer's training passes replayed as CUDA graphs, one per bucket of padded
    # batch shapes (training/cuda_graphs.py): a small model's step is launch-bound there. A GPU-sized
    # one is not, and the buckets' padding then costs more than the launches saved (docs/speed.md).
    cuda_graphs: bool = True
    # The kernels scaled dot-product attention may train with, in PyTorch's order of preference
    # (`torch.nn.attention.SDPBackend`: flash, efficient, cudnn, math); null: PyTorch's choice.
    attention_kernels: tuple[Literal["flash", "efficient", "cudnn", "math"], ...] | None = None
    # Scaled dot-product attention (a Transformer's; an RNN's `scaled_dot` scorer's too) in training runs on
    # sentences side by side, rows of at most this many tokens, each sentence reading its own keys under a
    # mask (model/fused_attention.py): the same contexts in fewer, fuller kernel tiles; null: one a row.
    attention_packing: int | None = param(None, ge=2)
    # A Transformer's teacher-forced logits and loss compiled by `torch.compile` (training/training_pass.py):
    # the layer norms, residual sums, casts and the softmax over the vocabulary fused; the compiling
    # takes the first steps' time, and needs a C++ compiler (CPU) or Triton (CUDA). Not with
    # cuda_graphs, which would replay the compiled passes.
    compile: bool = False
    progress_bar: bool = True

    def validate(self) -> None:
        if self.attention_kernels == ():
            raise ValueError("attention_kernels: name at least one kernel, or null for PyTorch's choice")
        if self.attention_packing is not None and self.attention_kernels == ("flash",):
            raise ValueError("attention_packing: packed rows attend under a mask, which the flash kernel does not "
                             "take; allow efficient, cudnn or math too, or set attention_packing: null")
        if self.compile and self.cuda_graphs:
            raise ValueError("compile: compiled passes are not recorded as CUDA graphs; set trainer.cuda_graphs: "
                             "false with trainer.compile: true")
        if self.budget_minutes is not None and self.budget_updates is not None:
            raise ValueError(f"budget_updates: set one of trainer.budget_minutes ({self.budget_minutes}) and "
                             f"trainer.budget_updates ({self.budget_updates}), not both")
        if self.average_last is not None and self.ema_decay is not None:
            raise ValueError(f"ema_decay: set one of trainer.average_last ({self.average_last}) and "
                             f"trainer.ema_decay ({self.ema_decay}), not both")


@dataclass(frozen=True)
class Seq2SeqParams:
    seed: int = seed_param()
    data: DataParams = field(default_factory=DataParams)
    model: ModelParams = field(default_factory=ModelParams)
    optim: OptimParams = field(default_factory=OptimParams)
    trainer: TrainerParams = field(default_factory=TrainerParams)

    def validate(self) -> None:
        if self.trainer.compile and self.model.arch != "transformer":
            raise ValueError(f"trainer.compile: only a Transformer's training passes compile; model.arch is "
                             f"{self.model.arch!r}")
        for key in ("budget_minutes", "budget_updates"):
            if getattr(self.trainer, key) is not None and self.optim.schedule != "linear":
                raise ValueError(f"optim.schedule: trainer.{key} needs the linear schedule, got "
                                 f"{self.optim.schedule!r}")
