"""Teacher forcing through the Bahdanau decoder's recurrence (additive attention, then a GRU),
with a hand-written backward through time. Training only: `BahdanauDecoder.teacher_forced`
imports it when called, so translation never loads it.

Under autograd each decoder step records ~50 small operations and the backward replays each with
its own overhead; at d2l's sizes (B=64, H=32) that overhead, not arithmetic, was most of a
training step. `BahdanauGRU` computes the function of T calls of `BahdanauDecoder.step`
(Bahdanau et al. 2014 §3.1 and A.2.2; the GRU of `gru_cell`) without recording, keeps what the
backward needs (`Step` and `LayerStep` at each step, stacked over steps into `Saved`), and in the
backward
- loops over steps only for what is sequential, the gradients of the hidden states, with every
  derivative factor of the gates computed for all steps at once beforehand;
- computes each weight gradient after the loop, in one product over all T·B rows rather than T
  products of B rows.
Dropout masks are drawn in `step`'s order (attention weights, then between layers), so a seeded
run draws the same masks on either path; the tests hold the two equal, gradients included.

Measured gain (2026-11-25; AMD EPYC, 2 cores shared with other work, torch 2.13.0+cpu on 2
threads; params.yaml's model: E=128, H=256, L=1, bidirectional encoder, V=8000), milliseconds per
forward and backward and the ratio autograd's (through `step`) / the hand-written's, in one run of

    python -m attention_lab.bench.recurrence

                 recurrence (features)               decoder (logits and loss, as training)
    B    S = T   hand-written  autograd  ratio       hand-written  autograd  ratio
    32   16      48.8          71.9      1.47x       87.2          112.8     1.29x
    8    64      112.8         202.3     1.79x       153.1         239.9     1.57x

(medians of 7 interleaved repeats of 5 steps; a second run: 1.50x, 1.20x, 1.88x, 1.51x).
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor, nn

from attention_lab.model.attention import AdditiveAttention
from attention_lab.model.fused_attention import key_mask
from attention_lab.model.gru_cell import (
    LayerStep,
    LayerWeights,
    flat_layers,
    gru_factors,
    gru_step,
    input_grad,
    unflat_layers,
)
from attention_lab.model.precision import recurrence_dtype


class Step(NamedTuple):
    """What one decoder step keeps for the backward."""
    weights: Tensor  # (B, S): attention weights before dropout
    mask: Tensor  # (B, S) or (B, 1): what the weights were multiplied by (dropout, and 0 on rows without keys)
    layers: list[LayerStep]  # L


class Saved(NamedTuple):
    """Everything the backward reads but the weights: `Step`s and `LayerStep`s stacked over steps."""
    keys: Tensor  # (B, S, A)
    projected: Tensor  # (B, S, 3H)
    w_q: Tensor  # (A, H)
    w_v: Tensor  # (1, A)
    tanh_f: Tensor  # (T, B, S, A): tanh(W_q s + keys), s the top layer's state before each step; the largest
    weights: Tensor  # (T, B, S)
    masks: Tensor  # (T, B, S)
    previous: Tensor  # (T, L, B, H)
    gates: Tensor  # (T, L, B, 2H)
    candidates: Tensor  # (T, L, B, H)
    recurrent_n: Tensor  # (T, L, B, H)
    inputs: Tensor | None  # (T, L - 1, B, H); None for L = 1
    input_masks: Tensor | None  # (T, L - 1, B, H); None for L = 1 or without dropout

    @staticmethod
    def of(keys: Tensor, projected: Tensor, w_q: Tensor, w_v: Tensor, tanh_f: Tensor, steps: list[Step]) -> Saved:
        """The tensors that are the same at every step, and `steps` (T) stacked."""
        T, B, S, _ = tanh_f.shape
        L = len(steps[0].layers)
        every = [layer for step in steps for layer in step.layers]  # T·L, step-major
        above_first = [layer for step in steps for layer in step.layers[1:]]  # T·(L - 1)
        return Saved(keys, projected, w_q, w_v, tanh_f,
                     weights=torch.stack([step.weights for step in steps]),
                     masks=torch.stack([step.mask.expand(B, S) for step in steps]),
                     previous=stacked([x.previous for x in every], T, L),
                     gates=stacked([x.gates for x in every], T, L),
                     candidates=stacked([x.candidate for x in every], T, L),
                     recurrent_n=stacked([x.recurrent_n for x in every], T, L),
                     inputs=stacked([x.inputs for x in above_first], T, L - 1),
                     input_masks=stacked([x.input_mask for x in above_first], T, L - 1))


def stacked(tensors: list[Tensor | None], *lead: int) -> Tensor | None:
    """Tensors (...) in row-major order over `lead` -> (*lead, ...); None for [] or a list of None."""
    if not tensors or tensors[0] is None:
        return None
    return torch.stack(tensors).view(*lead, *tensors[0].shape)


def save(ctx, saved: Saved, layers: list[LayerWeights]) -> None:
    """`save_for_backward` takes one flat list (of tensors or None): `Saved`'s fields, then the
    layers' weights. `load` is its inverse, the only reader of `ctx.saved_tensors`."""
    ctx.save_for_backward(*saved, *flat_layers(layers))


