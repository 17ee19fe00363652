"""Tests for the attention scorers and masked softmax (attention_lab.model.attention).

Sizes are deliberately unequal (B=3, Q=5, K=7, feature sizes 6/4/3) so that a transposed or
broadcast-by-accident axis changes a shape or a value instead of passing silently.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_lab.model.attention import KINDS, make_attention, masked_softmax
from attention_lab.model.fused_attention import fused_attention, key_mask, packed_rows, side_by_side

B, Q, K = 3, 5, 7
DQ, DK, DV = 6, 4, 3  # dot and scaled_dot use DQ for keys too


def build(kind: str, dropout: float = 0.0, max_keys: int = K) -> torch.nn.Module:
    key_size = DQ if kind in ("dot", "scaled_dot") else DK
    return make_attention(kind, DQ, key_size, hidden_size=8, dropout=dropout, max_keys=max_keys)


def inputs(kind: str, dtype: torch.dtype = torch.float32, seed: int = 0) -> tuple[torch.Tensor, ...]:
    """Queries (B, Q, DQ), keys (B, K, DK|DQ), values (B, K, DV)."""
    generator = torch.Generator().manual_seed(seed)
    key_size = DQ if kind in ("dot", "scaled_dot") else DK
    queries = torch.randn(B, Q, DQ, generator=generator, dtype=dtype)
    keys = torch.randn(B, K, key_size, generator=generator, dtype=dtype)
    values = torch.randn(B, K, DV, generator=generator, dtype=dtype)
    return queries, keys, values


VALID_1D = torch.tensor([7, 3, 1])
VALID_2D = torch.tensor([[1, 2, 3, 4, 5], [7, 7, 6, 2, 1], [3, 1, 4, 1, 5]])


def beyond(valid_lens: torch.Tensor) -> torch.Tensor:
    """True on padded keys, broadcast to (B, Q, K)."""
    return ~key_mask(valid_lens, K).expand(B, Q, K)


# ---------------------------------------------------------------------------------------------
# d2l §11.3's toy examples: every key is the same, so the weights are uniform over the valid ones.


def pool(attention, queries, keys, values, valid_lens=None, need_weights=True):
    """(context, weights) of one attention call, as a decoder step gets them."""
    return attention.attend(queries, attention.prepare_keys(keys), values, valid_lens, need_weights)


def d2l_toy(query_size: int) -> tuple[torch.Tensor, ...]:
    torch.manual_seed(0)
    queries = torch.normal(0, 1, (2, 1, query_size))
    keys = torch.ones((2, 10, 2))
    values = torch.arange(40, dtype=torch.float32).reshape(1, 10, 4).repeat(2, 1, 1)
    return queries, keys, values, torch.tensor([2, 6])


@pytest.mark.parametrize("kind, query_size", [("additive", 20), ("scaled_dot", 2)])
def test_d2l_toy_example_gives_uniform_weights_over_valid_keys(kind, query_size):
    queries, keys, values, valid_lens = d2l_toy(query_size)
    attention = make_attention(kind, query_size, 2, hidden_size=8, dropout=0.1).eval()
    context, weights = pool(attention, queries, keys, values, valid_lens)
    expected = torch.zeros(2, 1, 10)
    expected[0, 0, :2] = 1 / 2
    expected[1, 0, :6] = 1 / 6
    torch.testing.assert_close(weights, expected)
    assert (weights[0, 0, 2:] == 0).all()
    assert (weights[1, 0, 6:] == 0).all()
    # The mean of the valid value rows, as printed in d2l.
    torch.testing.assert_close(context, torch.tensor([[[2.0, 3, 4, 5]], [[10.0, 11, 12, 13]]]))


# ---------------------------------------------------------------------------------------------
# Weights: a distribution over the valid keys, exactly zero on padding.


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("valid_lens", [VALID_1D, VALID_2D], ids=["1d", "2d"])
def test_weights_sum_to_one_and_are_exactly_zero_on_padding(kind, valid_lens):
    attention = build(kind).eval()
    context, weights = pool(attention, *inputs(kind), valid_lens)
    assert context.shape == (B, Q, DV)
    assert weights.shape == (B, Q, K)
    torch.testing.assert_close(weights.sum(-1), torch.ones(B, Q))
    assert (weights[beyond(valid_lens)] == 0).all()
    assert (weights[~beyond(valid_lens)] > 0).all()


@pytest.mark.parametrize("kind", KINDS)
def test_no_valid_lens_means_every_key_counts(kind):
    attention = build(kind).eval()
    _, weights = pool(attention, *inputs(kind))
    assert (weights > 0).all()
    torch.testing.assert_close(weights.sum(-1), torch.ones(B, Q))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_masked_softmax_padding_is_exactly_zero_in_every_dtype(dtype):
    scores = torch.randn(B, Q, K, generator=torch.Generator().manual_seed(1)).to(dtype)
    weights = masked_softmax(scores, VALID_1D)
    assert weights.dtype == dtype
    assert (weights[beyond(VALID_1D)] == 0).all()
    torch.testing.assert_close(weights.sum(-1).double(), torch.ones(B, Q, dtype=torch.float64),
                               atol=1e-2, rtol=0)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("valid_lens", [torch.tensor([0, 3, 7]),
                                        torch.tensor([[0, 2, 0, 7, 1], [0, 0, 0, 0, 0], [3, 1, 4, 0, 5]])],
                         ids=["1d", "2d"])
def test_valid_length_zero_gives_zero_row_and_finite_gradients(kind, valid_lens):
    attention = build(kind).eval()
    queries, keys, values = (t.requires_grad_() for t in inputs(kind))
    context, weights = pool(attention, queries, keys, values, valid_lens)
    empty = key_mask(valid_lens, K).expand(B, Q, K).any(-1) == 0  # (B, Q)
    assert empty.any()
    assert not weights.isnan().any() and not context.isnan().any()
    assert (weights[empty] == 0).all()
    assert (context[empty] == 0).all()
    torch.testing.assert_close(weights[~empty].sum(-1), torch.ones(int((~empty).sum())))
    (context * torch.randn_like(context)).sum().backward()
    # Location attention scores positions, not key content, so keys get no gradient at all.
    inputs_with_grad = (queries, values) if kind == "location" else (queries, keys, values)
    for tensor in (*inputs_with_grad, *attention.parameters()):
        assert tensor.grad is not None and tensor.grad.isfinite().all()


# ---------------------------------------------------------------------------------------------
# The fused path of scaled dot-product attention matches the explicit one.


@pytest.mark.parametrize("valid_lens", [None, torch.tensor([0, 3, 7]),
                                        torch.tensor([[0, 2, 0, 7, 1], [7, 6, 5, 4, 3], [1, 1, 0, 2, 9]])],
                         ids=["none", "1d", "2d"])
def test_sdpa_path_equals_explicit_path_in_float64(valid_lens):
    attention = build("scaled_dot").eval()
    explicit_inputs = [t.requires_grad_() for t in inputs("scaled_dot", torch.float64)]
    fused_inputs = [t.detach().clone().requires_grad_() for t in explicit_inputs]
    explicit = attention(*explicit_inputs, valid_lens, need_weights=True)
    fused, weights = pool(attention, *fused_inputs, valid_lens, need_weights=False)
    assert weights is None  # the fused kernel's path
    torch.testing.assert_close(fused, explicit, atol=1e-6, rtol=0)
    upstream = torch.randn(B, Q, DV, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    (explicit * upstream).sum().backward()
    (fused * upstream).sum().backward()
    for a, b in zip(explicit_inputs, fused_inputs):
        torch.testing.assert_close(b.grad, a.grad, atol=1e-6, rtol=0)


# ---------------------------------------------------------------------------------------------
# Parameters, sizes, construction errors, the decoder interface.


@pytest.mark.parametrize("kind", KINDS)
def test_gradients_reach_every_parameter_and_input(kind):
    attention = build(kind).train()  # dropout 0: train mode must not change the computation
    queries, keys, values = (t.requires_grad_() for t in inputs(kind))
    context = attention(queries, keys, values, VALID_1D)
    (context * torch.randn_like(context)).sum().backward()
    parameters = list(attention.named_parameters())
    assert len(parameters) == {"additive": 3, "dot": 0, "scaled_dot": 0, "general": 1, "location": 2}[kind]
    named_inputs = [("queries", queries), ("values", values)] + ([] if kind == "location" else [("keys", keys)])
    for name, parameter in parameters + named_inputs:
        assert parameter.grad is not None, name
        assert parameter.grad.isfinite().all(), name
        assert parameter.grad.abs().sum() > 0, name


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_handles_unequal_sizes(kind):
    attention = build(kind, max_keys=K + 2).eval()
    for num_keys in (1, K):
        queries, keys, values = inputs(kind)
        context, weights = pool(attention, queries, keys[:, :num_keys], values[:, :num_keys])
        assert context.shape == (B, Q, DV)
        assert weights.shape == (B, Q, num_keys)


def test_unknown_kind_is_named_in_the_error():
    with pytest.raises(ValueError, match="'banana'"):
        make_attention("banana", DQ, DK, hidden_size=8)


@pytest.mark.parametrize("kind", ["dot", "scaled_dot"])
def test_dot_products_refuse_different_query_and_key_sizes(kind):
    with pytest.raises(ValueError, match=kind):
        make_attention(kind, DQ, DK, hidden_size=8)


def test_location_attention_refuses_more_keys_than_max_keys():
    attention = build("location", max_keys=K - 1)
    with pytest.raises(ValueError, match=f"at most {K - 1} keys, got {K}"):
        attention(*inputs("location"))


@pytest.mark.parametrize("kind", KINDS)
def test_prepare_keys_then_attend_equals_forward(kind):
    attention = build(kind).eval()
    queries, keys, values = inputs(kind)
    expected, expected_weights = pool(attention, queries, keys, values, VALID_2D)
    prepared = attention.prepare_keys(keys)
    # A decoder attends one query at a time over keys prepared once.
    steps = [attention.attend(queries[:, i:i + 1], prepared, values, VALID_2D[:, i:i + 1]) for i in range(Q)]
    torch.testing.assert_close(torch.cat([context for context, _ in steps], dim=1), expected)
    torch.testing.assert_close(torch.cat([weights for _, weights in steps], dim=1), expected_weights)


def test_dropout_in_train_mode_keeps_unmodified_weights():
    attention = build("additive", dropout=0.5).train()
    torch.manual_seed(3)
    _, weights = pool(attention, *inputs("additive"), VALID_1D)
    torch.testing.assert_close(weights.sum(-1), torch.ones(B, Q))


# ---------------------------------------------------------------------------------------------
# Property: masked_softmax is a distribution over exactly the valid prefix, for any shapes.


@st.composite
def scores_and_lengths(draw):
    b, q, k = draw(st.integers(1, 4)), draw(st.integers(1, 6)), draw(st.integers(1, 9))
    scores = draw(arrays(np.float32, (b, q, k), elements=st.floats(-1e4, 1e4, width=32)))
    shape = draw(st.sampled_from([(b,), (b, q)]))
    lengths = draw(arrays(np.int64, shape, elements=st.integers(0, k + 2)))
    return torch.from_numpy(scores), torch.from_numpy(lengths)


@settings(max_examples=50, deadline=None)
@given(scores_and_lengths())
def test_masked_softmax_property(case):
    scores, valid_lens = case
    b, q, k = scores.shape
    weights = masked_softmax(scores, valid_lens)
    lengths = (valid_lens if valid_lens.dim() == 2 else valid_lens[:, None]).expand(b, q)  # (B, Q)
    positions = torch.arange(k).expand(b, q, k)
    assert not weights.isnan().any()
    assert (weights >= 0).all()
    assert (weights[positions >= lengths[..., None]] == 0).all()
    sums = weights.sum(-1)
    torch.testing.assert_close(sums[lengths > 0], torch.ones(int((lengths > 0).sum())))
    assert (sums[lengths == 0] == 0).all()


# ---------------------------------------------------------------------------------------------
# Every scorer against its paper's formula, computed here by hand (numpy loops, float64) from the
# module's own weights. Keys differ from each other (unlike d2l's toy, where any scorer gives
# uniform weights), two sentences have different valid lengths, and sizes are both unequal and
# equal (square weights: a transposed or swapped matrix changes values instead of crashing).

HB, HQ, HK, HV, HA = 2, 3, 5, 3, 7  # batch, queries, keys, value size, additive hidden size
HAND_VALID = {"1d": torch.tensor([5, 2]), "2d": torch.tensor([[5, 1, 3], [2, 2, 1]])}


def hand_scores(kind: str, attention: torch.nn.Module, q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Scores (B, Q, K) from the definitions, one (b, i, j) at a time."""
    weight = {name: p.detach().numpy() for name, p in attention.named_parameters()}
    out = np.zeros((q.shape[0], q.shape[1], k.shape[1]))
    for b, i, j in np.ndindex(*out.shape):
        qi, kj = q[b, i], k[b, j]
        if kind == "additive":  # Bahdanau: w_v^T tanh(W_q q + W_k k)
            out[b, i, j] = weight["w_v.weight"][0] @ np.tanh(weight["W_q.weight"] @ qi + weight["W_k.weight"] @ kj)
        elif kind == "dot":  # Luong dot: q^T k
            out[b, i, j] = qi @ kj
        elif kind == "scaled_dot":  # Vaswani: q^T k / sqrt(d)
            out[b, i, j] = qi @ kj / np.sqrt(len(qi))
        elif kind == "general":  # Luong general: q^T W k
            out[b, i, j] = qi @ weight["W.weight"] @ kj
        else:  # Luong location: (W_a q + b_a)_j, position j only, whatever the key says
            out[b, i, j] = (weight["W_a.weight"] @ qi + weight["W_a.bias"])[j]
    return out


