"""What the GPU's training step rests on, checked on the CPU: batches padded to a CUDA graph's
bucket give the loss and gradients of the batch itself, and the fused Adam under bf16 autocast
clips and updates as the foreach one does under Lightning's own clipping."""

import warnings

import pytest
import pytorch_lightning as pl
import torch
from conftest import TINY_TRAINING, TINY_TRANSFORMER
from torch.utils.data import DataLoader

from attention_lab.config import ConfigError, from_mapping
from attention_lab.data.batching import TokenBatchSampler, collate_pairs
from attention_lab.model.loss import token_loss
from attention_lab.model.params import ModelParams
from attention_lab.model.seq2seq import build_model
from attention_lab.training.cuda_graphs import LENGTHS, bucket_shape, pad_batch
from attention_lab.tracking.store import MlflowParams
from attention_lab.training.module import OptimParams, Seq2SeqModule
from attention_lab.training.params import Seq2SeqParams
from attention_lab.training.run import train_seq2seq

VOCAB = 40


def pairs(count: int, seed: int = 0) -> list[tuple[list[int], list[int]]]:
    """Pairs of unequal lengths, 1 to 30 tokens a side (ids 4.. are ordinary tokens)."""
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, 31, (count, 2), generator=g).tolist()
    return [(torch.randint(4, VOCAB, (s,), generator=g).tolist(), torch.randint(4, VOCAB, (t,), generator=g).tolist())
            for s, t in lengths]


