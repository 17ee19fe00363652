"""The GPU recipe (README: Scaling out): a Transformer sized for one card. Vaswani et al. 2017's
base model (§6.2: 6+6 blocks of width 512, 8 heads, FFN 2048), pre-norm as every Transformer here,
32,768-token batches, and no CUDA graphs, whose buckets' padding costs a model this size more than
the launches saved. Its sizes are the paper's and its learning rate, warm-up and dropout were set
by hand, not searched on the valid split; what it trains to on an H200 is in docs/speed.md. Its
model is chosen by validation BLEU, as when it was measured: on the CPU the validation loss chose
better (docs/model-choice.md), but the recipe trains 61 epochs, where the loss may turn while BLEU
still climbs, and no card has measured that choice yet.

Kept here once, as `dvc exp run -S` settings, for the README's command, `attention-lab bench` and
docs/scripts/gpu_runs.sh alike (a test holds the README to it)."""

from __future__ import annotations

TRAIN_SEQ2SEQ = (
    "model.arch=transformer", "model.transformer.layers=6", "model.transformer.model_size=512",
    "model.transformer.heads=8", "model.transformer.ffn_size=2048", "model.transformer.dropout=0.2",
    "data.batch_tokens=32768", "data.batch_size=4096",
    "optim.lr=0.0015", "optim.warmup_steps=500", "optim.label_smoothing=0.1",
    "trainer.cuda_graphs=false", "trainer.monitor=val_bleu",
)
EVALUATE = ("search.batch_size=1024",)  # a card decodes 1,024 sentences a batch as fast as 128
BUDGET_MINUTES = 8


def dvc_settings() -> list[str]:
    """The recipe as the `-S` values of `dvc exp run`, with its 8-minute budget."""
    return ([f"train_seq2seq.{setting}" for setting in TRAIN_SEQ2SEQ]
            + [f"evaluate.{setting}" for setting in EVALUATE]
            + [f"train_seq2seq.trainer.budget_minutes={BUDGET_MINUTES}"])
