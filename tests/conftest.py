from __future__ import annotations

import os
import shutil
import signal
import sys
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))  # corpus_factory
# Every process a test starts (the CLI, a stage, a served model) computes on one thread, as the tests' own
# do (`_one_thread`): torch's OpenMP threads spin while they wait, and two of them in a process on a 2-core
# machine the other xdist worker keeps busy doubled its CPU time (tests/test_cli.py: 190 s of CPU, 144 s on one).
os.environ["OMP_NUM_THREADS"] = "1"

# The property tests draw the same examples on every run, as every other test is seeded: a suite that passes
# passes again on the same code. `HYPOTHESIS_PROFILE=explore` draws fresh ones to look for new failures.
settings.register_profile("seeded", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "seeded"))

REPO = Path(__file__).resolve().parent.parent
# The tiny corpus' settings shared by the trained-model fixture and the end-to-end pipeline tests.
TINY_VOCAB = {"kind": "subword", "subword": {"size": 450, "model": "bpe"}}  # whole words on this corpus
TINY_TRAINING = {"data": {"batch_size": 16, "batch_tokens": 400, "val_bleu_size": 12},
                 "model": {"embed_size": 32, "hidden_size": 32, "num_layers": 1, "dropout": 0.0,
                           "tie_embeddings": "all"},
                 "optim": {"lr": 0.02, "schedule": "linear", "warmup_steps": 10},
                 "trainer": {"accelerator": "cpu", "max_epochs": 40, "progress_bar": False}}
TINY_TRANSFORMER = {"arch": "transformer", "tie_embeddings": "all",
                    "transformer": {"layers": 2, "heads": 2, "model_size": 32, "ffn_size": 64, "dropout": 0.0}}


class Interrupt(BaseException):
    """What a kill looks like to the code after it: no `except Exception` catches it."""


def interrupt_at_step(step: int):
    """A Lightning callback that raises `Interrupt` before training update `step` + 1 (a kill)."""
    import pytorch_lightning as pl

    class InterruptAtStep(pl.Callback):
        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
            if trainer.global_step == step:
                raise Interrupt

    return InterruptAtStep()


class NotLinear(AssertionError):
    """Work on a long input ran past its bound: it grows faster than the input."""


@contextmanager
def linear_work(seconds: float):
    """Fails the block once it has used `seconds` of this process' CPU time (the machine's load aside).
    No regex or C loop reports its steps to count, so the input is made long enough that work linear
    in its length takes a small part of the bound and quadratic work hours: never a speed check."""
    def over(*_) -> None:
        raise NotLinear(f"over {seconds} s of CPU: the work grows faster than the input")

    previous = signal.signal(signal.SIGVTALRM, over)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


# The files that take longest, longest first (`pytest --durations=0` summed per file, 2026-11-26:
# 290, 165, 80, 75, 35, 30 and 30 s on a 2-core machine; the others take under 20 s each).
LONGEST_FIRST = ("test_pipeline.py", "test_training.py", "test_cli.py", "test_tracking.py", "test_multinode.py",
                 "test_registry.py", "test_schedule.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under `make test` pytest-xdist hands out a file at a time, in collection order, to whichever
    worker is free: the long files go first (the end-to-end one at once), so that none is handed out
    last and runs on while the other worker idles."""
    rank = {name: k for k, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: order within a file kept


@pytest.fixture(scope="session", autouse=True)
def _one_thread() -> None:
    """Tiny models run fastest on one thread, and two threads on a busy 2-core machine spin
    against each other (steps seen 5-20 times slower)."""
    import torch

    torch.set_num_threads(1)


@pytest.fixture(scope="session", autouse=True)
def _isolated_mlflow(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Runs made by tests go to a throwaway database, never the repository's mlflow.db."""
    root = tmp_path_factory.mktemp("mlflow")
    os.environ["MLFLOW_TRACKING_URI"] = f"sqlite:///{root / 'mlflow.db'}"
    os.environ["DVC_ROOT"] = str(root)  # where tracking puts the runs' artifacts (root/mlruns)


@pytest.fixture
def corpus_zip(tmp_path: Path) -> Path:
    from corpus_factory import write_zip

    return write_zip(tmp_path / "fra-eng.zip")


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory: pytest.TempPathFactory):
    """The synthetic corpus split and tokenized (TINY_VOCAB) once per run: the tests that train on it
    read it and never write there, so it need not be rebuilt for each (seconds each time)."""
    from corpus_factory import write_zip

    from attention_lab.config import from_mapping
    from attention_lab.data.splits import SplitParams
    from attention_lab.data.tokenizer import TokenizerParams
    from attention_lab.training.paths import TrainPaths, prepare_data

    def build(root: Path) -> None:
        prepare_data(write_zip(root / "fra-eng.zip"), SplitParams(valid_fraction=0.1, test_fraction=0.1), root,
                     from_mapping(TokenizerParams, TINY_VOCAB, "train_tokenizer"))

    root = built_once(tmp_path_factory, "tiny-data", build)
    return TrainPaths(root / "data", root / "tokenizer", root / "model", root / "reports")


