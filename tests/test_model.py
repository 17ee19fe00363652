import itertools

import pytest
import torch

from attention_lab.data.special_tokens import PAD_ID, RESERVED
from attention_lab.data.word_vocab import Vocab
from attention_lab.data.tokenizer import Tokenizer, TokenizerParams, WordCodec
from attention_lab.inference.model_file import load_model, save_model
from attention_lab.model.loss import token_loss, token_losses
from attention_lab.model.seq2seq import ModelParams, Seq2Seq

SRC_V, TGT_V = 11, 13
COMBOS = [(d, a, r, b) for d, a, r, b in itertools.product(
    ("bahdanau", "luong"), ("additive", "dot", "scaled_dot", "general", "location"), ("gru", "lstm"), (False, True))
    if not (b and a in ("dot", "scaled_dot"))]


def make_model(decoder="bahdanau", attention="additive", rnn="gru", bidirectional=False, seed=0,
               tie="none", src_v=SRC_V) -> Seq2Seq:
    torch.manual_seed(seed)
    params = ModelParams(rnn=rnn, embed_size=6, hidden_size=8, num_layers=2, dropout=0.0,
                         bidirectional=bidirectional, decoder=decoder, attention=attention, tie_embeddings=tie,
                         max_source_tokens=9)
    return Seq2Seq(params, src_v, TGT_V).double().eval()


