"""`attention-lab bench`: training throughput (d2l's tokens/s) and decoding speed, in one process.

Training runs the real `train_seq2seq` on the first `pairs` corpus lines in a temporary folder;
tokens/s is d2l's definition (non-padding target tokens per second of training, validation
excluded), averaged over epochs after the first (warm-up). Decoding times greedy and beam search
over the test sources, batched and one sentence at a time.
"""

from __future__ import annotations

import contextlib
import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import torch
import yaml

from attention_lab.config import ConfigError, from_mapping, read_params, to_dict
from attention_lab.splits import (
    CorpusParams,
    TokenizeParams,
    load_split,
    references,
    save_splits,
    tokenize_corpus,
)
from attention_lab.tokenizer import TOKENIZER_FILE, VocabParams
from attention_lab.tokenizer_training import build_tokenizer
from attention_lab.tracking import MlflowParams
from attention_lab.training import Seq2SeqParams, TrainPaths, train_seq2seq
from attention_lab.translator import SearchParams, Translator


@dataclass(frozen=True)
class BenchOptions:
    params: str | None  # params.yaml whose train_seq2seq section to use; None = the seed config
    overrides: tuple[str, ...]  # "key=value" for train_seq2seq, e.g. "model.hidden_size=256"
    corpus: str
    pairs: int
    epochs: int
    model: str | None  # decode with this model instead of the benchmark's own
    data: str | None  # tokenized splits for --model
    beam_size: int
    decode_sentences: int | None
    one_by_one: int


def bench_params(options: BenchOptions) -> Seq2SeqParams:
    section = read_params(options.params).get("train_seq2seq", {}) if options.params else {}
    for item in options.overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE")
        *parents, leaf = key.split(".")
        node = section
        for name in parents:
            node = node.setdefault(name, {})
        node[leaf] = yaml.safe_load(value)
    params = from_mapping(Seq2SeqParams, section, "train_seq2seq")
    return replace(params, trainer=replace(params.trainer, max_epochs=options.epochs, progress_bar=False,
                                           budget_minutes=None, early_stopping_patience=None))


def machine() -> dict:
    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else platform.processor() or "cpu"
    return {"device": device, "cpu_cores": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "torch": torch.__version__}


def decoding_speed(translator: Translator, sources: list[str], beam_size: int, one_by_one: int) -> dict:
    results = {}
    for name, beam in (("greedy", 1), ("beam", beam_size)):
        search = SearchParams(beam_size=beam)
        start = time.perf_counter()
        translator.translate(sources, search)
        batched = len(sources) / (time.perf_counter() - start)
        subset = sources[:one_by_one]
        start = time.perf_counter()
        for sentence in subset:
            translator.translate([sentence], search)
        single = len(subset) / (time.perf_counter() - start)
        results[name] = {"beam_size": beam, "sentences": len(sources),
                         "batched_sentences_per_s": round(batched, 1),
                         "one_by_one_sentences_per_s": round(single, 1),
                         "batching_speedup": round(batched / single, 1)}
    return results


def prepare_data(corpus: str | Path, tokenize: TokenizeParams, root: Path,
                 vocab: VocabParams = VocabParams()) -> TrainPaths:
    """The tokenize and vocab stages in one call, into `root` (any corpus checksum accepted): what
    a benchmark or a test trains on without running DVC."""
    splits, _ = tokenize_corpus(corpus, CorpusParams(sha256=None), tokenize)
    save_splits(root / "data", splits, tokenize)
    tokenizer, _ = build_tokenizer(splits, vocab)
    tokenizer.save(root / "vocab" / TOKENIZER_FILE)
    return TrainPaths(root / "data", root / "vocab", root / "model", root / "reports")


def run_benchmark(options: BenchOptions) -> dict:
    params = bench_params(options)
    with tempfile.TemporaryDirectory(prefix="attention-lab-bench-") as tmp:
        paths = prepare_data(options.corpus, TokenizeParams(max_pairs=options.pairs), Path(tmp))
        start = time.perf_counter()
        with contextlib.redirect_stdout(sys.stderr):  # stdout carries the JSON report alone
            metrics = train_seq2seq(params, MlflowParams(enabled=False), paths)
        wall = time.perf_counter() - start
        model_dir, data_dir = options.model or paths.out, options.data or paths.data
        if options.model and not options.data:
            raise ConfigError("--model needs --data, the tokenized splits to decode")
        sources = list(references(load_split(data_dir, "test")).index[: options.decode_sentences])
        decoding = decoding_speed(Translator.load(model_dir), sources, options.beam_size, options.one_by_one)
    return {"machine": machine(), "train_seq2seq": to_dict(params), "pairs": options.pairs,
            "training": {"epochs": metrics["epochs"], "tokens_per_s": metrics["tokens_per_s"],
                         "final_train_loss": metrics["train_loss"], "train_seconds": metrics["train_seconds"],
                         "wall_seconds": round(wall, 2), "parameters": metrics["parameters"]},
            "decoding": {"model": str(model_dir if options.model else "trained by this benchmark"), **decoding}}
