"""Decoding's precision (`model/precision.py`, `translate --precision`): what each choice resolves to on CPUs
with and without native bf16 (simulated), and that the search runs in the arithmetic it names."""

import math

import pytest
import torch

from attention_lab.cli import build_parser
from attention_lab.inference.translator import SearchParams, Translator
from attention_lab.model import precision
from attention_lab.model.precision import DECODING_PRECISIONS, decoding_dtype

CPU, CUDA = torch.device("cpu"), torch.device("cuda")
SOURCES = ["I see the cat.", "Go.", "Tom is taller than his brother."]


def test_translate_offers_the_decoding_precisions(capsys):
    parser = build_parser()
    assert parser.parse_args(["translate"]).precision == "auto"
    assert [parser.parse_args(["translate", "--precision", p]).precision for p in DECODING_PRECISIONS] \
        == list(DECODING_PRECISIONS)
    with pytest.raises(SystemExit):
        parser.parse_args(["translate", "--precision", "16"])
    assert "--precision: invalid choice: '16'" in capsys.readouterr().err


@pytest.mark.parametrize("capabilities, native", [({"avx512_bf16": True}, True), ({"amx_bf16": True}, True),
                                                  ({"avx512_bf16": False, "avx512_f": True}, False), ({}, False)])
def test_auto_decodes_in_bf16_only_where_measured_to_pay(monkeypatch, capabilities, native):
    monkeypatch.setattr(torch.cpu, "get_capabilities", lambda: capabilities)
    for device in (CPU, CUDA):
        for arch in ("rnn", "transformer"):
            assert decoding_dtype("32", device, arch) is None and decoding_dtype("bf16", device, arch) is torch.bfloat16
    # As measured (docs/speed.md, "Decoding in bf16"): the Transformer on a CPU with native bf16, nothing else.
    assert decoding_dtype("auto", CPU, "transformer") is (torch.bfloat16 if native else None)
    assert decoding_dtype("auto", CPU, "rnn") is None
    assert decoding_dtype("auto", CUDA, "transformer") is None and decoding_dtype("auto", CUDA, "rnn") is None
    with pytest.raises(ValueError, match="'16'"):
        decoding_dtype("16", CPU, "rnn")


@pytest.mark.parametrize("model, arch", [("trained_model", "rnn"), ("transformer_model", "transformer")])
def test_auto_decodes_each_architecture_as_measured(request, monkeypatch, model, arch):
    monkeypatch.setattr(torch.cpu, "get_capabilities", lambda: {"avx512_bf16": True})
    translator = Translator.load(request.getfixturevalue(model), "cpu")  # `auto` unless asked: every reader of a
    seen: list[torch.dtype] = []  # model file (evaluate, heatmaps, the served model, bench) decodes as `translate`
    translator.model.decoder.output.register_forward_hook(lambda module, args, logits: seen.append(logits.dtype))
    translator.translate(SOURCES, SearchParams(beam_size=2))
    assert set(seen) == {torch.bfloat16 if arch in precision.AUTO_BF16_DECODING else torch.float32}
    assert translator.decodes_in == ("bf16" if arch in precision.AUTO_BF16_DECODING else "float32")
    monkeypatch.setattr(torch.cpu, "get_capabilities", lambda: {})
    assert translator.decodes_in == "float32"  # no native bf16: float32 for both
    assert arch in precision.AUTO_BF16_DECODING or arch == "rnn"


@pytest.mark.parametrize("model", ["trained_model", "transformer_model"])
def test_the_search_runs_in_the_precision_asked_for(request, model):
    translator = Translator.load(request.getfixturevalue(model), "cpu", precision="32")
    seen: list[torch.dtype] = []  # the dtype of every logits tensor the search computed
    translator.model.decoder.output.register_forward_hook(lambda module, args, logits: seen.append(logits.dtype))
    plain = translator.translate(SOURCES, SearchParams(beam_size=3))
    for choice, dtype in (("32", torch.float32), ("bf16", torch.bfloat16)):
        seen.clear()
        translator.precision = choice  # as `Translator.load(..., precision=choice)` and `translate --precision`
        # Inside an outer bf16 autocast too (validation under bf16-mixed): "32" turns it off.
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = translator.translate(SOURCES, SearchParams(beam_size=3))
        assert seen and set(seen) == {dtype}, (choice, set(seen))
        assert len(out) == len(SOURCES) and all(t.text and math.isfinite(t.score) for t in out)
        if choice == "32":
            assert [(t.text, t.score) for t in out] == [(t.text, t.score) for t in plain]
