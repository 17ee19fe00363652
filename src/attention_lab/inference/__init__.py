"""Translating with a trained model: search, the model file, the translator. No training code."""

from collections.abc import Iterable

# What inference never imports: the training stack, TorchDynamo (`trainer.compile`'s, over a second of
# start-up), and the Bahdanau decoder's hand-written backward with its GRU cell (only teacher forcing
# imports them). The tests and `attention-lab bench` check it.
TRAINING_ONLY = ("pytorch_lightning", "lightning", "lightning_fabric", "mlflow", "dvc", "torch._dynamo",
                 "attention_lab.model.bahdanau_backward", "attention_lab.model.gru_cell")


def training_only(modules: Iterable[str]) -> list[str]:
    """The module names in `modules` (e.g. `sys.modules`) that are, or sit inside, a training-only one."""
    return sorted(name for name in modules if any(name == m or name.startswith(m + ".") for m in TRAINING_ONLY))