def hand_softmax(scores: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Softmax over the first valid[b, i] keys of each row, zero elsewhere."""
    out = np.zeros_like(scores)
    for b, i in np.ndindex(*scores.shape[:2]):
        n = valid[b, i]
        e = np.exp(scores[b, i, :n] - scores[b, i, :n].max())
        out[b, i, :n] = e / e.sum()
    return out


# Keys of DK features where the scorer allows it, and of DQ features for every scorer.
HAND_CASES = [(kind, DK) for kind in KINDS if kind not in ("dot", "scaled_dot")] + [(kind, DQ) for kind in KINDS]


@pytest.mark.parametrize("kind, dk", HAND_CASES, ids=[f"{kind}-dk{dk}" for kind, dk in HAND_CASES])
@pytest.mark.parametrize("lens", list(HAND_VALID))
def test_every_scorer_matches_its_formula_on_distinct_keys(kind, dk, lens):
    torch.manual_seed(7)
    attention = make_attention(kind, DQ, dk, hidden_size=HA, max_keys=HK + 2).double().eval()
    generator = torch.Generator().manual_seed(11)
    queries = torch.randn(HB, HQ, DQ, generator=generator, dtype=torch.float64)
    keys = torch.randn(HB, HK, dk, generator=generator, dtype=torch.float64)
    values = torch.randn(HB, HK, HV, generator=generator, dtype=torch.float64)
    valid_lens = HAND_VALID[lens]
    valid = (valid_lens[:, None] if valid_lens.dim() == 1 else valid_lens).expand(HB, HQ).numpy()  # (B, Q)

    expected_weights = hand_softmax(hand_scores(kind, attention, queries.numpy(), keys.numpy()), valid)
    expected_context = np.einsum("bqk,bkv->bqv", expected_weights, values.numpy())
    context, weights = pool(attention, queries, keys, values, valid_lens)
    # The keys really differ: the expected weights are far from uniform over the valid keys.
    assert np.abs(expected_weights[0, 0] - 1 / HK).max() > 0.02
    torch.testing.assert_close(weights, torch.from_numpy(expected_weights), rtol=0, atol=1e-12)
    torch.testing.assert_close(context, torch.from_numpy(expected_context), rtol=0, atol=1e-12)
    padded = np.arange(HK)[None, None, :] >= valid[:, :, None]  # (B, Q, K)
    assert (weights[torch.from_numpy(padded)] == 0).all()  # exactly zero, not merely small
    torch.testing.assert_close(weights.sum(-1), torch.ones(HB, HQ, dtype=torch.float64), rtol=0, atol=1e-12)
    if kind == "scaled_dot":  # the fused path, which keeps no weights, gives the same context
        fused = attention(queries, keys, values, valid_lens, need_weights=False)
        torch.testing.assert_close(fused, torch.from_numpy(expected_context), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# Sentences packed side by side (`packed_rows`): the contexts of one sentence a row.

# (heads, queries, keys, valid lengths or "causal"): 7 sentences, so rows of 2 or 3 leave a remainder.
PACKED_CASES = {
    "heads-self": ((2,), 5, 5, torch.tensor([5, 0, 3, 1, 5, 2, 4])),
    "heads-cross": ((2,), 5, 7, torch.tensor([7, 3, 0, 7, 1, 6, 2])),
    "heads-causal": ((2,), 5, 5, "causal"),
    "no-heads": ((), 5, 7, torch.tensor([2, 7, 7, 0, 4, 1, 3])),
    "heads-per-query": ((2,), 5, 7, torch.randint(0, 8, (7, 5), generator=torch.Generator().manual_seed(1))),
    "heads-all-keys": ((3,), 4, 6, None),
}


def packed_inputs(heads: tuple[int, ...], steps: int, num_keys: int, seed: int = 0) -> list[torch.Tensor]:
    """Queries (7, ..., Q, 4) and keys, values (7, ..., K, 4), heads as views of (7, Q, M·4) memory
    the way `MultiHeadAttention.split` makes them."""
    generator = torch.Generator().manual_seed(seed)
    made = []
    for length in (steps, num_keys, num_keys):
        x = torch.randn(7, length, *heads, 4, generator=generator, dtype=torch.float64)  # (7, Q|K, M, 4)
        made.append(x.movedim(1, -2) if heads else x)  # (7, M, Q|K, 4)
    return made


@pytest.mark.parametrize("case", list(PACKED_CASES))
@pytest.mark.parametrize("row_tokens", [14, 21, 70], ids=["2-a-row", "3-or-4-a-row", "all-in-one-row"])
def test_sentences_packed_side_by_side_get_the_contexts_and_gradients_of_one_a_row(case, row_tokens):
    heads, steps, num_keys, lens = PACKED_CASES[case]
    causal = isinstance(lens, str)
    valid_lens = None if causal else lens
    alone = [t.requires_grad_() for t in packed_inputs(heads, steps, num_keys)]
    packed = [t.detach().clone().requires_grad_() for t in alone]
    expected = fused_attention(*alone, valid_lens, causal=causal)
    with packed_rows(row_tokens):
        got = fused_attention(*packed, valid_lens, causal=causal)
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-12)
    upstream = torch.randn(expected.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    (expected * upstream).sum().backward()
    (got * upstream).sum().backward()
    for a, b in zip(alone, packed):
        torch.testing.assert_close(b.grad, a.grad, rtol=0, atol=1e-12)
    if lens is not None and not causal and lens.dim() == 1:
        assert (got[lens == 0] == 0).all()  # a sentence without keys reads nothing, not its neighbours'


def test_heads_pack_into_rows_that_are_views_of_their_memory():
    queries = packed_inputs((2,), 5, 5)[0]  # (7, M, Q, 4) over (7, Q, M, 4) memory
    rows = side_by_side(queries[:6], 3)
    assert rows.shape == (2, 2, 15, 4)
    torch.testing.assert_close(rows[1, 0, 5:10], queries[4, 0])  # row 2 holds sentences 3, 4, 5
    rows.zero_()  # written through: the very memory of the sentences
    assert (queries[:6] == 0).all() and (queries[6] != 0).any()


def test_rows_too_short_for_two_sentences_leave_one_sentence_a_row():
    queries, keys, values = packed_inputs((2,), 5, 7)
    lens = PACKED_CASES["heads-cross"][3]
    with torch.profiler.profile(record_shapes=True) as profile, packed_rows(13):  # 13 // 7 = 1 sentence a row
        fused_attention(queries, keys, values, lens)
    [alone] = [e for e in profile.events() if e.name == "aten::scaled_dot_product_attention"]
    assert alone.input_shapes[0] == [7, 2, 5, 4]


@pytest.mark.parametrize("valid_lens, causal", [(torch.tensor([5, 2, 3]), False), (None, True)])
def test_bf16_attention_on_the_cpu_runs_in_float32_and_returns_bf16(monkeypatch, valid_lens, causal):
    """PyTorch's CPU attention kernels run ~10x slower in bf16 than in float32 (docs/speed.md): under bf16 autocast
    the scores and softmax are float32, and the contexts bf16 as the layers after them expect."""
    torch.manual_seed(0)
    queries, keys, values = (torch.randn(3, 4, 5 if causal else 6, 8, requires_grad=True) for _ in range(3))
    seen = []
    sdpa = torch.nn.functional.scaled_dot_product_attention
    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention",
                        lambda q, *args, **kwargs: seen.append(q.dtype) or sdpa(q, *args, **kwargs))
    with torch.autocast("cpu", torch.bfloat16):
        halves = [torch.nn.functional.linear(x, torch.eye(8)) for x in (queries, keys, values)]  # bf16, as projections
        context = fused_attention(*halves, valid_lens, causal=causal)
    assert context.dtype == torch.bfloat16 and set(seen) == {torch.float32}
    expected = fused_attention(*(x.detach().bfloat16().float() for x in (queries, keys, values)), valid_lens,
                               causal=causal)
    torch.testing.assert_close(context.float(), expected, atol=1e-2, rtol=1e-2)
    context.float().sum().backward()
    assert all(x.grad is not None and torch.isfinite(x.grad).all() for x in (queries, keys, values))