def transformer(seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return build_model(from_mapping(ModelParams, TINY_TRANSFORMER, "model"), VOCAB, VOCAB)


@pytest.mark.parametrize("batch_size, batch_tokens", [(16, 400), (64, None), (1024, 512)])
def test_every_batch_fits_its_bucket_and_the_buckets_are_few(batch_size, batch_tokens):
    data = pairs(600)
    sampler = TokenBatchSampler([max(len(s), len(t)) for s, t in data], batch_size, batch_tokens, shuffle=True)
    shapes = set()
    for batch in sampler:
        collated = collate_pairs([data[i] for i in batch])
        rows, steps = collated["tgt_in"].shape
        shape = bucket_shape(rows, max(collated["src"].shape[1], steps), batch_size, batch_tokens)
        assert shape[0] >= rows and shape[1] >= max(collated["src"].shape[1], steps)
        shapes.add(shape)
    assert len(shapes) <= len(LENGTHS) + 2  # a graph each: recorded once, replayed for the run


def test_a_padded_batch_has_the_loss_and_gradients_of_the_batch_itself():
    model = transformer().train()
    batch = collate_pairs(pairs(5, seed=1))
    rows, steps = batch["tgt_in"].shape
    shape = bucket_shape(rows, max(batch["src"].shape[1], steps), 16, 400)
    assert shape[0] > rows and shape[1] > max(batch["src"].shape[1], steps)  # rows and columns padded

    def loss_and_grads(src, src_len, tgt_in):
        model.zero_grad(set_to_none=True)
        loss = token_loss(model(src, src_len, tgt_in)[:rows, :steps], batch["tgt_out"])  # (B, T, V)
        loss.backward()
        return loss.detach(), {name: p.grad.clone() for name, p in model.named_parameters()}

    loss, grads = loss_and_grads(batch["src"], batch["src_len"], batch["tgt_in"])
    padded_loss, padded_grads = loss_and_grads(*pad_batch(batch["src"], batch["src_len"], batch["tgt_in"], *shape))
    torch.testing.assert_close(padded_loss, loss, rtol=1e-5, atol=1e-6)
    assert padded_grads.keys() == grads.keys()
    for name in grads:
        torch.testing.assert_close(padded_grads[name], grads[name], rtol=1e-4, atol=1e-6, msg=name)


class ForeachAdam(Seq2SeqModule):
    """The update as it was before the fused kernel: foreach Adam, Lightning's own clipping."""

    def configure_optimizers(self) -> dict:
        return {"optimizer": torch.optim.Adam(self.parameters(), lr=self.optim.lr, foreach=True)}

    configure_gradient_clipping = pl.LightningModule.configure_gradient_clipping


def train_steps(module_class: type, steps: int = 3) -> dict[str, torch.Tensor]:
    optim = OptimParams(lr=0.01, grad_clip=0.05)  # a clip that binds at every step
    module = module_class(transformer(seed=3), optim, tokenizer=None)
    loader = DataLoader(pairs(48, seed=2), batch_size=16, collate_fn=collate_pairs)
    trainer = pl.Trainer(accelerator="cpu", precision="bf16-mixed", max_steps=steps, gradient_clip_val=optim.grad_clip,
                         logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, limit_val_batches=0, log_every_n_steps=1)
    trainer.fit(module, train_dataloaders=loader)
    optimizer = trainer.optimizers[0]
    return {"fused": optimizer.defaults["fused"], **{n: p.detach().clone() for n, p in module.model.named_parameters()}}


def test_fused_adam_under_bf16_clips_and_updates_as_foreach_adam():
    fused, foreach = train_steps(Seq2SeqModule), train_steps(ForeachAdam)
    assert fused.pop("fused") is True and not foreach.pop("fused")
    start = dict(transformer(seed=3).named_parameters())
    for name, value in fused.items():
        assert not torch.equal(value, start[name].detach()), f"{name} was not updated"
        torch.testing.assert_close(value, foreach[name], rtol=1e-4, atol=1e-5, msg=name)


def test_a_mixed_precision_run_warns_of_nothing_the_project_could_act_on(paths):
    # The model summary's size is of the float32 weights, which mixed precision keeps.
    config = {**TINY_TRAINING, "model": TINY_TRANSFORMER,
              "trainer": {**TINY_TRAINING["trainer"], "precision": "bf16-mixed", "budget_updates": 4, "validations": 1}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        train_seq2seq(from_mapping(Seq2SeqParams, config, "train_seq2seq"), MlflowParams(enabled=False), paths)
    assert (paths.out / "model.pt").is_file()
    assert not [str(w.message) for w in caught if "model summary" in str(w.message)]


def test_attention_kernels_that_cannot_run_here_fail_naming_the_key_and_leave_no_reports(paths):
    # The memory-efficient kernel is CUDA's alone: on the CPU no kernel allowed can attend.
    config = {**TINY_TRAINING, "model": TINY_TRANSFORMER,
              "trainer": {**TINY_TRAINING["trainer"], "attention_kernels": ["efficient"], "budget_updates": 4}}
    with pytest.raises(ConfigError, match=r"^train_seq2seq\.trainer\.attention_kernels: none of \['efficient'\] .* cpu"):
        train_seq2seq(from_mapping(Seq2SeqParams, config, "train_seq2seq"), MlflowParams(enabled=False), paths)
    assert not paths.reports.exists() or not any(paths.reports.iterdir())
    assert not (paths.out / "model.pt").exists()


@pytest.mark.parametrize("kernels, used, unused", [
    (None, "aten::_scaled_dot_product_flash_attention_for_cpu", "aten::_scaled_dot_product_attention_math"),
    (("math",), "aten::_scaled_dot_product_attention_math", "aten::_scaled_dot_product_flash_attention_for_cpu"),
])
def test_the_module_attends_with_the_kernels_allowed(kernels, used, unused):
    module = Seq2SeqModule(transformer(seed=1).train(), OptimParams(), tokenizer=None, attention_kernels=kernels)
    batch = collate_pairs(pairs(6, seed=4))
    with torch.profiler.profile() as profile:
        token_loss(module(batch["src"], batch["src_len"], batch["tgt_in"]), batch["tgt_out"]).backward()
    ops = [event.name for event in profile.events()]
    layers = TINY_TRANSFORMER["transformer"]["layers"]
    assert ops.count(used) == 3 * layers  # encoder self, decoder self and cross-attention, every layer
    assert unused not in ops


def test_the_module_packs_sentences_side_by_side_and_trains_on_the_same_loss_and_gradients():
    batch = collate_pairs(pairs(9, seed=6))  # unequal lengths up to 30: rows of 64 tokens hold 2 sentences
    results = []
    for packing in (None, 64):
        module = Seq2SeqModule(transformer(seed=1).double().train(), OptimParams(), tokenizer=None,
                               attention_packing=packing)
        with torch.profiler.profile(record_shapes=True) as profile:
            loss = token_loss(module(batch["src"], batch["src_len"], batch["tgt_in"]), batch["tgt_out"])
        loss.backward()
        calls = [e.input_shapes[0] for e in profile.events() if e.name == "aten::scaled_dot_product_attention"]
        results.append((loss.detach(), [p.grad for p in module.parameters()], calls))
    (alone, alone_grads, alone_calls), (packed, packed_grads, packed_calls) = results
    torch.testing.assert_close(packed, alone, rtol=0, atol=1e-12)
    for a, b in zip(alone_grads, packed_grads):
        torch.testing.assert_close(b, a, rtol=0, atol=1e-12)
    layers = TINY_TRANSFORMER["transformer"]["layers"]
    assert [shape[0] for shape in alone_calls] == [9] * 3 * layers  # one sentence a row, every attention
    rows = [shape[0] for shape in packed_calls if shape[0] != 1]  # a last sentence left alone runs apart
    assert len(rows) == 3 * layers and max(rows) <= 4  # 2 sentences or more a row