def load(ctx) -> tuple[Saved, list[LayerWeights]]:
    tensors = ctx.saved_tensors
    return Saved(*tensors[: len(Saved._fields)]), unflat_layers(tensors[len(Saved._fields) :])


def dropout_mask(like: Tensor, p: float) -> Tensor | None:
    """The scaled keep-mask `F.dropout` multiplies by, drawn from the same random numbers; None
    when nothing is dropped."""
    if p == 0:
        return None
    return torch.empty_like(like).bernoulli_(1 - p).div_(1 - p)


def bahdanau_gru(x0: Tensor, keys: Tensor, projected: Tensor, src_len: Tensor, hidden: Tensor,
                 attention: AdditiveAttention, rnn: nn.GRU, training: bool) -> Tensor:
    """Top-layer outputs (B, T, H) of the decoder's GRU over T teacher-forced steps.

    x0 (B, T, 3H): the first layer's input product of the embeddings, bias included; keys
    (B, S, A): `attention.prepare_keys` of the encoder outputs; projected (B, S, 3H): the encoder
    outputs times the first layer's context columns of W_ih, so that attending over them gives
    the context's share of the input product; src_len (B,); hidden (L, B, H): the initial state.
    """
    layers = [LayerWeights(getattr(rnn, f"weight_hh_l{k}"), getattr(rnn, f"bias_hh_l{k}"),
                           getattr(rnn, f"weight_ih_l{k}") if k else None,  # layer 0's are in x0 and projected
                           getattr(rnn, f"bias_ih_l{k}") if k else None)
              for k in range(rnn.num_layers)]
    dropout = (attention.dropout.p, rnn.dropout) if training else (0.0, 0.0)
    valid = key_mask(src_len, keys.shape[1])[:, 0]  # (B, S)
    dtype = recurrence_dtype(x0.device.type, rnn.weight_hh_l0.dtype)
    weights = [w.to(dtype) for w in (attention.W_q.weight, attention.w_v.weight, *flat_layers(layers))]
    with torch.autocast(x0.device.type, enabled=False):
        return BahdanauGRU.apply(x0.to(dtype), keys.to(dtype), projected.to(dtype), valid, hidden.to(dtype),
                                 weights[0], weights[1], *dropout, *weights[2:])


