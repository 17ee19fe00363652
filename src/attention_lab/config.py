"""Frozen, validated dataclasses built from `params.yaml` sections.

Each field's type annotation is enforced (no silent int/bool/str coercion) and its metadata
carries the allowed range, so every error names the offending key: `train_seq2seq.model.rnn`.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml

from attention_lab.errors import UserError

T = TypeVar("T")


class ConfigError(UserError):
    pass


def param(default: Any = dataclasses.MISSING, *, ge: float | None = None, gt: float | None = None,
          le: float | None = None, lt: float | None = None) -> Any:
    """A dataclass field with an optional numeric range, checked by `from_mapping`."""
    bounds = {k: v for k, v in {"ge": ge, "gt": gt, "le": le, "lt": lt}.items() if v is not None}
    if isinstance(default, (list, dict)):
        raise TypeError("use tuples for sequence defaults")
    return dataclasses.field(default=default, metadata={"bounds": bounds})


def seed_param(default: int = 0) -> Any:
    """A random seed: numpy and Lightning take 0 <= seed < 2**32 and fail with a traceback otherwise."""
    return param(default, ge=0, lt=2**32)


_CHECKS = {"ge": (lambda v, b: v >= b, ">="), "gt": (lambda v, b: v > b, ">"),
           "le": (lambda v, b: v <= b, "<="), "lt": (lambda v, b: v < b, "<")}


_EXPONENT = re.compile(r"[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+")


def _describe(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


def _coerce(value: Any, hint: Any, key: str) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        # YAML's .inf/.nan and the CLI's `inf`/`nan` parse as floats; no setting means either.
        raise ConfigError(f"{key}: must be a finite number, got {value!r}")
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(hint):
            try:
                return _coerce(value, option, key)
            except ConfigError as exc:
                if isinstance(value, (list, tuple)) and typing.get_origin(option) is tuple:
                    raise exc from None  # a list with a wrong item: its own error names the item
        raise ConfigError(f"{key}: expected {' or '.join(_name(a) for a in typing.get_args(hint))}, "
                          f"got {_describe(value)}")
    if origin is Literal:
        if value in typing.get_args(hint) and type(value) in {type(a) for a in typing.get_args(hint)}:
            return value
        raise ConfigError(f"{key}: expected one of {list(typing.get_args(hint))}, got {value!r}")
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{key}: expected a list, got {_describe(value)}")
        item = typing.get_args(hint)[0]
        return tuple(_coerce(v, item, f"{key}[{i}]") for i, v in enumerate(value))
    if hint is type(None):
        if value is None:
            return None
        raise ConfigError(f"{key}: expected null, got {_describe(value)}")
    if dataclasses.is_dataclass(hint):
        return from_mapping(hint, value, key)
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint is float and isinstance(value, str) and _EXPONENT.fullmatch(value):
        return _coerce(float(value), float, key)  # YAML 1.1 reads `1e-9` (no dot) as a string
    if hint in (int, float, str, bool) and type(value) is hint:
        return value
    raise ConfigError(f"{key}: expected {_name(hint)}, got {_describe(value)}")


def _name(hint: Any) -> str:
    if typing.get_origin(hint) is Literal:
        return " or ".join(repr(a) for a in typing.get_args(hint))
    if typing.get_origin(hint) is tuple:
        return "a list"  # as YAML and `dvc exp run -S` write it
    if hint is type(None):
        return "null"
    return getattr(hint, "__name__", str(hint))


def from_mapping(cls: type[T], data: Any, where: str) -> T:
    """Build the frozen dataclass `cls` from `data`, rejecting unknown keys, wrong types and ranges."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where}: expected a mapping, got {_describe(data)}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"{where}.{unknown[0]}: unknown key (known: {', '.join(fields)})")
    hints = typing.get_type_hints(cls)
    values = {}
    for name, field in fields.items():
        key = f"{where}.{name}"
        if name not in data:
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise ConfigError(f"{key}: missing")
            continue
        value = _coerce(data[name], hints[name], key)
        for bound, limit in field.metadata.get("bounds", {}).items():
            check, symbol = _CHECKS[bound]
            if isinstance(value, (int, float)) and not isinstance(value, bool) and not check(value, limit):
                raise ConfigError(f"{key}: must be {symbol} {limit}, got {value!r}")
        values[name] = value
    obj = cls(**values)
    validate = getattr(obj, "validate", None)
    if validate is not None:
        try:
            validate()
        except ValueError as exc:
            raise ConfigError(f"{where}.{exc}") from None
    return obj


def read_params(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such params file") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of sections")
    return data


def load_section(path: str | Path, section: str, cls: type[T]) -> T:
    """Load one top-level section of a params file into `cls`; errors name `file: section.key`."""
    params = read_params(path)
    if section not in params:
        raise ConfigError(f"{path}: missing section '{section}'")
    try:
        return from_mapping(cls, params[section], section)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def to_dict(obj: Any) -> dict[str, Any]:
    """A plain, YAML/JSON-ready dict (tuples become lists) of a config dataclass."""
    def plain(value: Any) -> Any:
        if isinstance(value, tuple):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return value
    return plain(dataclasses.asdict(obj))


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """`{'a': {'b': 1}}` -> `{'a.b': 1}`: the key form of `dvc exp run -S` and of MLflow params."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat
