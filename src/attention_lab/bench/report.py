"""`attention-lab bench`: speed as ratios measured in one process, never as lone numbers.

In one run, on one machine, it measures:
- training throughput (d2l's target tokens/s: non-padding target tokens per second of training,
  validation excluded, epochs after the first) of d2l's seed configuration, of the default model
  (params.yaml), of the Transformer (the default with `model.arch=transformer`, on the same
  pairs and batches) and, on CUDA, of the GPU recipe (`training/gpu_recipe.py`, the same pairs in
  its own 32,768-token batches, RECIPE_EPOCHS epochs), all through the `train_seq2seq` stage's own
  steps (`training_runs.py`), each stopped at the end of its share of the budget at most;
- the machine's matrix-multiply peak, fp32 and bf16, before and after training, and the fraction of
  the peak of the dtype it ran in (bf16 under autocast) each training reaches, FLOPs counted by PyTorch (`flops.py`);
- each model's ceiling: the rate of its own matrix products timed alone (`flops.matmul_ceiling`),
  as a fraction of the peak, and the fraction of that ceiling training reaches;
- with `reference`: the seed model trained the textbook's way (`textbook.py`) on the same batches
  for the same epochs (fewer where their rates agree), and the project/reference ratio;
- decoding throughput, batched against one sentence at a time, greedy and beam, of both the default
  model (`decoding`) and the Transformer (`transformer.decoding`) (`inference_speed.py`); for a
  Transformer, the default search with its self-attention maps off and on (`self_maps` beside
  `greedy` and `beam`: sentences/s each way, and whether the outputs were the same);
- the start-up time of `attention-lab translate "Go."` in a fresh process, against `import torch`,
  and whether it imported the training stack;
- the wall-clock seconds of each part (`seconds`), to see where a run's time goes;
- the time budget the parts shared (`bench/budget.py`): its seconds, each phase's share, the repeats each
  measurement got, and which the budget cut short (`budget`).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from attention_lab.bench.budget import PHASE_WEIGHTS, Budget
from attention_lab.bench.flops import matmul_trial
from attention_lab.bench.inference_speed import decoding_speed, startup
from attention_lab.bench.machine import machine
from attention_lab.bench.pairs import sample_splits
from attention_lab.bench.training_runs import reference_run, significant, train_and_count, with_overrides
from attention_lab.config import ConfigError, from_mapping, read_params, to_dict
from attention_lab.data.splits import SplitParams, load_split, references
from attention_lab.data.tokenizer import TOKENIZER_FILE, Tokenizer, TokenizerParams
from attention_lab.inference.translator import Translator
from attention_lab.stage import quiet
from attention_lab.training import gpu_recipe
from attention_lab.training.paths import TrainPaths, prepare_data
from attention_lab.training.run import Seq2SeqParams

RECIPE_EPOCHS = 4  # its batches are 64 times the default's: 4 epochs of 20,000 pairs make some 30 updates
PEAK_TRIALS = 5  # timings of each dtype's product, the best kept (fewer where they agree: bench/budget.py)
DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}  # each run's fraction is of its own dtype's peak


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
    budget_s: float | None = None  # the whole run's seconds, shared among its phases (bench/budget.py)


def peaks(budget: Budget, phase_name: str, device: torch.device) -> dict[str, float]:
    """Each dtype's matrix-multiply peak, GFLOP/s: the best of its timings (none if the budget skipped them)."""
    with budget.phase(phase_name) as phase:
        return {name: max(rates) for name, dtype in DTYPES.items()
                if (rates := phase.repeat(matmul_trial(device, dtype), PEAK_TRIALS, name))}