@pytest.fixture
def paths(tiny_data, tmp_path: Path):
    """`tiny_data`'s inputs, with the model, reports and resume folders of this test's own."""
    from attention_lab.training.paths import TrainPaths

    return TrainPaths(tiny_data.data, tiny_data.tokenizer, tmp_path / "model", tmp_path / "reports")


def train_tiny(root: Path, vocab: dict, overrides: dict | None = None) -> Path:
    """A model trained through the stage function on the synthetic corpus in `root`: TINY_TRAINING
    with `overrides`' sections merged over it, the tokenizer of `vocab`. Returns its model folder."""
    from corpus_factory import write_zip

    from attention_lab.config import from_mapping
    from attention_lab.data.splits import SplitParams
    from attention_lab.data.tokenizer import TokenizerParams
    from attention_lab.tracking.store import MlflowParams
    from attention_lab.training.paths import prepare_data
    from attention_lab.training.params import Seq2SeqParams
    from attention_lab.training.run import train_seq2seq

    paths = prepare_data(write_zip(root / "fra-eng.zip"), SplitParams(valid_fraction=0.1, test_fraction=0.1),
                         root, from_mapping(TokenizerParams, vocab, "train_tokenizer"))
    config = {name: {**section, **(overrides or {}).get(name, {})} for name, section in TINY_TRAINING.items()}
    train_seq2seq(from_mapping(Seq2SeqParams, config, "train_seq2seq"), MlflowParams(enabled=False), paths)
    return paths.out


def prepared_with(tmp_path_factory: pytest.TempPathFactory, name: str, extra: list[tuple[str, str]]):
    """The tiny corpus with the (English, French) pairs `extra` after it, split and tokenized into a folder
    `name` (prepare_data's paths): what an augmentation's DataModule tests read."""
    from corpus_factory import corpus_text, pairs, write_zip

    from attention_lab.config import from_mapping
    from attention_lab.data.splits import SplitParams
    from attention_lab.data.tokenizer import TokenizerParams
    from attention_lab.training.paths import prepare_data

    root = tmp_path_factory.mktemp(name)
    return prepare_data(write_zip(root / "fra-eng.zip", corpus_text(pairs() + extra)),
                        SplitParams(valid_fraction=0.1, test_fraction=0.1), root,
                        from_mapping(TokenizerParams, TINY_VOCAB, "train_tokenizer"))


def data_module(paths, **params):
    """The DataModule of `paths` (prepare_data's folders) with DataParams `params`, set up to fit."""
    from attention_lab.data.tokenizer import TOKENIZER_FILE, Tokenizer
    from attention_lab.training.datamodule import DataParams, TranslationDataModule

    module = TranslationDataModule(paths.data, Tokenizer.load(paths.tokenizer / TOKENIZER_FILE), DataParams(**params),
                                   seed=0)
    module.setup("fit")
    return module


def assert_appended(plain, augmented, made: list[tuple[str, str]]) -> None:
    """`augmented`'s train pairs are `plain`'s (two DataModules of one split) followed by the text pairs
    `made`, encoded; its valid pairs and sources are `plain`'s."""
    tokenizer, n = plain.tokenizer, len(plain.train_pairs)
    assert made and len(augmented.train_pairs) == n + len(made) and augmented.train_pairs[:n] == plain.train_pairs
    assert augmented.train_pairs[n:] == list(zip(tokenizer.src.encode_all([s for s, _ in made]),
                                                 tokenizer.tgt.encode_all([t for _, t in made])))
    assert augmented.valid_pairs == plain.valid_pairs and augmented.valid_sources == plain.valid_sources


