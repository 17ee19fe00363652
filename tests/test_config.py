from dataclasses import dataclass, field
from typing import Literal

import pytest
from conftest import REPO

from attention_lab.config import (
    ConfigError,
    flatten,
    from_mapping,
    load_section,
    param,
    to_dict,
)


@dataclass(frozen=True)
class Inner:
    size: int = param(3, ge=1)


@dataclass(frozen=True)
class Outer:
    name: str = "x"
    rate: float = param(0.5, gt=0, lt=1)
    flag: bool = False
    mode: Literal["a", "b"] = "a"
    limit: int | None = param(None, ge=1)
    bandwidth: float | Literal["auto"] = "auto"
    items: tuple[str, ...] = ("p", "q")
    inner: Inner = field(default_factory=Inner)


def test_defaults_and_values():
    cfg = from_mapping(Outer, {"rate": 1 / 4, "limit": 7, "inner": {"size": 5}, "items": ["z"]}, "s")
    assert (cfg.rate, cfg.limit, cfg.inner.size, cfg.items, cfg.mode) == (0.25, 7, 5, ("z",), "a")
    assert from_mapping(Outer, None, "s") == Outer()


def test_int_accepted_for_float():
    assert from_mapping(Outer, {"bandwidth": 2}, "s").bandwidth == 2.0


@pytest.mark.parametrize("data, message", [
    ({"nope": 1}, "s.nope: unknown key"),
    ({"inner": {"sise": 1}}, "s.inner.sise: unknown key"),
    ({"rate": "high"}, "s.rate: expected float, got str 'high'"),
    ({"rate": 1.0}, "s.rate: must be < 1"),
    ({"flag": 1}, "s.flag: expected bool, got int 1"),
    ({"limit": True}, "s.limit: expected int or null, got bool True"),
    ({"limit": 0}, "s.limit: must be >= 1"),
    ({"mode": "c"}, "s.mode: expected one of ['a', 'b'], got 'c'"),
    ({"inner": {"size": -3}}, "s.inner.size: must be >= 1, got -3"),
    ({"items": "p"}, "s.items: expected a list"),
    ({"items": [1]}, "s.items[0]: expected str"),
    ({"bandwidth": "wide"}, "s.bandwidth: expected float or 'auto'"),
    ({"inner": 3}, "s.inner: expected a mapping"),
])
def test_errors_name_the_key(data, message):
    with pytest.raises(ConfigError, match=f"^{message}".replace("[", r"\[").replace("]", r"\]")):
        from_mapping(Outer, data, "s")


def test_load_section_errors_name_the_file(tmp_path):
    path = tmp_path / "params.yaml"
    with pytest.raises(ConfigError, match="no such params file"):
        load_section(path, "s", Outer)
    path.write_text("s: [unclosed\n")
    with pytest.raises(ConfigError, match="params.yaml: not valid YAML"):
        load_section(path, "s", Outer)
    path.write_text("t: {}\n")
    with pytest.raises(ConfigError, match="missing section 's'"):
        load_section(path, "s", Outer)
    path.write_text("s: {rate: 2}\n")
    with pytest.raises(ConfigError, match=r"params.yaml: s.rate: must be < 1, got 2"):
        load_section(path, "s", Outer)


def test_to_dict_round_trip_and_flatten():
    cfg = from_mapping(Outer, {"items": ["a", "b"], "inner": {"size": 4}}, "s")
    assert from_mapping(Outer, to_dict(cfg), "s") == cfg
    assert flatten(to_dict(cfg))["inner.size"] == 4


def test_repository_params_load_into_every_stage():
    """Every section of the committed params.yaml is valid for the stage that reads it."""
    from attention_lab.data.splits import CorpusParams, SplitParams
    from attention_lab.data.tokenizer import TokenizerParams
    from attention_lab.evaluation.heatmaps import HeatmapParams
    from attention_lab.evaluation.report import EvaluateParams
    from attention_lab.nw.data import NWParams
    from attention_lab.tracking.store import MlflowParams
    from attention_lab.training.params import Seq2SeqParams

    sections = {"corpus": CorpusParams, "split": SplitParams, "train_tokenizer": TokenizerParams,
                "train_seq2seq": Seq2SeqParams, "evaluate": EvaluateParams, "heatmaps": HeatmapParams,
                "mlflow": MlflowParams, "train_nw": NWParams}
    for section, cls in sections.items():
        assert isinstance(load_section(REPO / "params.yaml", section, cls), cls)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan")])
@pytest.mark.parametrize("key", ["rate", "bandwidth"])  # a bounded float, and a float in a union
def test_non_finite_floats_are_refused_naming_the_key(key, value):
    with pytest.raises(ConfigError, match=rf"^s\.{key}: must be a finite number, got -?(inf|nan)$"):
        from_mapping(Outer, {key: value}, "s")


