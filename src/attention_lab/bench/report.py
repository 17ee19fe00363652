"""`attention-lab bench`: speed as ratios measured in one process, never as lone numbers.

In one run, on one machine, it measures:
- training throughput (d2l's target tokens/s: non-padding target tokens per second of training,
  validation excluded, epochs after the first) of d2l's seed configuration, of the default model
  (params.yaml), of the Transformer (the default with `model.arch=transformer`, on the same
  pairs and batches) and, on CUDA, of the GPU recipe (`training/gpu_recipe.py`, the same pairs in
  its own 32,768-token batches, RECIPE_EPOCHS epochs), all through the real `train_seq2seq` stage
  function;
- the machine's matrix-multiply peak, fp32 and bf16, before and after training, and the fraction of
  the peak of the dtype it ran in (bf16 under autocast) each training reaches, FLOPs counted by PyTorch (`flops.py`);
- each model's ceiling: the rate of its own matrix products timed alone (`flops.matmul_ceiling`),
  as a fraction of the peak, and the fraction of that ceiling training reaches;
- with `reference`: the seed model trained the textbook's way (`textbook.py`) on the same batches
  for the same epochs, and the project/reference ratio;
- decoding throughput, batched against one sentence at a time, greedy and beam, of both the default
  model (`decoding`) and the Transformer (`transformer.decoding`) (`inference_speed.py`); for a
  Transformer, the default search with its self-attention maps off and on (`self_maps` beside
  `greedy` and `beam`: sentences/s each way, and whether the outputs were the same);
- the start-up time of `attention-lab translate "Go."` in a fresh process, against `import torch`,
  and whether it imported the training stack;
- the wall-clock seconds of each part (`seconds`), to see where a run's time goes.
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import torch
import yaml

from attention_lab.bench.flops import matmul_ceiling, matmul_peak, training_flops_per_token
from attention_lab.bench.inference_speed import decoding_speed, startup
from attention_lab.stage import quiet
from attention_lab.bench.machine import machine
from attention_lab.bench.pairs import epoch_batches, sample_splits
from attention_lab.bench.textbook import TextbookSeq2Seq, train_reference
from attention_lab.config import ConfigError, from_mapping, read_params, to_dict
from attention_lab.data.splits import (
    SplitParams,
    load_split,
    references,
)
from attention_lab.data.tokenizer import TOKENIZER_FILE, Tokenizer, TokenizerParams
from attention_lab.inference.translator import Translator
from attention_lab.model.seq2seq import build_model
from attention_lab.tracking.store import MlflowParams
from attention_lab.training import gpu_recipe
from attention_lab.training.datamodule import pair_lengths
from attention_lab.training.paths import TrainPaths, prepare_data
from attention_lab.training.run import Seq2SeqParams, resolve_precision, train_seq2seq

RECIPE_EPOCHS = 4  # its batches are 64 times the default's: 4 epochs of 20,000 pairs make some 30 updates


@dataclass(frozen=True)
class BenchOptions:
    corpus: str
    pairs: int  # first corpus pairs for the seed configuration (d2l: 600)
    epochs: int  # seed configuration epochs (the first one warms up)
    params: str  # params.yaml whose train_seq2seq and train_tokenizer sections are the default model
    overrides: tuple[str, ...] = ()  # "key=value" for the default model's train_seq2seq
    transformer_overrides: tuple[str, ...] = ()  # "key=value" for the Transformer, after `overrides`
    gpu_recipe: bool | None = None  # train the GPU recipe too; None: on CUDA only
    recipe_overrides: tuple[str, ...] = ()  # "key=value" for the GPU recipe, after `overrides` and the recipe's own
    default_pairs: int = 20000
    default_epochs: int = 2
    splits: str | None = None  # the split stage's folder to sample the default model's pairs from
    tokenizer: str | None = None  # with `splits`: the pipeline's tokenizer folder
    reference: bool = False
    flop_batches: int = 8  # training batches whose FLOPs are counted
    model: str | None = None  # decode with this model instead of the benchmark's own
    data: str | None = None  # the split stage's folder for --model
    beam_size: int = 8
    decode_sentences: int | None = 500
    one_by_one: int = 100


def with_overrides(section: dict, overrides: tuple[str, ...], epochs: int) -> Seq2SeqParams:
    """train_seq2seq params from a section plus "a.b=value" overrides, run for `epochs` (no
    budget, no early stop, no progress bar, no averaging, and two validations: they cost wall-clock
    time, not measured throughput)."""
    section = json.loads(json.dumps(section))
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--set {item!r}: expected KEY=VALUE")
        *parents, leaf = key.split(".")
        node = section
        for name in parents:
            node = node.setdefault(name, {})
        node[leaf] = yaml.safe_load(value)
    params = from_mapping(Seq2SeqParams, section, "train_seq2seq")
    return replace(params, trainer=replace(params.trainer, max_epochs=epochs, progress_bar=False, budget_minutes=None,
                                           early_stopping_patience=None, validations=2, average_last=None))


@contextlib.contextmanager
def timed(seconds: dict, part: str) -> Iterator[None]:
    """Adds the wall-clock seconds of the block to `seconds[part]`."""
    start = time.perf_counter()
    try:
        yield
    finally:
        seconds[part] = round(seconds.get(part, 0.0) + time.perf_counter() - start, 1)


def significant(value: float, digits: int = 4) -> float:
    """Rounded to `digits` significant digits: a tiny model's fraction of a large peak stays non-zero."""
    return float(f"{value:.{digits}g}")


