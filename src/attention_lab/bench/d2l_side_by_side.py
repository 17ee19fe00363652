"""d2l 0.17.6's own training loop against the project's, at d2l's seed configuration, side by side
in one process on one machine (`make bench-d2l`).

d2l (§10.4, Bahdanau attention): `d2l.train_seq2seq` on `d2l.load_data_nmt(64, 10)` (600 pairs),
embeddings and hidden 32, 2 GRU layers, dropout 0.1, lr 0.005; its decoder class is the chapter's
code cell, reproduced below because the d2l package does not ship it. d2l prints target tokens/s
of its last epoch; the project's figure is `train_seq2seq`'s (epochs after the first). The two
runs alternate (project, d2l, project) so that a machine slowing down shows. `d2l/torch.py`
imports torchvision, IPython and matplotlib_inline at the top, which the NMT code never uses:
stub modules stand in for them.

d2l's printed figure is one epoch, its last, which includes drawing its loss curve: a noisy
figure (20 % from run to run) and not all training. The ratio is taken against d2l measured as
the project is: target tokens (d2l's `Y_valid_len`) over the epochs after the first, timed at its
data iterator, with its plot a no-op as its display already is. Its printed figure is reported
beside it.

usage: python -m attention_lab.bench.d2l_side_by_side CORPUS_ZIP [EPOCHS]
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

STUBS = {
    "torchvision/__init__.py": "transforms = None\n",
    "torchvision/transforms.py": "",
    "IPython/__init__.py": "from . import display\nversion_info = (8, 30, 0)\ndef get_ipython():\n    return None\n",
    "IPython/display.py": "def display(*a, **k):\n    pass\ndef clear_output(*a, **k):\n    pass\n",
    "matplotlib_inline/__init__.py": "from . import backend_inline\n",
    "matplotlib_inline/backend_inline.py": "def set_matplotlib_formats(*a, **k):\n    pass\n",
}


class EpochClock:
    """d2l's data iterator, noting when each epoch asks for its first batch and the target tokens
    it is dealt."""

    def __init__(self, batches) -> None:
        self.batches, self.starts, self.tokens = batches, [], []

    def __iter__(self):
        self.starts.append(time.perf_counter())
        self.tokens.append(0)
        for batch in self.batches:
            self.tokens[-1] += int(batch[3].sum())
            yield batch


class NoPlot:
    """Stands in for `d2l.Animator`: the loss curve d2l draws every 10 epochs is not training."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def add(self, *args) -> None:
        pass


def d2l_run(corpus: Path, epochs: int, work: Path) -> dict:
    for name, text in STUBS.items():
        (work / "stubs" / name).parent.mkdir(parents=True, exist_ok=True)
        (work / "stubs" / name).write_text(text)
    sys.path.insert(0, str(work / "stubs"))
    import matplotlib
    matplotlib.use("Agg")
    import torch
    from d2l import torch as d2l
    from torch import nn

    (work / "data").mkdir(exist_ok=True)
    (work / "run").mkdir(exist_ok=True)
    shutil.copy(corpus, work / "data" / "fra-eng.zip")
    os.chdir(work / "run")  # d2l reads ../data/fra-eng.zip
    # The mirror is a repacked zip of the same fra.txt: its own sha1 lets d2l skip the download.
    d2l.DATA_HUB["fra-eng"] = (d2l.DATA_URL + "fra-eng.zip", hashlib.sha1(corpus.read_bytes()).hexdigest())

    class Seq2SeqAttentionDecoder(d2l.AttentionDecoder):  # d2l 0.17.6 §10.4, the chapter's code cell
        def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0, **kwargs):
            super().__init__(**kwargs)
            self.attention = d2l.AdditiveAttention(num_hiddens, num_hiddens, num_hiddens, dropout)
            self.embedding = nn.Embedding(vocab_size, embed_size)
            self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
            self.dense = nn.Linear(num_hiddens, vocab_size)

        def init_state(self, enc_outputs, enc_valid_lens, *args):
            outputs, hidden_state = enc_outputs
            return (outputs.permute(1, 0, 2), hidden_state, enc_valid_lens)

        def forward(self, X, state):
            enc_outputs, hidden_state, enc_valid_lens = state
            X = self.embedding(X).permute(1, 0, 2)
            outputs, self._attention_weights = [], []
            for x in X:
                query = torch.unsqueeze(hidden_state[-1], dim=1)
                context = self.attention(query, enc_outputs, enc_outputs, enc_valid_lens)
                x = torch.cat((context, torch.unsqueeze(x, dim=1)), dim=-1)
                out, hidden_state = self.rnn(x.permute(1, 0, 2), hidden_state)
                outputs.append(out)
                self._attention_weights.append(self.attention.attention_weights)
            outputs = self.dense(torch.cat(outputs, dim=0))
            return outputs.permute(1, 0, 2), [enc_outputs, hidden_state, enc_valid_lens]

    torch.manual_seed(0)
    train_iter, src_vocab, tgt_vocab = d2l.load_data_nmt(64, 10)
    encoder = d2l.Seq2SeqEncoder(len(src_vocab), 32, 32, 2, 0.1)
    decoder = Seq2SeqAttentionDecoder(len(tgt_vocab), 32, 32, 2, 0.1)
    printed, clock = io.StringIO(), EpochClock(train_iter)
    d2l.Animator = NoPlot
    with contextlib.redirect_stdout(printed):
        d2l.train_seq2seq(d2l.EncoderDecoder(encoder, decoder), clock, 0.005, epochs, tgt_vocab, d2l.try_gpu())
    end = time.perf_counter()
    loss, printed_tokens_per_s = re.search(r"loss ([\d.]+), ([\d.]+) tokens/sec", printed.getvalue()).groups()
    return {"tokens_per_s": round(sum(clock.tokens[1:]) / (end - clock.starts[1]), 1),
            "printed_last_epoch_tokens_per_s": float(printed_tokens_per_s), "final_train_loss": float(loss),
            "epochs": epochs}


def project_run(corpus: Path, epochs: int, work: Path, device) -> dict:
    from attention_lab.bench.report import train_and_count, with_overrides
    from attention_lab.data.splits import SplitParams
    from attention_lab.training.paths import prepare_data

    paths = prepare_data(corpus, SplitParams(max_pairs=600), work)
    return train_and_count(with_overrides({}, (), epochs), paths, device, flop_batches=8)


def main() -> None:
    corpus = Path(sys.argv[1]).resolve()
    epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    import torch

    from attention_lab.bench.machine import machine
    from attention_lab.training.allocator import keep_freed_memory

    keep_freed_memory()  # as the project's training sets it: both loops run with the same allocator
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # what d2l's `try_gpu` picks

    with tempfile.TemporaryDirectory(prefix="d2l-side-by-side-") as tmp:
        root = Path(tmp)
        with contextlib.redirect_stdout(sys.stderr):
            first = project_run(corpus, epochs, root / "project1", device)
            d2l = d2l_run(corpus, epochs, root / "d2l")
            second = project_run(corpus, epochs, root / "project2", device)
    project = max(first["tokens_per_s"], second["tokens_per_s"])
    print(json.dumps({"machine": machine(device), "epochs": epochs,
                      "d2l_0.17.6": d2l, "project_before_d2l": first, "project_after_d2l": second,
                      "project_over_d2l": round(project / d2l["tokens_per_s"], 2),
                      "slower_project_over_d2l": round(min(first["tokens_per_s"], second["tokens_per_s"])
                                                       / d2l["tokens_per_s"], 2)}, indent=2))


if __name__ == "__main__":
    main()