class BahdanauGRU(torch.autograd.Function):
    """See the module docstring; the layers' weights come as `flat_layers` lists them."""

    @staticmethod
    def forward(ctx, x0: Tensor, keys: Tensor, projected: Tensor, valid: Tensor, h0: Tensor, w_q: Tensor,
                w_v: Tensor, attention_p: float, layer_p: float, *flat: Tensor) -> Tensor:
        T = x0.shape[1]
        L, _, H = h0.shape
        A = keys.shape[2]
        layers = unflat_layers(flat)
        # The query's product and the top layer's recurrent product read the same state: one GEMM.
        top_w = torch.cat([w_q, layers[-1].w_hh])  # (A + 3H, H)
        top_b = torch.cat([layers[-1].b_hh.new_zeros(A), layers[-1].b_hh])  # (A + 3H,)
        # -inf on padding; a row without keys scores 0 and its weights are zeroed by `keep`.
        any_valid = valid.any(-1, keepdim=True)  # (B, 1)
        bias = x0.new_zeros(valid.shape).masked_fill_(~valid & any_valid, float("-inf"))  # (B, S)
        keep = any_valid.to(x0.dtype)  # (B, 1)
        h = list(h0.unbind(0))  # L x (B, H): each layer's current state
        steps, outputs = [], []
        tanh_f = keys.new_empty(T, *keys.shape)  # (T, B, S, A), written in place rather than stacked
        for t in range(T):
            g = torch.addmm(top_b, h[-1], top_w.t())  # (B, A + 3H)
            f = torch.tanh(keys + g[:, None, :A], out=tanh_f[t])  # (B, S, A)
            scores = torch.matmul(f, w_v[0]) + bias  # (B, S)
            w = torch.softmax(scores, dim=-1)  # (B, S)
            drop = dropout_mask(w, attention_p)
            m = keep if drop is None else drop * keep  # (B, 1) or (B, S)
            x = torch.baddbmm(x0[:, t, None], (w * m)[:, None], projected)[:, 0]  # (B, 3H)
            layer_steps = []
            for k, layer in enumerate(layers):
                drop = inputs = None
                if k:
                    drop = dropout_mask(h[k - 1], layer_p)  # h[k - 1] is layer k - 1's new state
                    inputs = h[k - 1] if drop is None else h[k - 1] * drop  # (B, H)
                    x = torch.addmm(layer.b_ih, inputs, layer.w_ih.t())  # (B, 3H)
                gh = g[:, A:] if k == L - 1 else torch.addmm(layer.b_hh, h[k], layer.w_hh.t())  # (B, 3H)
                rz, n, new = gru_step(x, gh, h[k])  # (B, 2H), (B, H), (B, H)
                layer_steps.append(LayerStep(h[k], rz, n, gh[:, 2 * H :], inputs, drop))
                h[k] = new
            steps.append(Step(w, m, layer_steps))
            outputs.append(h[-1])
        save(ctx, Saved.of(keys, projected, w_q, w_v, tanh_f, steps), layers)
        return torch.stack(outputs, dim=1)  # (B, T, H)

    @staticmethod
    def backward(ctx, d_out: Tensor):
        saved, layers = load(ctx)
        T, B, _, A = saved.tanh_f.shape
        L, H = len(layers), saved.previous.shape[-1]
        top_w = torch.cat([saved.w_q, layers[-1].w_hh])  # (A + 3H, H)

        # The gates' derivative factors of every step at once: (T, L, B, 3, H), (T, L, B, 3H), (T, L, B, H).
        c, g, z = gru_factors(saved.gates, saved.candidates, saved.previous, saved.recurrent_n)
        tanh_f = saved.tanh_f  # (T, B, S, A)
        sech2_f = torch.addcmul(tanh_f.new_ones(()), tanh_f, tanh_f, value=-1)  # (T, B, S, A): 1 - f²
        d_keys = torch.zeros_like(saved.keys)  # (B, S, A), before the w_v factor

        dh = [d_out.new_zeros(B, H) for _ in range(L)]  # gradient of each layer's state after step t
        d_x = [[None] * T for _ in range(L)]  # per layer and step (B, 3H): the gradient of the input product
        d_h = [[None] * T for _ in range(L)]  # per layer and step (B, 3H): the gradient of the recurrent product
        d_top = [None] * T  # per step (B, A + 3H): [query product; top layer's recurrent product]
        d_scores = [None] * T  # per step (B, S)
        for t in reversed(range(T)):
            dh[-1] = dh[-1] + d_out[:, t]
            for k in reversed(range(L)):
                d_x[k][t] = input_grad(dh[k], c[t, k])  # (B, 3H)
                d_h[k][t] = d_x[k][t] * g[t, k]  # (B, 3H)
                if k:
                    d_in = d_x[k][t] @ layers[k].w_ih  # (B, H)
                    mask = None if saved.input_masks is None else saved.input_masks[t, k - 1]  # (B, H)
                    dh[k - 1] = dh[k - 1] + (d_in if mask is None else d_in * mask)
            # Attention: x0 + Σ_s a_s P_s with a = softmax(w_vᵀ tanh(W_q q + k_s)) · mask.
            d_a = torch.bmm(saved.projected, d_x[0][t][:, :, None])[:, :, 0] * saved.masks[t]  # (B, S)
            w = saved.weights[t]
            d_s = w * (d_a - (w * d_a).sum(-1, keepdim=True))  # (B, S)
            d_q = torch.bmm(d_s[:, None], sech2_f[t])[:, 0] * saved.w_v[0]  # (B, A)
            d_keys.addcmul_(d_s[..., None], sech2_f[t])
            d_scores[t] = d_s
            d_top[t] = torch.cat([d_q, d_h[-1][t]], dim=-1)  # (B, A + 3H)
            new = [torch.addmm(dh[k] * z[t, k], d_h[k][t], layers[k].w_hh) for k in range(L - 1)]
            dh = new + [torch.addmm(dh[-1] * z[t, -1], d_top[t], top_w)]

        d_top_w = torch.stack(d_top).flatten(0, 1).t() @ saved.previous[:, -1].flatten(0, 1)  # (A + 3H, H)
        d_x0 = torch.stack(d_x[0], dim=1)  # (B, T, 3H)
        d_projected = torch.bmm((saved.weights * saved.masks).permute(1, 2, 0), d_x0)  # (B, S, 3H)
        d_keys *= saved.w_v[0]  # (B, S, A)
        d_w_v = torch.stack(d_scores).reshape(1, -1) @ tanh_f.reshape(-1, A)  # (1, A)
        d_layers = []
        for k in range(L):
            d_hk = torch.stack(d_h[k]).flatten(0, 1)  # (T·B, 3H)
            d_w_hh = d_top_w[A:] if k == L - 1 else d_hk.t() @ saved.previous[:, k].flatten(0, 1)  # (3H, H)
            d_w_ih = d_b_ih = None
            if k:
                d_xk = torch.stack(d_x[k]).flatten(0, 1)  # (T·B, 3H)
                d_w_ih, d_b_ih = d_xk.t() @ saved.inputs[:, k - 1].flatten(0, 1), d_xk.sum(0)
            d_layers.append(LayerWeights(d_w_hh, d_hk.sum(0), d_w_ih, d_b_ih))
        return (d_x0, d_keys, d_projected, None, torch.stack(dh), d_top_w[:A], d_w_v, None, None,
                *flat_layers(d_layers))