def batch(lengths=(7, 5, 3), tgt_len=5, seed=1):
    """Padded sources (B, S) of unequal lengths and random decoder inputs (B, T)."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, SRC_V, (len(lengths), max(lengths)), generator=g)
    for row, n in enumerate(lengths):
        src[row, n:] = PAD_ID
    tgt = torch.randint(4, TGT_V, (len(lengths), tgt_len), generator=g)
    return src, torch.tensor(lengths), tgt


def test_the_loss_trained_on_is_label_smoothed_and_the_nll_is_not():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 5, TGT_V, generator=g, requires_grad=True)  # (B, T, V)
    targets = torch.randint(len(RESERVED), TGT_V, (3, 5), generator=g)
    targets[1, 3:] = targets[2, 1:] = PAD_ID  # unequal lengths
    plain = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=PAD_ID)
    loss, nll = token_losses(logits, targets, 0.1)
    assert torch.equal(nll, plain)  # what validation measures
    torch.testing.assert_close(loss, torch.nn.functional.cross_entropy(
        logits.flatten(0, 1), targets.flatten(), ignore_index=PAD_ID, label_smoothing=0.1))
    assert loss.item() != pytest.approx(nll.item(), rel=1e-3)
    loss.backward()  # the smoothed loss is the one trained
    assert logits.grad is not None
    unsmoothed, same = token_losses(logits, targets)
    assert unsmoothed is same and torch.equal(unsmoothed, plain) and torch.equal(token_loss(logits, targets), plain)


@pytest.mark.parametrize("decoder, attention, rnn, bidirectional", COMBOS)
def test_every_combination_runs_with_documented_shapes(decoder, attention, rnn, bidirectional):
    model = make_model(decoder, attention, rnn, bidirectional).train()
    src, src_len, tgt = batch()
    logits = model(src, src_len, tgt)
    assert logits.shape == (3, 5, TGT_V)
    token_loss(logits, tgt).backward()
    assert all(p.grad is not None for p in model.parameters())
    outputs, state = model.encoder(src, src_len)
    assert outputs.shape == (3, 7, 16 if bidirectional else 8)
    assert (outputs[2, 3:] == 0).all()  # nothing from padding


@pytest.mark.parametrize("decoder, attention, rnn, bidirectional", COMBOS)
def test_teacher_forcing_equals_step_by_step(decoder, attention, rnn, bidirectional):
    """Training's teacher forcing (one fused loop for a GRU, one call for Luong) is the function
    search steps through, and has the same gradients: the two paths cannot drift apart."""
    model = make_model(decoder, attention, rnn, bidirectional)
    src, src_len, tgt = batch()
    fused = model(src, src_len, tgt)
    token_loss(fused, tgt).backward()
    fused_grads = {name: p.grad.clone() for name, p in model.named_parameters()}
    model.zero_grad()
    state = model.encode(src, src_len)
    steps = []
    for t in range(tgt.shape[1]):
        features, state, _ = model.decoder.step(tgt[:, t : t + 1], state)
        steps.append(model.decoder.output(features))
    stepped = torch.cat(steps, dim=1)
    token_loss(stepped, tgt).backward()
    torch.testing.assert_close(fused, stepped, rtol=0, atol=1e-10)
    for name, p in model.named_parameters():
        torch.testing.assert_close(fused_grads[name], p.grad, rtol=0, atol=1e-10, msg=name)


def stepped_and_fused(decoder, tgt, make_state, seed=5):
    """Features (B, T, H) and the gradients of a loss on them, by `step` T times and by
    `teacher_forced`, each from the same random seed (the same dropout masks)."""
    results = []
    for run in ("step", "fused"):
        torch.manual_seed(seed)
        state = make_state()
        if run == "fused":
            features = decoder.teacher_forced(tgt, state)
        else:
            steps = []
            for t in range(tgt.shape[1]):
                out, state, _ = decoder.step(tgt[:, t : t + 1], state)
                steps.append(out)
            features = torch.cat(steps, dim=1)
        loss = (features * torch.linspace(-1, 1, features.numel(), dtype=features.dtype).view_as(features)).sum()
        inputs = [p for p in decoder.parameters() if p.requires_grad]
        results.append((features, torch.autograd.grad(loss, inputs, allow_unused=True)))
    return results


@pytest.mark.parametrize("num_layers", [1, 2, 3])
def test_fused_recurrence_equals_steps_with_dropout_and_an_empty_source(num_layers):
    """`bahdanau_gru`'s hand-written backward against autograd through `step`, in training mode:
    dropout on attention weights and between layers draws the same masks on both paths, and a
    row without source keys attends to nothing on both."""
    torch.manual_seed(0)
    params = ModelParams(embed_size=6, hidden_size=8, num_layers=num_layers, dropout=0.3, bidirectional=True,
                         attention_size=5)
    decoder = Seq2Seq(params, SRC_V, TGT_V).double().train().decoder
    values = torch.randn(3, 4, 16, dtype=torch.float64)
    hidden = torch.randn(num_layers, 3, 8, dtype=torch.float64)
    src_len = torch.tensor([4, 0, 2])
    tgt = torch.randint(4, TGT_V, (3, 6), generator=torch.Generator().manual_seed(2))
    (stepped, step_grads), (fused, fused_grads) = stepped_and_fused(
        decoder, tgt, lambda: decoder.init_state(values, hidden, src_len))
    torch.testing.assert_close(fused, stepped, rtol=0, atol=1e-12)
    for a, b in zip(fused_grads, step_grads):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-12)
    assert any(g is not None and g.abs().sum() > 0 for g in fused_grads)


@pytest.mark.parametrize("decoder, attention, rnn, bidirectional",
                         [c for c in COMBOS if c[1] in ("additive", "general", "location")])
def test_padding_changes_neither_outputs_nor_attention(decoder, attention, rnn, bidirectional):
    model = make_model(decoder, attention, rnn, bidirectional)
    src, src_len, tgt = batch()
    padded = torch.cat([src, torch.full((3, 2), PAD_ID)], dim=1)  # two more padding columns
    torch.testing.assert_close(model(padded, src_len, tgt), model(src, src_len, tgt), rtol=0, atol=1e-10)
    _, _, weights = model.decoder.step(tgt[:, :1], model.encode(src, src_len))
    _, _, padded_weights = model.decoder.step(tgt[:, :1], model.encode(padded, src_len))
    torch.testing.assert_close(padded_weights[..., :7], weights, rtol=0, atol=1e-10)
    for row, n in enumerate(src_len.tolist()):
        assert (padded_weights[row, :, n:] == 0).all()
        torch.testing.assert_close(padded_weights[row].sum(-1), torch.ones(1, dtype=torch.float64))


def test_loss_ignores_padding():
    logits = torch.randn(3, 4, TGT_V, dtype=torch.float64)
    targets = torch.tensor([[5, 6, 2, 0], [7, 2, 0, 0], [8, 9, 10, 2]])
    changed = logits.clone()
    changed[targets == PAD_ID] = 100.0
    assert token_loss(changed, targets) == token_loss(logits, targets)
    manual = torch.nn.functional.cross_entropy(logits[targets != PAD_ID], targets[targets != PAD_ID])
    torch.testing.assert_close(token_loss(logits, targets), manual)


def test_learns_to_copy_short_sequences():
    """A reverse-free copy task is fitted to near-zero loss in a few seconds on the CPU."""
    torch.manual_seed(0)
    params = ModelParams(embed_size=16, hidden_size=32, num_layers=1, dropout=0.0)
    model = Seq2Seq(params, 10, 10)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(0)
    losses = []
    for _ in range(300):
        lengths = torch.randint(2, 6, (32,), generator=g)
        tokens = torch.randint(4, 10, (32, 5), generator=g)
        mask = torch.arange(5)[None] < lengths[:, None]
        src = torch.where(mask, tokens, PAD_ID)
        src = torch.cat([src, torch.zeros(32, 1, dtype=torch.long)], 1)
        src[torch.arange(32), lengths] = 2  # <eos>
        tgt_out = src.clone()
        tgt_in = torch.cat([torch.ones(32, 1, dtype=torch.long), src[:, :-1]], 1).masked_fill(
            torch.cat([torch.zeros(32, 1, dtype=torch.bool), src[:, :-1] == 2], 1), PAD_ID)
        loss = token_loss(model(src, lengths + 1, tgt_in), tgt_out)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # as training does: lr 0.01 spikes without it
        optimizer.step()
        losses.append(loss.item())
    assert sum(losses[-20:]) / 20 < 0.05, losses[-20:]


def word_tokenizer(src_v=SRC_V) -> Tokenizer:
    src = WordCodec(Vocab(RESERVED + tuple(f"s{i}" for i in range(src_v - 4))), lowercase=True)
    tgt = WordCodec(Vocab(RESERVED + tuple(f"t{i}" for i in range(TGT_V - 4))), lowercase=True)
    return Tokenizer(src, tgt, TokenizerParams(kind="word"))


@pytest.mark.parametrize("tie", ["none", "output", "all"])
def test_save_load_gives_identical_outputs(tmp_path, tie):
    src_v = TGT_V if tie == "all" else SRC_V
    model = make_model("luong", "general", "lstm", True, tie=tie, src_v=src_v).float()
    tokenizer = word_tokenizer(src_v)
    save_model(tmp_path / "model.pt", model, tokenizer)
    loaded = load_model(tmp_path)
    src, src_len, tgt = batch()
    assert loaded.tokenizer.src.vocab == tokenizer.src.vocab and loaded.tokenizer.tgt.vocab == tokenizer.tgt.vocab
    assert torch.equal(loaded.model(src, src_len, tgt), model(src, src_len, tgt))
    if tie == "all":  # still one shared matrix after loading, not two copies
        assert loaded.model.encoder.embedding.weight is loaded.model.decoder.embedding.weight


def test_tied_embeddings_share_one_matrix_with_the_output_layer():
    """Press and Wolf 2017: the output layer's weights are the target embedding; with `all` the
    source embedding too. A gradient through either reaches the same parameter."""
    untied, output, shared = (make_model(tie=t, src_v=TGT_V) for t in ("none", "output", "all"))
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    embed = TGT_V * 6
    # output: no (V, H) output matrix, but an H -> E projection (6 != 8)
    assert count(untied) - count(output) == TGT_V * 8 - 8 * 6
    assert count(output) - count(shared) == embed  # the source embedding is the same matrix
    src, src_len, tgt = batch()
    shared(src, src_len, tgt).sum().backward()
    grad = shared.decoder.embedding.weight.grad
    assert grad is not None and grad[src.unique()].abs().sum() > 0


def test_recurrence_runs_in_bf16_under_cpu_bf16_autocast_only():
    from attention_lab.model.precision import recurrence_dtype

    assert recurrence_dtype("cpu", torch.float32) == torch.float32
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert recurrence_dtype("cpu", torch.float32) == torch.bfloat16
    with torch.autocast("cpu", dtype=torch.float16):
        assert recurrence_dtype("cpu", torch.float32) == torch.float32
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert recurrence_dtype("cuda", torch.float32) == torch.float32  # CPU autocast says nothing of CUDA


def test_bf16_recurrence_is_float32_to_bf16_rounding_with_float32_gradients():
    """Under CPU bf16 autocast the fused recurrence runs in bf16 (`recurrence_dtype`): its features and the
    weights' gradients stay near float32's, within bf16's rounding, and the gradients keep the weights' dtype."""
    torch.manual_seed(0)
    params = ModelParams(embed_size=6, hidden_size=16, num_layers=2, dropout=0.0, bidirectional=True)
    decoder = Seq2Seq(params, SRC_V, TGT_V).train().decoder
    values, hidden = torch.randn(3, 5, 32), torch.randn(2, 3, 16)
    src_len = torch.tensor([5, 2, 4])
    tgt = torch.randint(4, TGT_V, (3, 7), generator=torch.Generator().manual_seed(2))
    runs = []
    for dtype in (None, torch.bfloat16):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=dtype is not None):
            features = decoder.teacher_forced(tgt, decoder.init_state(values, hidden, src_len))  # (B, T, H)
        weights = [p for p in decoder.parameters() if p.requires_grad]
        grads = torch.autograd.grad(features.float().square().sum(), weights, allow_unused=True)
        runs.append((features, grads))
    (full, full_grads), (half, half_grads) = runs
    assert half.dtype == torch.bfloat16 and full.dtype == torch.float32
    torch.testing.assert_close(half.float(), full, rtol=0, atol=0.05)
    assert not torch.equal(half.float(), full)  # it did run in bf16
    for a, b in zip(half_grads, full_grads):
        if b is not None:
            assert a.dtype == torch.float32
            assert (a - b).norm() <= 0.05 * b.norm() + 1e-6


@pytest.mark.parametrize("rnn", ["gru", "lstm"])
def test_encoder_runs_in_bf16_under_cpu_bf16_autocast_and_answers_in_float32(rnn):
    """Autocast leaves `nn.GRU` in float32; the encoder casts its recurrence to bf16 itself (`recurrence_dtype`).
    Its outputs keep the weights' dtype, near float32's, zero at padding, and its weights' gradients keep their
    dtype."""
    torch.manual_seed(0)
    encoder = make_model(rnn=rnn, bidirectional=True).float().train().encoder
    read = []  # the dtype each pass's recurrence reads
    encoder.rnn.register_forward_pre_hook(lambda module, args: read.append(args[0].data.dtype))
    src, src_len, _ = batch()
    runs = []
    for bf16 in (False, True):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            outputs, state = encoder(src, src_len)  # (B, S, D), (L, B, H)
        hidden = state[0] if isinstance(state, tuple) else state
        grads = torch.autograd.grad(outputs.square().sum() + hidden.float().square().sum(),
                                    list(encoder.rnn.parameters()))
        runs.append((outputs, hidden, grads))
    (full, full_hidden, full_grads), (half, half_hidden, half_grads) = runs
    assert read == [torch.float32, torch.bfloat16] and half.dtype == torch.float32
    torch.testing.assert_close(half_hidden.float(), full_hidden, rtol=0, atol=0.03)
    torch.testing.assert_close(half, full, rtol=0, atol=0.03)
    for row, n in enumerate(src_len.tolist()):
        assert (half[row, n:] == 0).all()
    for a, b in zip(half_grads, full_grads):
        assert a.dtype == torch.float32 and (a - b).norm() <= 0.05 * b.norm()