def assert_train_only(paths, before: dict, name: str, make) -> tuple:
    """The DataModule of `paths` with `{name}_fraction` 0.5 on top of `before` (the augmentations whose pairs
    come first) appends `make(train text pairs, 0.5, seed=0)` to the train pairs of the one without, and
    changes nothing else (`assert_appended`); returns the one without, the train split and the pairs made."""
    from attention_lab.data.splits import load_split

    plain, augmented = data_module(paths, **before), data_module(paths, **before, **{f"{name}_fraction": 0.5})
    train = load_split(paths.data, "train")
    made = make(list(zip(train["src"], train["tgt"])), 0.5, seed=0)
    assert_appended(plain, augmented, made)
    return plain, train, made


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build) -> Path:
    """The folder `name`, filled by `build(folder)` once for the whole run. Under `make test` the
    xdist workers share their base temp's parent: the first worker to need the folder builds it under
    a file lock and the others wait for it, instead of each training its own copy (tens of seconds)."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder, done = base / name, base / f"{name}.done"
    with FileLock(base / f"{name}.lock"):
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a build that failed in another worker
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def trained_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small model trained on the synthetic corpus (a few seconds), shared by the tests."""
    return built_once(tmp_path_factory, "trained", partial(train_tiny, vocab=TINY_VOCAB)) / "model"


@pytest.fixture(scope="session")
def transformer_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Transformer trained through the same stage function on the synthetic corpus."""
    overrides = {"model": TINY_TRANSFORMER, "optim": {"lr": 0.005}, "trainer": {"max_epochs": 20}}
    build = partial(train_tiny, vocab=TINY_VOCAB, overrides=overrides)
    return built_once(tmp_path_factory, "transformer", build) / "model"


@pytest.fixture(scope="session")
def word_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny word-mode model (d2l's vocabulary: names occur once, so they are <unk>)."""
    overrides = {"model": {"tie_embeddings": "none"}, "trainer": {"max_epochs": 3}}
    build = partial(train_tiny, vocab={"kind": "word"}, overrides=overrides)
    return built_once(tmp_path_factory, "word-model", build) / "model"


@pytest.fixture(scope="session")
def digit_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Transformer, untrained, whose output layer prefers the digit 7 to anything else: searched
    freely, it writes 7s its sources lack; under the number constraint, only its sources' numbers. The
    tiny corpus has no digits, so its tokenizer is trained here, on sentences with a piece for each."""
    import torch

    from attention_lab.config import from_mapping
    from attention_lab.data.tokenizer import SubwordParams, Tokenizer, TokenizerParams
    from attention_lab.data.tokenizer_training import train_subword
    from attention_lab.inference.model_file import save_model
    from attention_lab.model.params import ModelParams
    from attention_lab.model.seq2seq import build_model

    params = TokenizerParams(kind="subword", subword=SubwordParams(size=300, model="bpe"))
    codec = train_subword([f"I see {n} cats. Je vois {n} chats." for n in range(10)] * 3, params.subword)
    torch.manual_seed(0)
    model = build_model(from_mapping(ModelParams, TINY_TRANSFORMER, "model"), len(codec), len(codec)).eval()
    with torch.no_grad():
        model.decoder.output.bias[[i for i in range(len(codec)) if codec.piece(i).lstrip("▁") == "7"]] += 8.0
    path = tmp_path_factory.mktemp("digit-model") / "model.pt"
    save_model(path, model, Tokenizer(codec, codec, params))
    return path


@pytest.fixture(scope="module")
def own_store(tmp_path_factory: pytest.TempPathFactory):
    """A repository root (DVC_ROOT) with a sqlite MLflow store of its own, for one test module."""
    root = tmp_path_factory.mktemp("repo")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{root / 'mlflow.db'}")
        patch.setenv("DVC_ROOT", str(root))
        patch.delenv("DVC_EXP_NAME", raising=False)
        yield root


def text_of(codec, ids: list[int]) -> str:
    """A codec's text for `ids`, as the translator builds it (without `<unk>` replacement)."""
    return codec.join(codec.id_pieces(ids))