def train_and_count(params: Seq2SeqParams, paths: TrainPaths, device: torch.device, flop_batches: int) -> dict:
    """Train through the stage function; count the FLOPs per target token of its model on the
    first training batches."""
    with contextlib.redirect_stdout(sys.stderr):  # stdout carries the JSON report alone
        metrics = train_seq2seq(params, MlflowParams(enabled=False), paths)
    data, [batches] = epoch_batches(paths, params, 1)
    model = build_model(params.model, len(data.tokenizer.src), len(data.tokenizer.tgt)).to(device).train()
    # Counted (and the ceiling's products timed) in the dtypes training ran in: bf16 under autocast.
    precision = resolve_precision(params.trainer.precision, params.trainer.accelerator)
    mixed = precision == "bf16-mixed"
    with torch.autocast(device.type, torch.bfloat16, enabled=mixed):
        flops, products = training_flops_per_token(model, batches[:flop_batches], params.optim.label_smoothing)
    return {"precision": precision, "epochs": metrics["epochs"], "updates": metrics["updates"],
            "tokens_per_s": metrics["tokens_per_s"], "train_seconds": metrics["train_seconds"],
            "final_train_loss": metrics["train_loss"], "parameters": metrics["parameters"],
            "flops_per_token": round(flops),
            "gflops": significant(metrics["tokens_per_s"] * flops / 1e9),
            "matmul_ceiling_gflops": significant(matmul_ceiling(products))}


def reference_run(params: Seq2SeqParams, paths: TrainPaths, device: torch.device,
                  project_tokens_per_s: float) -> dict:
    """The seed model trained the textbook's way on the batches the project's run trained on."""
    data, epochs = epoch_batches(paths, params, params.trainer.max_epochs)
    torch.manual_seed(params.seed)
    model = TextbookSeq2Seq(params.model, len(data.tokenizer.src), len(data.tokenizer.tgt))
    result = train_reference(model, epochs, params.optim.lr, max(pair_lengths(data.train_pairs)), device)
    return {**result, "project_over_reference": round(project_tokens_per_s / result["tokens_per_s"], 2)}


