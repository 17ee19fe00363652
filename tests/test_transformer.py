"""Tests for multi-head attention, positional encoding and the Transformer encoder-decoder.

Sizes are unequal on purpose (B=3 sentences of 7, 5 and 2 pieces, Q=4 queries, H=12 features in
M=3 heads of Z=4) so that a head split along the wrong axis changes a value instead of passing.
Search over the Transformer (beam equals the exhaustive optimum, batch equals one-by-one) is
tested with the other decoders in `test_search.py`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from attention_lab.config import ConfigError, from_mapping
from attention_lab.data.special_tokens import BOS_ID, EOS_ID, PAD_ID
from attention_lab.inference.model_file import load_model, save_model
from attention_lab.inference.search import run_search
from attention_lab.inference.search_steps import output_limits
from attention_lab.model.loss import token_loss
from attention_lab.model.multi_head_attention import MultiHeadAttention
from attention_lab.model.positional_encoding import sinusoids
from attention_lab.model.seq2seq import ModelParams, build_model
from attention_lab.model.transformer import TransformerParams, TransformerSeq2Seq

B, Q, H, M = 3, 4, 12, 3
LENGTHS = torch.tensor([7, 5, 2])
SRC_V, TGT_V = 11, 13


def tiny(tie="none", layers=2, src_v=SRC_V, seed=0, dropout=0.0) -> TransformerSeq2Seq:
    torch.manual_seed(seed)
    params = ModelParams(arch="transformer", tie_embeddings=tie,
                         transformer=TransformerParams(layers=layers, heads=M, model_size=H, ffn_size=20,
                                                       dropout=dropout))
    return build_model(params, src_v, TGT_V).double().eval()


def sources(lengths=LENGTHS, seed=1) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, SRC_V, (len(lengths), int(max(lengths))), generator=g)
    for row, n in enumerate(lengths.tolist()):
        src[row, n:] = PAD_ID
    return src, lengths


def targets(steps=6, seed=2) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    tgt = torch.randint(4, TGT_V, (len(LENGTHS), steps), generator=g)
    tgt[:, 0] = BOS_ID
    return tgt


# ---------------------------------------------------------------------------------------------
# Multi-head attention against its definition, head by head.


def per_head_formula(mha: MultiHeadAttention, queries, keys, values, valid: torch.Tensor) -> tuple:
    """Vaswani et al. §3.2.2 written out: for each sentence b and head m,
    softmax(q W_q^m (k W_k^m)ᵀ / √Z) over the valid keys only, times v W_v^m; heads concatenated,
    then W_o. `valid` (B, Q, K) is True where a query may read a key."""
    z = H // M
    out = torch.zeros(B, queries.shape[1], H, dtype=queries.dtype)
    weights = torch.zeros(B, M, queries.shape[1], keys.shape[1], dtype=queries.dtype)
    for b in range(B):
        heads = []
        for m in range(M):
            rows = slice(m * z, (m + 1) * z)
            q = queries[b] @ mha.W_q.weight[rows].T  # (Q, Z)
            k = keys[b] @ mha.W_k.weight[rows].T  # (K, Z)
            v = values[b] @ mha.W_v.weight[rows].T  # (K, Z)
            for i in range(queries.shape[1]):
                readable = valid[b, i].nonzero()[:, 0]
                scores = q[i] @ k[readable].T / math.sqrt(z)
                weights[b, m, i, readable] = torch.softmax(scores, dim=-1)
            heads.append(weights[b, m] @ v)  # (Q, Z)
        out[b] = torch.cat(heads, dim=-1) @ mha.W_o.weight.T
    return out, weights


@pytest.mark.parametrize("per_query", [False, True], ids=["per-sentence", "per-query"])
def test_multi_head_attention_equals_its_per_head_formula_with_exact_zeros_on_padding(per_query):
    torch.manual_seed(0)
    mha = MultiHeadAttention(H, M).double()
    g = torch.Generator().manual_seed(3)
    keys_len = int(LENGTHS.max())
    queries = torch.randn(B, Q, H, generator=g, dtype=torch.float64)
    keys = torch.randn(B, keys_len, H, generator=g, dtype=torch.float64)
    values = torch.randn(B, keys_len, H, generator=g, dtype=torch.float64)
    # (B,) lengths, or (B, Q): each query its own number of keys, as causal self-attention has
    valid_lens = torch.tensor([[1, 3, 5, 7], [2, 2, 4, 5], [1, 2, 2, 1]]) if per_query else LENGTHS
    per_row = valid_lens if per_query else valid_lens[:, None].expand(B, Q)
    valid = torch.arange(keys_len)[None, None, :] < per_row[:, :, None]  # (B, Q, K)
    expected, expected_weights = per_head_formula(mha, queries, keys, values, valid)

    out, weights = mha(queries, keys, values, valid_lens, need_weights=True)
    assert out.shape == (B, Q, H) and weights.shape == (B, M, Q, keys_len)
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(weights, expected_weights)
    assert (weights[~valid[:, None].expand_as(weights)] == 0).all()  # exactly zero, not small
    # The fused path (no weights kept: scaled_dot_product_attention) computes the same function.
    fused, none = mha(queries, keys, values, valid_lens, need_weights=False)
    assert none is None
    torch.testing.assert_close(fused, expected)
    # Padding is never read: garbage in the padded keys and values changes nothing.
    noisy_keys, noisy_values = keys.clone(), values.clone()
    pad = ~valid.any(dim=1)  # (B, K) keys no query may read
    noisy_keys[pad], noisy_values[pad] = 1e3, -1e3
    torch.testing.assert_close(mha(queries, noisy_keys, noisy_values, valid_lens)[0], expected)


@pytest.mark.parametrize("scorer", ["additive", "dot", "general"])
def test_multi_head_attention_takes_any_scorer_with_the_same_masking(scorer):
    torch.manual_seed(0)
    mha = MultiHeadAttention(H, M, scorer=scorer).double()
    g = torch.Generator().manual_seed(4)
    x = torch.randn(B, 7, H, generator=g, dtype=torch.float64)
    out, weights = mha(x[:, :Q], x, x, LENGTHS, need_weights=True)
    assert out.shape == (B, Q, H) and weights.shape == (B, M, Q, 7)
    torch.testing.assert_close(weights.sum(-1), torch.ones(B, M, Q, dtype=torch.float64))
    for row, n in enumerate(LENGTHS.tolist()):
        assert (weights[row, ..., n:] == 0).all()


def test_heads_must_divide_the_model_size():
    with pytest.raises(ValueError, match="5 heads do not divide model_size 12"):
        MultiHeadAttention(12, 5)


# ---------------------------------------------------------------------------------------------
# Positional encoding.


def test_sinusoids_follow_the_formula_for_any_position_and_odd_sizes():
    for size in (8, 7):
        positions = torch.tensor([0, 1, 5, 300, 4999])
        encoding = sinusoids(positions, size)
        assert encoding.shape == (5, size)
        for row, i in enumerate(positions.tolist()):
            for j in range(size):
                angle = i / 10000 ** (2 * (j // 2) / size)
                expected = math.sin(angle) if j % 2 == 0 else math.cos(angle)
                assert encoding[row, j].item() == pytest.approx(expected, abs=1e-4)
    # distinct positions are distinct vectors; position 0 is (0, 1, 0, 1, ...)
    encoding = sinusoids(torch.arange(64), 16)
    assert torch.cdist(encoding, encoding).add(torch.eye(64)).min() > 0.1
    assert encoding[0, 0::2].abs().max() == 0 and (encoding[0, 1::2] == 1).all()


# ---------------------------------------------------------------------------------------------
# The Transformer: causality, cache, padding, learning, the model file, params.


def test_teacher_forcing_is_causal():
    model = tiny()
    src, src_len = sources()
    tgt = targets()
    logits = model(src, src_len, tgt)  # (B, T, V)
    assert logits.shape == (B, tgt.shape[1], TGT_V)
    changed = tgt.clone()
    changed[:, 3:] = torch.randint(4, TGT_V, changed[:, 3:].shape)
    later = model(src, src_len, changed)
    torch.testing.assert_close(later[:, :3], logits[:, :3])  # no step reads a later one
    assert not torch.allclose(later[:, 3:], logits[:, 3:])


def test_teacher_forcing_runs_the_fused_attention_kernel_and_never_the_score_matrix():
    """Every attention of a training step (encoder self, decoder causal self, cross) on CPU's flash
    kernel, forward and backward: the math path would materialise each (Q, K) score matrix."""
    model = tiny().train()  # dropout 0: attention dropout would take the math path
    src, src_len = sources()
    with torch.profiler.profile() as profile:
        token_loss(model(src, src_len, targets()), targets()).backward()
    ops = [event.name for event in profile.events()]
    flash = "aten::_scaled_dot_product_flash_attention_for_cpu"
    assert ops.count(flash) == 3 * 2  # encoder self, decoder self and cross, in each of 2 layers
    assert ops.count(flash + "_backward") == 3 * 2
    assert not {"aten::_scaled_dot_product_attention_math", "aten::bmm", "aten::softmax"} & set(ops)


@pytest.mark.parametrize("need_weights", [False, True], ids=["no-weights", "cross-weights"])
def test_a_cached_search_step_runs_the_fused_attention_kernel(need_weights):
    """One new token against the key-value cache: self-attention on CPU's flash kernel in each of 2
    layers, and cross-attention too unless its weights are asked for (heatmaps, carried symbols);
    only then does cross-attention build its (Q, K) score matrix."""
    model = tiny().eval()
    src, src_len = sources()
    _, state, _ = model.decoder.step(targets()[:, :3], model.encode(src, src_len))
    with torch.profiler.profile() as profile, torch.no_grad():
        model.decoder.step(targets()[:, 3:4], state, need_weights=need_weights)
    ops = [event.name for event in profile.events()]
    assert ops.count("aten::_scaled_dot_product_flash_attention_for_cpu") == (2 if need_weights else 2 * 2)
    assert ops.count("aten::softmax") == (2 if need_weights else 0)
    assert "aten::_scaled_dot_product_attention_math" not in ops


@pytest.mark.parametrize("chunks", [(1, 1, 1, 1, 1, 1), (2, 3, 1), (4, 2)], ids=["1-by-1", "2-3-1", "4-2"])
def test_cached_incremental_decoding_equals_full_prefix_recomputation(chunks):
    """Steps fed through the key-value cache, one or several tokens at a time, give the logits
    and cross-attention that recomputing the whole prefix gives."""
    model = tiny()
    src, src_len = sources()
    tgt = targets()
    state = model.encode(src, src_len)
    features, weights, start = [], [], 0
    for size in chunks:
        out, state, w = model.decoder.step(tgt[:, start : start + size], state)
        features.append(out)
        weights.append(w)
        start += size
    assert state.steps == tgt.shape[1]
    cached = model.decoder.output(torch.cat(features, dim=1))
    torch.testing.assert_close(cached, model(src, src_len, tgt))
    for t in range(1, tgt.shape[1] + 1):  # each prefix recomputed from scratch
        prefix_out, _, prefix_w = model.decoder.step(tgt[:, :t], model.encode(src, src_len))
        torch.testing.assert_close(cached[:, t - 1], model.decoder.output(prefix_out[:, -1]))
        torch.testing.assert_close(torch.cat(weights, dim=1)[:, t - 1], prefix_w[:, -1])
    attention = torch.cat(weights, dim=1)  # (B, T, R, S)
    assert attention.shape == (B, tgt.shape[1], 2 * M, int(LENGTHS.max()))
    for row, n in enumerate(LENGTHS.tolist()):
        assert (attention[row, ..., n:] == 0).all()


def replayed_self_attention(model: TransformerSeq2Seq, src, src_len, tgt) -> tuple[torch.Tensor, torch.Tensor]:
    """The pre-norm stacks replayed by hand, each attention by `per_head_formula` (softmax(q kᵀ / √Z) of
    the block's own W_q and W_k over its LayerNorm'd input): every layer's and head's encoder
    self-attention (B, R, S, S), padded keys masked, and decoder self-attention (B, R, T, T), causal."""
    steps, size = tgt.shape[1], H
    key_valid = torch.arange(src.shape[1])[None, None, :] < src_len[:, None, None]  # (B, 1, S)
    causal = torch.ones(steps, steps, dtype=torch.bool).tril()[None].expand(B, -1, -1)  # (B, T, T)

    def embedded(embedding, tokens):
        return embedding(tokens) * math.sqrt(size) + sinusoids(torch.arange(tokens.shape[1]), size).double()

    x, encoder = embedded(model.encoder.embedding, src), []
    for block in model.encoder.blocks:
        h = block.norm1(x)
        context, weights = per_head_formula(block.attention, h, h, h, key_valid.expand(-1, src.shape[1], -1))
        x = x + context
        x = x + block.ffn(block.norm2(x))
        encoder.append(weights)
    memory = model.encoder.norm(x)
    y, decoder = embedded(model.decoder.embedding, tgt), []
    for block in model.decoder.blocks:
        h = block.norm1(y)
        context, weights = per_head_formula(block.self_attention, h, h, h, causal)
        y = y + context
        y = y + per_head_formula(block.cross_attention, block.norm2(y), memory, memory,
                                 key_valid.expand(-1, steps, -1))[0]
        y = y + block.ffn(block.norm3(y))
        decoder.append(weights)
    return torch.cat(encoder, dim=1), torch.cat(decoder, dim=1)  # (B, R, S, S), (B, R, T, T): layer-major


def test_self_attention_maps_equal_a_naive_recomputation_of_the_blocks():
    """Encoder and decoder self-attention of every layer and head, for sentences of unequal lengths
    (padding), against the stacks replayed by hand; exact zeros at padded keys and above the diagonal."""
    model = tiny()
    src, src_len = sources()
    tgt = targets()
    with torch.no_grad():
        encoder, decoder = model.self_attention(src, src_len, tgt)
        expected_encoder, expected_decoder = replayed_self_attention(model, src, src_len, tgt)
    steps, longest = tgt.shape[1], int(LENGTHS.max())
    assert encoder.shape == (B, 2 * M, longest, longest) and decoder.shape == (B, 2 * M, steps, steps)
    torch.testing.assert_close(encoder, expected_encoder)
    torch.testing.assert_close(decoder, expected_decoder)
    for row, n in enumerate(LENGTHS.tolist()):
        assert (encoder[row, :, :, n:] == 0).all()  # no query reads padding
        torch.testing.assert_close(encoder[row, :, :n].sum(-1), torch.ones(2 * M, n, dtype=torch.float64))
    assert (decoder.triu(1) == 0).all()  # no step reads a later one
    torch.testing.assert_close(decoder.sum(-1), torch.ones(B, 2 * M, steps, dtype=torch.float64))
    assert decoder[..., 1:, 0].min() > 0 and encoder[0, :, :, 6].min() > 0  # not zero where readable
    # A sentence alone, without padding, gets the same maps: padding changes nothing.
    for row, n in enumerate(LENGTHS.tolist()):
        with torch.no_grad():
            alone = model.self_attention(src[row : row + 1, :n], src_len[row : row + 1], tgt[row : row + 1])
        torch.testing.assert_close(alone[0][0], encoder[row, :, :n, :n])
        torch.testing.assert_close(alone[1][0], decoder[row])


def test_a_recurrent_model_has_no_self_attention_maps():
    recurrent = build_model(ModelParams(embed_size=8, hidden_size=12), SRC_V, TGT_V).eval()
    src, src_len = sources()
    assert not recurrent.self_attends and recurrent.self_attention(src, src_len, targets()) is None
    assert tiny().self_attends


def test_hypotheses_share_their_sentences_source_and_finished_sentences_leave():
    """Beam search's state: W rows per sentence read the source kept once per sentence (never
    copied by `select`); `keep` drops sentences with their rows and the rest step as before."""
    model = tiny()
    src, src_len = sources()
    encoded = model.encode(src, src_len)
    rows = encoded.select(torch.arange(B).repeat_interleave(2))  # W = 2 rows per sentence
    tokens = targets()[:, :2].repeat_interleave(2, dim=0)  # (6, 2)
    tokens[1::2, 1] = 4  # each sentence's two rows differ
    _, rows, _ = model.decoder.step(tokens[:, :1], rows)
    rows = rows.select(torch.tensor([1, 0, 2, 2, 5, 4]))  # reordered, row 2 twice: within sentences
    source, shared = rows.memory_keys + rows.memory_values, encoded.memory_keys + encoded.memory_values
    assert all(a is b for a, b in zip(source, shared))
    everyone, _, weights = model.decoder.step(tokens[:, 1:], rows)
    kept = rows.keep(torch.tensor([0, 2]))
    assert [k.shape[0] for k in kept.memory_keys + kept.self_keys] == [2] * 2 + [4] * 2
    alone, _, kept_weights = model.decoder.step(tokens[[0, 1, 4, 5], 1:], kept)
    torch.testing.assert_close(alone, everyone[[0, 1, 4, 5]])
    torch.testing.assert_close(kept_weights, weights[[0, 1, 4, 5]])


def test_padding_changes_nothing_and_a_sentence_decodes_alone_as_in_a_batch():
    model = tiny()
    src, src_len = sources()
    tgt = targets()
    together = model(src, src_len, tgt)
    for row, n in enumerate(src_len.tolist()):
        alone = model(src[row : row + 1, :n], src_len[row : row + 1], tgt[row : row + 1])
        torch.testing.assert_close(together[row], alone[0])


def test_dropout_is_on_in_training_and_off_in_eval():
    model = tiny(dropout=0.3).train()
    src, src_len = sources()
    tgt = targets()
    assert not torch.equal(model(src, src_len, tgt), model(src, src_len, tgt))
    model.eval()
    assert torch.equal(model(src, src_len, tgt), model(src, src_len, tgt))


def copy_batch(g: torch.Generator, rows: int = 32, longest: int = 6) -> tuple[torch.Tensor, ...]:
    """Random sequences of 2..longest tokens with `<eos>`: sources, lengths, decoder in and out."""
    lengths = torch.randint(2, longest + 1, (rows,), generator=g)
    tokens = torch.randint(4, 10, (rows, longest + 1), generator=g)
    positions = torch.arange(longest + 1)[None]
    src = torch.where(positions < lengths[:, None], tokens, PAD_ID)
    src[torch.arange(rows), lengths] = EOS_ID
    tgt_in = torch.cat([torch.full((rows, 1), BOS_ID), src[:, :-1]], dim=1).masked_fill(positions > lengths[:, None], PAD_ID)
    return src, lengths + 1, tgt_in, src


def test_a_tiny_transformer_learns_to_copy():
    torch.manual_seed(0)
    params = ModelParams(arch="transformer", tie_embeddings="all",
                         transformer=TransformerParams(layers=1, heads=2, model_size=32, ffn_size=64, dropout=0.0))
    model = build_model(params, 10, 10)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(0)
    for _ in range(250):
        src, src_len, tgt_in, tgt_out = copy_batch(g)
        loss = token_loss(model(src, src_len, tgt_in), tgt_out)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    src, src_len, _, _ = copy_batch(torch.Generator().manual_seed(99), rows=50)
    decoded = run_search(model, src, src_len, output_limits(src_len, 2.0))
    copied = [decoded.tokens[r, : int(decoded.lengths[r])].tolist() == src[r, : int(src_len[r])].tolist()
              for r in range(50)]
    assert sum(copied) >= 45, f"{sum(copied)}/50 copied exactly (loss {loss.item():.3f})"


@pytest.mark.parametrize("tie", ["none", "output", "all"])
def test_the_model_file_round_trips(tmp_path, tie):
    from test_model import word_tokenizer

    src_v = TGT_V if tie == "all" else SRC_V
    model = tiny(tie=tie, src_v=src_v).float()
    save_model(tmp_path / "model.pt", model, word_tokenizer(src_v))
    loaded = load_model(tmp_path)  # weights_only=True inside
    assert isinstance(loaded.model, TransformerSeq2Seq) and loaded.model.params == model.params
    src, src_len = sources()
    src = src.clamp(max=src_v - 1)
    tgt = targets()
    assert torch.equal(loaded.model(src, src_len, tgt), model(src, src_len, tgt))
    if tie != "none":  # still one matrix, not copies
        assert loaded.model.decoder.output.tied is loaded.model.decoder.embedding
    if tie == "all":
        assert loaded.model.encoder.embedding.weight is loaded.model.decoder.embedding.weight


def test_tied_embeddings_save_the_output_matrix():
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    untied, output, shared = tiny("none", src_v=TGT_V), tiny("output", src_v=TGT_V), tiny("all", src_v=TGT_V)
    assert count(untied) - count(output) == TGT_V * H  # the output layer's bias stays
    assert count(output) - count(shared) == TGT_V * H


@pytest.mark.parametrize("section, message", [
    ({"arch": "gpt"}, "model.arch: expected one of ['rnn', 'transformer'], got 'gpt'"),
    ({"transformer": {"heads": 5}}, "model.transformer.heads: 5 heads do not divide model_size 256"),
    ({"transformer": {"layers": 0}}, "model.transformer.layers: must be >= 1, got 0"),
    ({"transformer": {"model_size": 1}}, "model.transformer.model_size: must be >= 2, got 1"),
    ({"transformer": {"ffn_size": 0.5}}, "model.transformer.ffn_size: expected int, got float 0.5"),
    ({"transformer": {"dropout": 1.0}}, "model.transformer.dropout: must be < 1, got 1.0"),
    ({"transformer": {"depth": 6}}, "model.transformer.depth: unknown key"),
])
def test_bad_arch_and_sizes_fail_naming_the_key(section, message):
    with pytest.raises(ConfigError) as error:
        from_mapping(ModelParams, {"arch": "transformer", **section}, "model")
    assert message in str(error.value)


def test_the_recurrent_keys_never_fail_a_transformer():
    # dot attention over a bidirectional encoder is refused for the recurrent model, but the
    # Transformer ignores both keys: params.yaml keeps them while `arch` switches.
    section = {"attention": "dot", "bidirectional": True}
    with pytest.raises(ConfigError, match="model.attention: dot attention"):
        from_mapping(ModelParams, section, "model")
    assert from_mapping(ModelParams, {"arch": "transformer", **section}, "model").arch == "transformer"


# ---------------------------------------------------------------------------------------------
# Downstream: a Transformer trained by the stage function translates, and its heatmaps show
# every layer and head.


def test_a_trained_transformer_translates_with_every_layer_and_head_of_attention(transformer_model):
    from attention_lab.inference.translator import SearchParams, Translator

    translator = Translator.load(transformer_model, "cpu", precision="32")  # maps sum to 1 within 1e-4 in float32
    sentences = ["I see the cat.", "We like the book and she takes the car now."]
    for beam in (1, 4):
        results = translator.translate(sentences, SearchParams(beam_size=beam), maps=True)
        alone = [translator.translate([s], SearchParams(beam_size=beam))[0] for s in sentences]
        assert [r.text for r in results] == [a.text for a in alone]  # batch equals one-by-one
        for result, average in zip(results, alone):
            assert average.maps is None  # the maps only when asked: 4 per step would cost 4 times the memory
            np.testing.assert_allclose(average.attention, result.attention, atol=1e-5)
            layers, heads = result.layout
            assert (layers, heads) == (2, 2) and "<unk>" not in result.text and result.text
            steps, pieces = len(result.output_labels), len(result.src_pieces)
            assert result.maps.shape == (layers * heads, steps, pieces)
            np.testing.assert_allclose(result.maps.sum(axis=-1), 1.0, atol=1e-4)  # each map a distribution
            np.testing.assert_allclose(result.attention, result.maps.mean(axis=0), atol=1e-6)


def test_heatmaps_of_a_transformer_grid_every_layer_and_head_for_greedy_and_beam(transformer_model):
    from attention_lab.evaluation.heatmaps import attention_figures
    from attention_lab.inference.translator import SearchParams, Translator

    figures, grid = attention_figures(Translator.load(transformer_model, "cpu"), ["Go.", "I see the cat."],
                                      SearchParams(beam_size=3))
    assert sorted(figures) == ["00-go-heads-beam.png", "00-go-heads-greedy.png", "00-go.png",
                               "01-i-see-the-cat-heads-beam.png", "01-i-see-the-cat-heads-greedy.png",
                               "01-i-see-the-cat.png"]
    heads = figures["01-i-see-the-cat-heads-beam.png"]
    images = [ax for ax in heads.axes if ax.images]
    assert [ax.get_title() for ax in images] == [f"layer {layer}, head {head}" for layer in (1, 2) for head in (1, 2)]
    assert "beam 3" in heads.get_suptitle()
    assert len([ax for ax in figures["00-go.png"].axes if ax.images]) == 2  # greedy beside beam, averaged
    assert len([ax for ax in grid.axes if ax.images]) == 2


def test_the_cli_writes_the_heads_heatmaps_of_a_transformer(transformer_model, tmp_path, capsys):
    from attention_lab.cli import main
    from attention_lab.inference.translator import SearchParams, Translator

    sentences = ["I see the cat.", "Go."]
    main(["translate", "--model", str(transformer_model), "--device", "cpu", "--heatmap", str(tmp_path / "h.png"),
          *sentences])
    out, err = capsys.readouterr()
    expected = Translator.load(transformer_model, "cpu").translate(sentences, SearchParams())
    assert out.splitlines() == [t.text for t in expected]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h-heads-1.png", "h-heads-2.png", "h.png"]
    assert err.count("attention by layer and head") == 2
