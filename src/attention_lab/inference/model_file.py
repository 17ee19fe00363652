"""The exported model file: weights, config and tokenizer in plain tensors, lists and dicts, so the file alone
is enough to translate (training checkpoints are Lightning's, elsewhere). Loading uses
`torch.load(weights_only=True)`, which refuses pickled code: a model file from an untrusted source runs nothing.
"""

from __future__ import annotations

import pickle
import re
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import torch

from attention_lab.atomic import write_with
from attention_lab.config import ConfigError, from_mapping, to_dict
from attention_lab.data.tokenizer import Tokenizer
from attention_lab.errors import UserError
from attention_lab.model.encoder_decoder import EncoderDecoder
from attention_lab.model.seq2seq import ModelParams, build_model

FORMAT = "attention-lab/seq2seq"
VERSION = 2  # 1: word vocabularies and a max_len; 2: a tokenizer, nothing truncated


@dataclass(frozen=True)
class LoadedModel:
    model: EncoderDecoder
    tokenizer: Tokenizer


def save_model(path: str | Path, model: EncoderDecoder, tokenizer: Tokenizer) -> None:
    payload = {"format": FORMAT, "version": VERSION, "model": to_dict(model.params),
               "tokenizer": tokenizer.payload(),
               "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()}}
    write_with(path, lambda handle: torch.save(payload, handle))


def load_model(path: str | Path, device: str | torch.device = "cpu") -> LoadedModel:
    """Load a model file in eval mode; every failure is a one-line `UserError` naming the file."""
    path = Path(path)
    if path.is_dir():
        path = path / "model.pt"
    try:
        with warnings.catch_warnings():  # torch warns about pickle protocols before refusing them itself
            warnings.simplefilter("ignore")
            payload = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise UserError(f"{path}: no such model file (train one with `dvc repro train_seq2seq`)") from None
    except pickle.UnpicklingError as exc:
        # torch reports code references (GLOBAL, or STACK_GLOBAL = operand 149) like any damage.
        blocked = re.search(r"GLOBAL (\S+)", str(exc))
        if blocked or "Unsupported operand 149" in str(exc):
            target = blocked.group(1) if blocked else "a Python object by name"
            raise UserError(f"{path}: refusing to load: not a plain weights file (it references {target})") from None
        raise UserError(f"{path}: corrupt or truncated model file (not a weights archive)") from None
    except (RuntimeError, EOFError, OSError, ValueError, zipfile.BadZipFile) as exc:
        reason = str(exc).splitlines()[0].split(". ")[0][:160]  # torch appends paragraphs of advice
        raise UserError(f"{path}: corrupt or truncated model file ({reason})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise UserError(f"{path}: not an attention-lab model file")
    if payload.get("version") != VERSION:
        raise UserError(f"{path}: model file version {payload.get('version')!r}, this code reads {VERSION}")
    try:
        params = from_mapping(ModelParams, payload["model"], "model")
        tokenizer = Tokenizer.from_payload(payload["tokenizer"])
        state = payload["state_dict"]
        sizes = {"source": (len(tokenizer.src), state["encoder.embedding.weight"].shape[0]),
                 "target": (len(tokenizer.tgt), state["decoder.embedding.weight"].shape[0])}
        for side, (vocab_size, rows) in sizes.items():
            if vocab_size != rows:
                raise UserError(f"{path}: {side} vocabulary has {vocab_size} tokens but the weights expect {rows}")
        model = build_model(params, len(tokenizer.src), len(tokenizer.tgt))
        model.load_state_dict(state)
    except (ConfigError, KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise UserError(f"{path}: inconsistent model file ({str(exc).splitlines()[0][:200]})") from None
    return LoadedModel(model.to(device).eval(), tokenizer)