def run_benchmark(options: BenchOptions) -> dict:
    quiet()  # the report alone: no Lightning tables or tips from the trainings it runs
    if options.model and not options.data:
        raise ConfigError("--model needs --data, the split stage's folder to decode")
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dtypes = {"float32": torch.float32, "bfloat16": torch.bfloat16}  # each run's fraction is of its own dtype's peak
    # Every input is checked before minutes of measuring.
    sections = read_params(options.params)
    seed = with_overrides({}, (), options.epochs)
    default = with_overrides(sections.get("train_seq2seq", {}), options.overrides, options.default_epochs)
    transformer = with_overrides(sections.get("train_seq2seq", {}),
                                 (*options.overrides, "model.arch=transformer", *options.transformer_overrides),
                                 options.default_epochs)
    recipe = None
    if options.gpu_recipe or (options.gpu_recipe is None and device.type == "cuda"):
        settings = (*options.overrides, *gpu_recipe.TRAIN_SEQ2SEQ, *options.recipe_overrides)
        recipe = with_overrides(sections.get("train_seq2seq", {}), settings, RECIPE_EPOCHS)
    vocab = from_mapping(TokenizerParams, sections.get("train_tokenizer", {}), "train_tokenizer")
    given = (Translator.load(options.model), load_split(options.data, "test")) if options.model else None
    seconds: dict[str, float] = {}
    start = time.perf_counter()
    with timed(seconds, "peaks"):
        peaks = {name: matmul_peak(device, dtype) for name, dtype in dtypes.items()}
    report: dict = {"machine": machine(device)}
    with tempfile.TemporaryDirectory(prefix="attention-lab-bench-") as tmp:
        with timed(seconds, "seed"):
            seed_paths = prepare_data(options.corpus, SplitParams(max_pairs=options.pairs), Path(tmp) / "seed")
            report["seed"] = train_and_count(seed, seed_paths, device, options.flop_batches)
        if options.reference:
            with timed(seconds, "reference"):
                report["reference"] = reference_run(seed, seed_paths, device, report["seed"]["tokens_per_s"])
        with timed(seconds, "default"):
            if options.splits and options.tokenizer:
                default_paths = sample_splits(Path(options.splits), Path(options.tokenizer), Path(tmp) / "default",
                                              options.default_pairs)
                vocab = Tokenizer.load(Path(options.tokenizer) / TOKENIZER_FILE).params
            else:
                default_paths = prepare_data(options.corpus, SplitParams(max_pairs=options.default_pairs),
                                             Path(tmp) / "default", vocab)
            report["default"] = train_and_count(default, default_paths, device, options.flop_batches)

        def beside(name: str, params: Seq2SeqParams) -> Path:
            """Train `params` on the default's pairs into its own folders; the model's folder."""
            paths = replace(default_paths, out=Path(tmp) / name / "model", reports=Path(tmp) / name / "reports")
            with timed(seconds, name):
                report[name] = train_and_count(params, paths, device, options.flop_batches)
            return paths.out

        transformer_model = beside("transformer", transformer)
        report["transformer"]["tokens_per_s_over_default"] = round(
            report["transformer"]["tokens_per_s"] / report["default"]["tokens_per_s"], 2)
        if recipe is not None:
            beside("gpu_recipe", recipe)
        # The peak is taken again after training (a machine's speed drifts) and the higher counts.
        with timed(seconds, "peaks"):
            peaks = {name: max(peaks[name], matmul_peak(device, dtype)) for name, dtype in dtypes.items()}
        for run in (report[name] for name in ("seed", "default", "transformer", "gpu_recipe") if name in report):
            peak = peaks["bfloat16" if run["precision"] == "bf16-mixed" else "float32"]  # of the dtype it ran in
            run["fraction_of_peak"] = significant(run["gflops"] / peak)
            # The roofline: the most this model's products allow, and how much of it training gets.
            run["ceiling_fraction_of_peak"] = significant(run["matmul_ceiling_gflops"] / peak)
            run["fraction_of_ceiling"] = significant(run["gflops"] / run["matmul_ceiling_gflops"])
        report["matmul_peak_gflops"] = {name: round(value, 1) for name, value in peaks.items()}
        model_dir = Path(options.model) if options.model else default_paths.out
        translator, test = given or (Translator.load(model_dir), load_split(default_paths.data, "test"))
        sources = list(references(test).index[: options.decode_sentences])
        with timed(seconds, "decoding"):
            report["decoding"] = {"model": str(model_dir) if options.model else "the default model trained here",
                                  **decoding_speed(translator, sources, options.beam_size, options.one_by_one)}
            if not options.model:
                report["transformer"]["decoding"] = decoding_speed(Translator.load(transformer_model), sources,
                                                                   options.beam_size, options.one_by_one)
        with timed(seconds, "startup"):
            report["startup"] = startup(model_dir)
    report["seconds"] = {**seconds, "total": round(time.perf_counter() - start, 1)}
    pipeline = options.splits and options.tokenizer
    sampled = f"a random sample of {options.splits}" if pipeline else "the corpus's first lines"
    on_default_pairs = {"default": default, "transformer": transformer, "gpu_recipe": recipe}
    report["config"] = {"seed": {"pairs": options.pairs, **to_dict(seed)},
                        **{name: {"pairs": options.default_pairs, "from": sampled, **to_dict(params)}
                           for name, params in on_default_pairs.items() if params is not None}}
    report["config"]["default"]["train_tokenizer"] = to_dict(vocab)
    return report
