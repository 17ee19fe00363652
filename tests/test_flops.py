"""The roofline's parts (`flops.py`): counted FLOPs, the recorded products and their ceiling."""

import math

import pytest
import torch

from attention_lab.bench.flops import CountedProducts, Layout, layout, matmul_ceiling, training_flops_per_token
from attention_lab.data.batching import collate_pairs
from attention_lab.model.seq2seq import ModelParams, Seq2Seq


def batches():
    """Two batches of unequal sizes, with padding on both sides (ids 4.. are ordinary tokens)."""
    rng = torch.Generator().manual_seed(0)

    def sentence(n):
        return torch.randint(4, 30, (n,), generator=rng).tolist()

    return [collate_pairs([(sentence(3), sentence(5)), (sentence(1), sentence(2))]),
            collate_pairs([(sentence(4), sentence(1)), (sentence(6), sentence(3)), (sentence(2), sentence(4))])]


def test_recorded_products_are_what_the_counter_counts_and_add_up_per_batch():
    torch.manual_seed(0)
    model = Seq2Seq(ModelParams(embed_size=6, hidden_size=8, bidirectional=True), 30, 30).train()
    first, second = batches()
    both, products = training_flops_per_token(model, [first, second])
    recorded = sum(products.flops[key] * count for key, count in products.calls.items())
    tokens = first["n_tokens"] + second["n_tokens"]
    assert recorded == pytest.approx(both * tokens) and recorded > 0
    alone = [training_flops_per_token(model, [batch])[0] * batch["n_tokens"] for batch in (first, second)]
    assert sum(alone) == pytest.approx(both * tokens)
    assert all(p.grad is None for p in model.parameters())  # counting leaves no gradients behind


def test_a_product_is_recorded_with_its_layout_and_replayed_alike():
    a, b = torch.randn(5, 3), torch.randn(7, 3)
    bias = torch.randn(7)
    with CountedProducts() as products:
        torch.addmm(bias, a, b.t())  # (5, 7), the second operand transposed
        torch.addmm(bias, a, b.t())
        a @ torch.randn(3, 2)
    assert sorted(products.calls.values()) == [1, 2]
    (func, args, _), count = products.calls.most_common(1)[0]
    assert count == 2 and products.flops[(func, args, ())] == 2 * 5 * 3 * 7
    transposed = args[2]
    assert isinstance(transposed, Layout) and transposed.shape == (3, 7) and transposed.stride == (1, 3)
    replay = transposed.make()
    assert replay.shape == (3, 7) and replay.stride() == (1, 3) and torch.isfinite(replay).all()
    ceiling = matmul_ceiling(products, min_seconds=1e-4, trials=1)
    assert math.isfinite(ceiling) and ceiling > 0


def test_a_product_with_integer_arguments_is_replayed_with_their_values():
    """CUDA's attention kernels take integer tensors (the dropout's seed and offset, sequence
    offsets): a replay that filled them with random normals failed ("normal_kernel_cuda" not
    implemented for 'Long'); an index or a mask replayed with other values computes another thing."""
    table, index = torch.randn(6, 4), torch.tensor([5, 0, 5, 2])
    mask = torch.tensor([True, False, True, True, False, True])
    products = CountedProducts()
    key = (torch.ops.aten.index_select.default, (layout(table), 0, layout(index)), ())
    products.calls[key], products.flops[key] = 3, 16
    masked = (torch.ops.aten.masked_select.default, (layout(table[:, 0]), layout(mask)), ())
    products.calls[masked], products.flops[masked] = 1, 6
    assert key[1][2].make().tolist() == [5, 0, 5, 2]
    assert masked[1][1].make().tolist() == mask.tolist()
    ceiling = matmul_ceiling(products, min_seconds=1e-4, trials=1)
    assert math.isfinite(ceiling) and ceiling > 0
