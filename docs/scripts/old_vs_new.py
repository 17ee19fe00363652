"""Two commits' speed side by side in one run: the Transformer's training step, beam and greedy search.

Not part of the package: the measurement behind docs/speed.md's 2026-11-25 round. Two worker
processes, one per source tree (`PYTHONPATH`), one thread each, take turns block by block over the
same batches or sentences (old first in even blocks, new first in odd), so a machine whose speed
drifts slows both alike. Usage, from a checkout with the corpus at hand:

    git worktree add /tmp/old bcc30b2
    python docs/scripts/old_vs_new.py prepare /tmp/bench fra-eng.zip     # splits, tokenizer, 400 batches
    python docs/scripts/old_vs_new.py train /tmp/bench /tmp/old/src src 12   # 12 blocks of 10 training steps
    python docs/scripts/old_vs_new.py beam /tmp/bench /tmp/old/src src 6     # 6 blocks of 100 test sentences

`ARCH=rnn` measures params.yaml's default (Bahdanau) model instead. Decoding needs `model.pt`
(`rnn.pt`) in the folder: `train` saves the new side's weights after its blocks when
it is absent (a model that ends sentences, where an untrained one runs every beam to its limit).
Both sides load the same weights; their outputs are compared sentence by sentence.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ARCH = os.environ.get("ARCH", "model")  # "rnn": params.yaml's default Bahdanau model instead of its Transformer


def prepare(folder: Path, corpus: str) -> None:
    import torch

    from attention_lab.bench.pairs import epoch_batches
    from attention_lab.bench.report import with_overrides
    from attention_lab.config import from_mapping, read_params
    from attention_lab.data.splits import SplitParams
    from attention_lab.data.tokenizer import TokenizerParams
    from attention_lab.training.paths import prepare_data

    sections = read_params("params.yaml")
    vocab = from_mapping(TokenizerParams, sections.get("train_tokenizer", {}), "train_tokenizer")
    paths = prepare_data(corpus, SplitParams(), folder / "data", vocab)
    params = with_overrides(sections["train_seq2seq"], ("model.arch=transformer",), 1)
    data, [batches] = epoch_batches(paths, params, 1)
    random.Random(0).shuffle(batches)
    torch.save({"batches": batches[:400], "src_vocab": len(data.tokenizer.src), "tgt_vocab": len(data.tokenizer.tgt),
                "model": params.model, "rnn": with_overrides(sections["train_seq2seq"], (), 1).model},
               folder / "batches.pt")


def worker(kind: str, folder: Path) -> None:
    """Reads a block number per line, answers its seconds and work as a JSON line; -1 ends (and saves)."""
    import torch

    from attention_lab.model.loss import token_loss
    from attention_lab.model.seq2seq import build_model

    torch.set_num_threads(1)
    saved = torch.load(folder / "batches.pt", weights_only=False)
    torch.manual_seed(0)
    model = build_model(saved[ARCH], saved["src_vocab"], saved["tgt_vocab"])
    if kind == "train":
        model.train()
        optimizer = torch.optim.Adam(model.parameters(), lr=2e-3, fused=True)

        def step(batch: dict) -> None:  # the stage's step: loss, backward, clip at 1, fused Adam
            loss = token_loss(model(batch["src"], batch["src_len"], batch["tgt_in"]), batch["tgt_out"])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()

        for batch in saved["batches"][:5]:
            step(batch)

        def block(i: int) -> tuple[float, int]:
            batches = saved["batches"][5 + 10 * i : 15 + 10 * i]
            start = time.perf_counter()
            for batch in batches:
                step(batch)
            return time.perf_counter() - start, sum(b["n_tokens"] for b in batches)
    else:
        from attention_lab.data.splits import load_split, references
        from attention_lab.data.tokenizer import TOKENIZER_FILE, Tokenizer
        from attention_lab.inference.model_file import LoadedModel
        from attention_lab.inference.translator import SearchParams, Translator

        model.load_state_dict(torch.load(folder / f"{ARCH}.pt"))
        translator = Translator(LoadedModel(model, Tokenizer.load(folder / "data" / "tokenizer" / TOKENIZER_FILE)))
        sources = list(references(load_split(folder / "data" / "data", "test")).index)
        random.Random(0).shuffle(sources)
        search = SearchParams(beam_size=8 if kind == "beam" else 1)
        translator.translate(sources[:20], search)
        outputs: dict[int, list[str]] = {}

        def block(i: int) -> tuple[float, int]:
            start = time.perf_counter()
            outputs[i] = [t.text for t in translator.translate(sources[100 * i : 100 * i + 100], search)]
            return time.perf_counter() - start, 100
    print("ready", flush=True)
    for line in sys.stdin:
        if int(line) < 0:
            break
        seconds, work = block(int(line))
        print(json.dumps({"seconds": seconds, "work": work}), flush=True)
    result = {"outputs": [s for i in sorted(outputs) for s in outputs[i]]} if kind != "train" else {}
    if kind == "train" and not (folder / f"{ARCH}.pt").exists():
        torch.save(model.state_dict(), folder / f"{ARCH}.pt")
    print(json.dumps(result), flush=True)


def side_by_side(kind: str, folder: Path, old: str, new: str, blocks: int) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    procs = {side: subprocess.Popen([sys.executable, __file__, "worker", kind, str(folder)], text=True,
                                    env={**env, "PYTHONPATH": str(Path(src).resolve())},
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
             for side, src in (("new", new), ("old", old))}  # new first: its weights are the ones saved
    for proc in procs.values():
        assert proc.stdout.readline().strip() == "ready"
    times: dict[str, list[dict]] = {"old": [], "new": []}
    for i in range(blocks):
        for side in ("old", "new") if i % 2 == 0 else ("new", "old"):
            procs[side].stdin.write(f"{i}\n")
            procs[side].stdin.flush()
            times[side].append(json.loads(procs[side].stdout.readline()))
    ends = {}
    for side, proc in procs.items():
        proc.stdin.write("-1\n")
        proc.stdin.flush()
        ends[side] = json.loads(proc.stdout.readline())
        proc.wait()
    rate = {side: sum(t["work"] for t in ts) / sum(t["seconds"] for t in ts) for side, ts in times.items()}
    speedups = [o["seconds"] / n["seconds"] for o, n in zip(times["old"], times["new"])]
    report = {"kind": kind, "blocks": blocks, "unit": "target tokens/s" if kind == "train" else "sentences/s",
              "old": round(rate["old"], 1), "new": round(rate["new"], 1),
              "new_over_old": round(rate["new"] / rate["old"], 2),
              "per_block_median": round(statistics.median(speedups), 2),
              "per_block_range": [round(min(speedups), 2), round(max(speedups), 2)]}
    if kind != "train":
        pairs = list(zip(ends["old"]["outputs"], ends["new"]["outputs"]))
        report["sentences_compared"], report["outputs_differing"] = len(pairs), sum(a != b for a, b in pairs)
    return report


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "prepare":
        prepare(Path(args[0]), args[1])
    elif command == "worker":
        worker(args[0], Path(args[1]))
    else:
        print(json.dumps(side_by_side(command, Path(args[0]), args[1], args[2], int(args[3]))))