def run_benchmark(options: BenchOptions) -> dict:
    """The report (the module's docstring). Each phase runs in its share of `options.budget_s`: what the budget
    skipped is missing, with whatever needed it, and `budget` says which phases it cut short."""
    quiet()  # the report alone: no Lightning tables or tips from the trainings it runs
    if options.model and not options.data:
        raise ConfigError("--model needs --data, the split stage's folder to decode")
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
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
    left_out = {"reference": not options.reference, "gpu_recipe": recipe is None}
    budget = Budget(options.budget_s, {name: w for name, w in PHASE_WEIGHTS.items() if not left_out.get(name)})
    report: dict = {"machine": machine(device)}
    peak = peaks(budget, "peaks", device)
    with tempfile.TemporaryDirectory(prefix="attention-lab-bench-") as tmp:
        def trained(name: str, params: Seq2SeqParams, paths: Callable[[], TrainPaths] | None) -> TrainPaths | None:
            """Train `params` on `paths()` in phase `name`, into `report[name]`; the paths, or None if skipped
            (as it is without `paths`: the phase that makes them was)."""
            with budget.phase(name) as phase:
                def train() -> TrainPaths:
                    made = paths()
                    report[name] = train_and_count(params, made, device, options.flop_batches, phase)
                    return made
                return phase.once(train, "training") if paths else phase.skip("training")

        seed_paths = trained("seed", seed, lambda: prepare_data(options.corpus, SplitParams(max_pairs=options.pairs),
                                                                Path(tmp) / "seed"))
        if options.reference:
            with budget.phase("reference") as phase:
                if not seed_paths:
                    phase.skip("training")
                elif result := phase.once(lambda: reference_run(seed, seed_paths, device,
                                                                 report["seed"]["tokens_per_s"], phase), "training"):
                    report["reference"] = result

        def default_pairs() -> TrainPaths:
            if options.splits and options.tokenizer:
                return sample_splits(Path(options.splits), Path(options.tokenizer), Path(tmp) / "default",
                                     options.default_pairs)
            return prepare_data(options.corpus, SplitParams(max_pairs=options.default_pairs), Path(tmp) / "default",
                                vocab)

        default_paths = trained("default", default, default_pairs)
        if options.splits and options.tokenizer:
            vocab = Tokenizer.load(Path(options.tokenizer) / TOKENIZER_FILE).params

        def beside(name: str) -> Callable[[], TrainPaths] | None:
            """The default's pairs, with model and reports folders of run `name`'s own; None without them."""
            return default_paths and (lambda: replace(default_paths, out=Path(tmp) / name / "model",
                                                      reports=Path(tmp) / name / "reports"))

        transformer_paths = trained("transformer", transformer, beside("transformer"))
        if transformer_paths:
            report["transformer"]["tokens_per_s_over_default"] = round(
                report["transformer"]["tokens_per_s"] / report["default"]["tokens_per_s"], 2)
        if recipe is not None:
            trained("gpu_recipe", recipe, beside("gpu_recipe"))
        # The peak is taken again after training (a machine's speed drifts) and the higher counts.
        after = peaks(budget, "peaks_after", device)
        peak = {name: max(peak.get(name, 0.0), after.get(name, 0.0)) for name in DTYPES if name in peak | after}
        for run in (report[name] for name in ("seed", "default", "transformer", "gpu_recipe") if name in report):
            if "gflops" not in run:  # not counted: the budget ended first
                continue
            top = peak.get("bfloat16" if run["precision"] == "bf16-mixed" else "float32")  # of the dtype it ran in
            if top:
                run["fraction_of_peak"] = significant(run["gflops"] / top)
                # The roofline: the most this model's products allow, and how much of it training gets.
                run["ceiling_fraction_of_peak"] = significant(run["matmul_ceiling_gflops"] / top)
            run["fraction_of_ceiling"] = significant(run["gflops"] / run["matmul_ceiling_gflops"])
        report["matmul_peak_gflops"] = {name: round(value, 1) for name, value in peak.items()}
        model_dir = Path(options.model) if options.model else default_paths.out if default_paths else None
        with budget.phase("decoding") as phase:
            if not model_dir:
                phase.skip("decoding")
            else:
                translator, test = given or (Translator.load(model_dir), load_split(default_paths.data, "test"))
                sources = list(references(test).index[: options.decode_sentences])

                def labelled(model: str) -> Callable:
                    """`phase.repeat` with the model's name before each label: one phase decodes both."""
                    return lambda measure, most, label: phase.repeat(measure, most, f"{model} {label}")

                report["decoding"] = {"model": str(model_dir) if options.model else "the default model trained here",
                                      **decoding_speed(translator, sources, options.beam_size, options.one_by_one,
                                                       labelled("default"))}
                if transformer_paths and not options.model:
                    report["transformer"]["decoding"] = decoding_speed(
                        Translator.load(transformer_paths.out), sources, options.beam_size, options.one_by_one,
                        labelled("transformer"))
        with budget.phase("startup") as phase:
            if not model_dir:
                phase.skip("translate")
            elif result := phase.once(lambda: startup(model_dir), "translate"):
                report["startup"] = result
    parts: dict[str, float] = {}  # where the run's time went, both peaks' phases as one
    for name, phase in budget.phases.items():
        part = "peaks" if name == "peaks_after" else name
        parts[part] = round(parts.get(part, 0.0) + phase.seconds, 1)
    report["seconds"] = {**parts, "total": round(time.perf_counter() - budget.start, 1)}
    report["budget"] = budget.report()
    pipeline = options.splits and options.tokenizer
    sampled = f"a random sample of {options.splits}" if pipeline else "the corpus's first lines"
    on_default_pairs = {"default": default, "transformer": transformer, "gpu_recipe": recipe}
    report["config"] = {"seed": {"pairs": options.pairs, **to_dict(seed)},
                        **{name: {"pairs": options.default_pairs, "from": sampled, **to_dict(params)}
                           for name, params in on_default_pairs.items() if params is not None}}
    report["config"]["default"]["train_tokenizer"] = to_dict(vocab)
    return report