def test_yaml_infinities_in_params_are_refused_naming_file_and_key(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("evaluate:\n  search:\n    length_penalty: .inf\n")
    from attention_lab.evaluation.report import EvaluateParams

    with pytest.raises(ConfigError, match=r"params\.yaml: evaluate\.search\.length_penalty: must be a finite number"):
        load_section(path, "evaluate", EvaluateParams)


@pytest.mark.parametrize("seed", [-1, 2**32])
@pytest.mark.parametrize("section", ["split", "train_seq2seq", "train_nw"])
def test_a_seed_numpy_or_lightning_would_refuse_is_refused_naming_the_key(tmp_path, section, seed):
    from attention_lab.data.splits import SplitParams
    from attention_lab.nw.data import NWParams
    from attention_lab.training.params import Seq2SeqParams

    cls = {"split": SplitParams, "train_seq2seq": Seq2SeqParams, "train_nw": NWParams}[section]
    path = tmp_path / "params.yaml"
    path.write_text(f"{section}:\n  seed: {seed}\n")
    with pytest.raises(ConfigError, match=rf"params\.yaml: {section}\.seed: "):
        load_section(path, section, cls)
    path.write_text(f"{section}:\n  seed: {2**32 - 1}\n")  # the largest both take
    assert load_section(path, section, cls).seed == 2**32 - 1


@pytest.mark.parametrize("key, value, message", [("beam_size", 65, "must be <= 64"),
                                                 ("batch_size", 4097, "must be <= 4096"),
                                                 ("max_source_chars", 0, "must be >= 1"),
                                                 ("max_source_pieces", 0, "must be >= 1")])
def test_search_settings_are_bounded_naming_the_key(key, value, message):
    from attention_lab.inference.translator import SearchParams

    with pytest.raises(ConfigError, match=rf"^evaluate\.search\.{key}: {message}"):
        from_mapping(SearchParams, {key: value}, "evaluate.search")


@pytest.mark.parametrize("section, values, message", [
    ("evaluate", {"length_buckets": [0, 4]}, "evaluate.length_buckets: a sentence has at least one word"),
    ("evaluate", {"precision": "16"}, "evaluate.precision: expected one of auto, 32, bf16, got '16'"),
    ("train_nw", {"test_step": 1e-12}, "train_nw.test_step: at most 10 million test points"),
])
def test_sizes_that_would_mislead_or_exhaust_memory_are_refused_naming_the_key(section, values, message):
    from attention_lab.evaluation.report import EvaluateParams
    from attention_lab.nw.data import NWParams

    with pytest.raises(ConfigError, match=message):
        from_mapping({"evaluate": EvaluateParams, "train_nw": NWParams}[section], values, section)


@pytest.mark.parametrize("key, value, message", [
    ("attention_kernels", ["math", "fast"],
     r"attention_kernels\[1\]: expected one of \['flash', 'efficient', 'cudnn', 'math'\], got 'fast'"),
    ("attention_kernels", [], "attention_kernels: name at least one kernel, or null"),
    ("attention_kernels", "math", "attention_kernels: expected a list or null, got str 'math'"),
    ("attention_packing", 1, "attention_packing: must be >= 2"),
    ("attention_packing", 128.0, "attention_packing: expected int or null, got float 128.0"),
    ({"attention_packing": 128, "attention_kernels": ["flash"]}, None,
     "attention_packing: packed rows attend under a mask"),
])
def test_attention_settings_that_cannot_mean_anything_are_refused_naming_the_key(key, value, message):
    from attention_lab.training.params import Seq2SeqParams

    trainer = key if isinstance(key, dict) else {key: value}
    with pytest.raises(ConfigError, match=rf"^train_seq2seq\.trainer\.{message}"):
        from_mapping(Seq2SeqParams, {"trainer": trainer}, "train_seq2seq")


@pytest.mark.parametrize("data, message", [
    ({"concat_fraction": -0.1}, "train_seq2seq.concat_fraction: must be >= 0"),
    ({"concat_max": 1}, "train_seq2seq.concat_max: must be >= 2"),
    ({"number_fraction": -0.1}, "train_seq2seq.number_fraction: must be >= 0"),
    ({"number_fraction": 1.5}, "train_seq2seq.number_fraction: must be <= 1"),
    ({"name_fraction": -0.1}, "train_seq2seq.name_fraction: must be >= 0"),
    ({"name_fraction": 1.5}, "train_seq2seq.name_fraction: must be <= 1"),
    ({"calendar_fraction": -0.1}, "train_seq2seq.calendar_fraction: must be >= 0"),
    ({"calendar_fraction": 1.5}, "train_seq2seq.calendar_fraction: must be <= 1"),
    ({"title_fraction": -0.1}, "train_seq2seq.title_fraction: must be >= 0"),
    ({"title_fraction": 1.5}, "train_seq2seq.title_fraction: must be <= 1"),
    ({"date_fraction": -0.1}, "train_seq2seq.date_fraction: must be >= 0"),
    ({"date_fraction": 1.5}, "train_seq2seq.date_fraction: must be <= 1"),
    ({"ordinal_fraction": -0.1}, "train_seq2seq.ordinal_fraction: must be >= 0"),
    ({"ordinal_fraction": 1.5}, "train_seq2seq.ordinal_fraction: must be <= 1"),
])
def test_the_augmentations_settings_are_validated(data, message):
    from attention_lab.training.datamodule import DataParams

    with pytest.raises(ConfigError, match=message):
        from_mapping(DataParams, data, "train_seq2seq")
