"""Teacher forcing through the Bahdanau decoder's recurrence (additive attention, then a GRU),
with a hand-written backward through time.

Under autograd each decoder step records ~50 small operations and the backward replays each with
its own overhead; at d2l's sizes (B=64, H=32) that overhead, not arithmetic, was most of a
training step. `BahdanauGRU` computes the function of T calls of `BahdanauDecoder.step`
(Bahdanau et al. 2014 §3.1 and A.2.2; the GRU of `gru_cell`) without recording, keeps what the
backward needs, and in the backward
- loops over steps only for what is sequential, the gradients of the hidden states, with every
  derivative factor of the gates computed for all steps at once beforehand;
- computes each weight gradient after the loop, in one product over all T·B rows rather than T
  products of B rows.
Dropout masks are drawn in `step`'s order (attention weights, then between layers), so a seeded
run draws the same masks on either path; the tests hold the two equal, gradients included.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attention_lab.model.attention import AdditiveAttention, key_mask
from attention_lab.model.gru_cell import gru_factors, gru_step, input_grad


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
    layers = []
    for k in range(rnn.num_layers):
        layers += [getattr(rnn, f"{name}_l{k}") for name in ("weight_hh", "bias_hh")]
        if k:
            layers += [getattr(rnn, f"{name}_l{k}") for name in ("weight_ih", "bias_ih")]
    dropout = (attention.dropout.p, rnn.dropout) if training else (0.0, 0.0)
    valid = key_mask(src_len, keys.shape[1])[:, 0]  # (B, S)
    dtype = rnn.weight_hh_l0.dtype  # under autocast the recurrence still runs in the weights' dtype
    with torch.autocast(x0.device.type, enabled=False):
        return BahdanauGRU.apply(x0.to(dtype), keys.to(dtype), projected.to(dtype), valid, hidden.to(dtype),
                                 attention.W_q.weight, attention.w_v.weight, *dropout, *layers)


class BahdanauGRU(torch.autograd.Function):
    """See the module docstring. Layer k's weights come as (W_hh, b_hh) for k = 0 (its input
    product is x0 plus attention) and (W_hh, b_hh, W_ih, b_ih) above it."""

    @staticmethod
    def forward(ctx, x0: Tensor, keys: Tensor, projected: Tensor, valid: Tensor, h0: Tensor, w_q: Tensor,
                w_v: Tensor, attention_p: float, layer_p: float, *layers: Tensor) -> Tensor:
        B, T, _ = x0.shape
        L, _, H = h0.shape
        A = keys.shape[2]
        w_hh, b_hh, w_ih, b_ih = layer_weights(layers, L)
        # The query's product and the top layer's recurrent product read the same state: one GEMM.
        top_w = torch.cat([w_q, w_hh[-1]])  # (A + 3H, H)
        top_b = torch.cat([b_hh[-1].new_zeros(A), b_hh[-1]])  # (A + 3H,)
        # -inf on padding; a row without keys scores 0 and its weights are zeroed by `keep`.
        any_valid = valid.any(-1, keepdim=True)  # (B, 1)
        bias = x0.new_zeros(valid.shape).masked_fill_(~valid & any_valid, float("-inf"))  # (B, S)
        keep = any_valid.to(x0.dtype)  # (B, 1)
        h = list(h0.unbind(0))  # L x (B, H)
        states = [[hk] for hk in h]  # L x (T + 1) x (B, H): every layer's state before and after each step
        top_products, lower_products, gates, candidates, weights, masks, layer_masks, layer_inputs = (
            [] for _ in range(8))
        tanh_f = keys.new_empty(T, *keys.shape)  # (T, B, S, A), written in place: the largest saved tensor
        for t in range(T):
            g = torch.addmm(top_b, h[-1], top_w.t())  # (B, A + 3H)
            top_products.append(g)
            f = torch.tanh(keys + g[:, None, :A], out=tanh_f[t])  # (B, S, A)
            scores = torch.matmul(f, w_v[0]) + bias  # (B, S)
            w = torch.softmax(scores, dim=-1)  # (B, S)
            drop = dropout_mask(w, attention_p)
            m = keep if drop is None else drop * keep  # (B, S) or (B, 1)
            x = torch.baddbmm(x0[:, t, None], (w * m)[:, None], projected)[:, 0]  # (B, 3H)
            weights.append(w)
            masks.append(m)
            for k in range(L):
                if k:
                    drop = dropout_mask(h[k - 1], layer_p)
                    inputs = h[k - 1] if drop is None else h[k - 1] * drop  # (B, H)
                    layer_masks.append(drop)
                    layer_inputs.append(inputs)
                    x = torch.addmm(b_ih[k], inputs, w_ih[k].t())  # (B, 3H)
                if k == L - 1:
                    gh = g[:, A:]  # (B, 3H)
                else:
                    gh = torch.addmm(b_hh[k], h[k], w_hh[k].t())  # (B, 3H)
                    lower_products.append(gh)
                rz, n, h[k] = gru_step(x, gh, h[k])  # (B, 2H), (B, H), (B, H)
                gates.append(rz)
                candidates.append(n)
                states[k].append(h[k])
        stacked = [torch.stack(top_products), tanh_f, torch.stack(weights)]
        ctx.num_layers = L
        ctx.masks, ctx.layer_masks = masks, layer_masks
        ctx.save_for_backward(keys, projected, w_q, w_v, *layers, *stacked,
                              torch.stack([torch.stack(s) for s in states]),  # (L, T + 1, B, H)
                              torch.stack(gates).view(T, L, B, 2 * H),
                              torch.stack(candidates).view(T, L, B, H),
                              torch.stack(lower_products).view(T, L - 1, B, 3 * H) if L > 1 else g.new_empty(0),
                              torch.stack(layer_inputs).view(T, L - 1, B, H) if L > 1 else g.new_empty(0))
        return torch.stack(states[-1][1:], dim=1)  # (B, T, H)

    @staticmethod
    def backward(ctx, d_out: Tensor):
        L = ctx.num_layers
        keys, projected, w_q, w_v, *rest = ctx.saved_tensors
        layers, rest = rest[: 4 * L - 2], rest[4 * L - 2 :]
        top_products, tanh_f, weights, states, gates, candidates, lower_products, layer_inputs = rest
        w_hh, _, w_ih, _ = layer_weights(layers, L)
        T, B, S, A = tanh_f.shape
        H = states.shape[-1]
        top_w = torch.cat([w_q, w_hh[-1]])  # (A + 3H, H)

        # The gates' derivative factors of every step at once (`gru_factors`).
        previous = states[:, :-1].transpose(0, 1)  # (T, L, B, H)
        recurrent_n = top_products[:, None, :, A + 2 * H :]  # (T, 1, B, H): W_hn h + b_hn of the top layer
        if L > 1:
            recurrent_n = torch.cat([lower_products[..., 2 * H :], recurrent_n], dim=1)  # (T, L, B, H)
        c, g, z = gru_factors(gates, candidates, previous, recurrent_n)  # (T, L, B, 3, H), (T, L, B, 3H), (T, L, B, H)
        sech2_f = torch.addcmul(tanh_f.new_ones(()), tanh_f, tanh_f, value=-1)  # (T, B, S, A): 1 - f²
        d_keys = torch.zeros_like(keys)  # (B, S, A), before the w_v factor

        dh = [d_out.new_zeros(B, H) for _ in range(L)]  # gradient of each layer's state after step t
        d_x = [[None] * T for _ in range(L)]  # (B, 3H): the gradients of each input product
        d_h = [[None] * T for _ in range(L)]  # (B, 3H): the gradients of each recurrent product
        d_top = [None] * T  # (B, A + 3H): [query product; top layer's recurrent product]
        d_scores = [None] * T  # (B, S)
        for t in reversed(range(T)):
            dh[-1] = dh[-1] + d_out[:, t]
            for k in reversed(range(L)):
                d_x[k][t] = input_grad(dh[k], c[t, k])  # (B, 3H)
                d_h[k][t] = d_x[k][t] * g[t, k]  # (B, 3H)
                if k:
                    d_in = d_x[k][t] @ w_ih[k]  # (B, H)
                    mask = ctx.layer_masks[t * (L - 1) + k - 1]
                    dh[k - 1] = dh[k - 1] + (d_in if mask is None else d_in * mask)
            # Attention: x0 + Σ_s a_s P_s with a = softmax(w_vᵀ tanh(W_q q + k_s)) · mask.
            d_a = torch.bmm(projected, d_x[0][t][:, :, None])[:, :, 0] * ctx.masks[t]  # (B, S)
            w = weights[t]
            d_s = w * (d_a - (w * d_a).sum(-1, keepdim=True))  # (B, S)
            d_q = torch.bmm(d_s[:, None], sech2_f[t])[:, 0] * w_v[0]  # (B, A)
            d_keys.addcmul_(d_s[..., None], sech2_f[t])
            d_scores[t] = d_s
            d_top[t] = torch.cat([d_q, d_h[-1][t]], dim=-1)  # (B, A + 3H)
            new = [torch.addmm(dh[k] * z[t, k], d_h[k][t], w_hh[k]) for k in range(L - 1)]
            dh = new + [torch.addmm(dh[-1] * z[t, -1], d_top[t], top_w)]

        d_top = torch.stack(d_top).flatten(0, 1)  # (T·B, A + 3H)
        d_top_w = d_top.t() @ states[-1, :-1].flatten(0, 1)  # (A + 3H, H)
        d_scores = torch.stack(d_scores)  # (T, B, S)
        d_x0 = torch.stack(d_x[0], dim=1)  # (B, T, 3H)
        kept = (weights * torch.stack([m.expand(B, S) for m in ctx.masks])).permute(1, 2, 0)  # (B, S, T)
        d_projected = torch.bmm(kept, d_x0)  # (B, S, 3H)
        d_keys *= w_v[0]  # (B, S, A)
        d_w_v = (d_scores.reshape(1, -1) @ tanh_f.reshape(-1, A))  # (1, A)
        d_layers = []
        for k in range(L):
            d_hk = torch.stack(d_h[k]).flatten(0, 1)  # (T·B, 3H)
            if k == L - 1:
                d_layers += [d_top_w[A:], d_hk.sum(0)]
            else:
                d_layers += [d_hk.t() @ states[k, :-1].flatten(0, 1), d_hk.sum(0)]
            if k:
                d_xk = torch.stack(d_x[k]).flatten(0, 1)  # (T·B, 3H)
                d_layers += [d_xk.t() @ layer_inputs[:, k - 1].flatten(0, 1), d_xk.sum(0)]
        return (d_x0, d_keys, d_projected, None, torch.stack(dh), d_top_w[:A], d_w_v, None, None, *d_layers)


def layer_weights(layers: tuple[Tensor, ...], num_layers: int) -> tuple[list, list, list, list]:
    """Per-layer lists W_hh, b_hh, W_ih, b_ih (the last two None for layer 0) from the flat
    argument list."""
    w_hh, b_hh, w_ih, b_ih = [], [], [None], [None]
    position = 0
    for k in range(num_layers):
        w_hh.append(layers[position])
        b_hh.append(layers[position + 1])
        position += 2
        if k:
            w_ih.append(layers[position])
            b_ih.append(layers[position + 1])
            position += 2
    return w_hh, b_hh, w_ih, b_ih
