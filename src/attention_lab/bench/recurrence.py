"""The measured gain of the Bahdanau decoder's hand-written backward (`model/bahdanau_backward.py`):
a teacher-forced training step of the decoder through it, against plain autograd through T calls
of `BahdanauDecoder.step` (the path the tests hold it equal to), side by side in one process.

    python -m attention_lab.bench.recurrence [--params params.yaml] [--repeats 7] [--steps 5]

The model is params.yaml's `train_seq2seq.model` at its `train_tokenizer.subword.size`, in training mode
(dropout on). One timed step builds the decoder's initial state from encoder outputs (B, S, D)
and state (L, B, H) that need gradients, as the encoder's would, then runs forward and backward
- `recurrence`: the features (B, T, H) of every step, what the hand-written backward replaces;
- `decoder`: the logits (B, T, V) and the token loss, as in training (the output layer, the same
  on both paths, included).
The two paths alternate within each repeat, so that a machine shared with other work slows both
alike; the figures are medians over repeats. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch

from attention_lab.bench.machine import machine
from attention_lab.config import from_mapping, read_params
from attention_lab.model.decoder import BahdanauDecoder, Decoder
from attention_lab.model.loss import token_loss
from attention_lab.model.seq2seq import ModelParams, Seq2Seq

SHAPES = ((32, 16, 16), (8, 64, 64))  # (B, S, T): training's 512-token budget, short and long sentences


def training_step(decoder: BahdanauDecoder, handwritten: bool, scope: str, values, hidden, src_len, tgt) -> None:
    """One forward and backward of `scope`; `handwritten` picks `teacher_forced`'s fused path,
    otherwise the base class's loop over `step`."""
    decoder.zero_grad(set_to_none=True)
    state = decoder.init_state(values, hidden, src_len)
    features = decoder.teacher_forced(tgt, state) if handwritten else Decoder.teacher_forced(decoder, tgt, state)
    if scope == "decoder":
        token_loss(decoder.output(features), tgt).backward()
    else:
        features.sum().backward()  # features (B, T, H)


def time_shape(decoder: BahdanauDecoder, params: ModelParams, vocab: int, shape: tuple[int, int, int],
               repeats: int, steps: int) -> dict:
    """Per scope, milliseconds per training step of each path, medians of `repeats` interleaved
    timings of `steps` steps, and their ratio."""
    B, S, T = shape
    g = torch.Generator().manual_seed(0)
    values = torch.randn(B, S, params.key_size, generator=g).requires_grad_()  # (B, S, D)
    hidden = torch.randn(params.num_layers, B, params.hidden_size, generator=g).requires_grad_()  # (L, B, H)
    src_len = torch.randint(S // 2, S + 1, (B,), generator=g)  # (B,): padded rows, as batches have
    tgt = torch.randint(4, vocab, (B, T), generator=g)  # (B, T)
    times = {(scope, path): [] for scope in ("recurrence", "decoder") for path in ("handwritten", "autograd")}
    for round_ in range(repeats + 1):  # round 0 warms every path up and is not kept
        for (scope, path), kept in times.items():
            start = time.perf_counter()
            for _ in range(steps):
                training_step(decoder, path == "handwritten", scope, values, hidden, src_len, tgt)
            if round_:
                kept.append((time.perf_counter() - start) / steps * 1e3)
    ms = {key: statistics.median(t) for key, t in times.items()}
    result: dict = {"B": B, "S": S, "T": T}
    for scope in ("recurrence", "decoder"):
        handwritten, autograd = ms[scope, "handwritten"], ms[scope, "autograd"]
        result[scope] = {"handwritten_ms": round(handwritten, 1), "autograd_ms": round(autograd, 1),
                         "speedup": round(autograd / handwritten, 2)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--steps", type=int, default=5, help="training steps per timing")
    args = parser.parse_args()
    config = read_params(args.params)
    params = from_mapping(ModelParams, config["train_seq2seq"]["model"], "train_seq2seq.model")
    vocab = config["train_tokenizer"]["subword"]["size"]
    torch.manual_seed(0)
    decoder = Seq2Seq(params, vocab, vocab).train().decoder
    if not isinstance(decoder, BahdanauDecoder) or params.rnn != "gru" or params.attention != "additive":
        raise SystemExit("the hand-written backward serves a Bahdanau decoder with a GRU and additive attention")
    results = [time_shape(decoder, params, vocab, shape, args.repeats, args.steps) for shape in SHAPES]
    print(json.dumps({**machine(torch.device("cpu")), "embed_size": params.embed_size,
                      "hidden_size": params.hidden_size, "num_layers": params.num_layers, "vocab": vocab,
                      "repeats": args.repeats, "steps": args.steps, "shapes": results}, indent=1))


if __name__ == "__main__":
    main()
