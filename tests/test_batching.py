"""Batches of token ids: padding, training batches, token-budget batches and the per-process
batch sampler."""

import numpy as np
import pytest
import torch

from attention_lab.data.batching import (
    TokenBatchSampler,
    budget_batches,
    collate_pairs,
    pad,
    split_evenly,
)
from attention_lab.data.special_tokens import BOS_ID, EOS_ID, PAD_ID

torch.set_num_threads(1)

RNG = np.random.default_rng(0)
LENGTHS = RNG.integers(1, 40, size=203).tolist()  # unequal lengths, a prime count
LENGTHS[17] = 150  # one sentence longer than any budget below


def flat(batches):
    return [i for b in batches for i in b]


def padded_tokens(batch, lengths=LENGTHS):
    return len(batch) * max(lengths[i] for i in batch)


# -- pad and collate_pairs ---------------------------------------------------------------------------

def test_pad_gives_padded_ids_and_lengths():
    sequences = [[5, 6, EOS_ID], [7, EOS_ID], [8, 9, 10, 11, EOS_ID]]
    ids, lengths = pad(sequences)
    assert ids.shape == (3, 5) and ids.dtype == torch.long
    assert lengths.tolist() == [3, 2, 5]
    for row, seq in zip(ids.tolist(), sequences):
        assert row[: len(seq)] == seq and set(row[len(seq):]) <= {PAD_ID}


def test_collate_shifts_targets_and_counts_tokens():
    batch = collate_pairs([([4, 5, EOS_ID], [6, 7, 8, EOS_ID]), ([4, EOS_ID], [9, EOS_ID]),
                           ([4, 5, 6, 7, 8, EOS_ID], [10, 11, EOS_ID])])
    assert batch["src"].tolist() == [[4, 5, EOS_ID, PAD_ID, PAD_ID, PAD_ID], [4, EOS_ID] + [PAD_ID] * 4,
                                     [4, 5, 6, 7, 8, EOS_ID]]
    assert batch["src_len"].tolist() == [3, 2, 6]
    assert batch["tgt_out"].tolist() == [[6, 7, 8, EOS_ID], [9, EOS_ID, PAD_ID, PAD_ID], [10, 11, EOS_ID, PAD_ID]]
    assert batch["tgt_in"].tolist() == [[BOS_ID, 6, 7, 8], [BOS_ID, 9, PAD_ID, PAD_ID], [BOS_ID, 10, 11, PAD_ID]]
    assert batch["n_tokens"] == 4 + 2 + 3 and isinstance(batch["n_tokens"], int)
    assert batch["tgt_out"].dtype == batch["tgt_in"].dtype == torch.long


def test_collate_properties_on_random_batches():
    rng = np.random.default_rng(1)
    for _ in range(20):
        rows = int(rng.integers(1, 6))
        batch = [([int(t) for t in rng.integers(4, 30, rng.integers(0, 9))] + [EOS_ID],
                  [int(t) for t in rng.integers(4, 30, rng.integers(0, 9))] + [EOS_ID]) for _ in range(rows)]
        out = collate_pairs(batch)
        assert (out["tgt_in"][:, 0] == BOS_ID).all()  # every target input starts with <bos>
        assert not (out["tgt_in"] == EOS_ID).any()  # <eos> is never an input
        assert out["tgt_in"].shape == out["tgt_out"].shape
        # teacher forcing: the input at t+1 is the output at t, wherever that is not <eos>
        shifted = out["tgt_out"][:, :-1]
        expected = shifted.masked_fill(shifted == EOS_ID, PAD_ID)
        assert torch.equal(out["tgt_in"][:, 1:], expected)
        assert out["n_tokens"] == int((out["tgt_out"] != PAD_ID).sum()) == sum(len(t) for _, t in batch)


# -- budget_batches ----------------------------------------------------------------------------------

@pytest.mark.parametrize("max_rows, max_tokens", [(8, 120), (32, 200), (5, None), (1, 60), (64, 40)])
@pytest.mark.parametrize("sort", [False, True])
def test_budget_batches_respect_both_limits_and_keep_order(max_rows, max_tokens, sort):
    order = np.argsort(LENGTHS, kind="stable") if sort else RNG.permutation(len(LENGTHS))
    batches = budget_batches(order, LENGTHS, max_rows, max_tokens)
    assert flat(batches) == [int(i) for i in order]  # order preserved, every index once
    for batch in batches:
        assert 1 <= len(batch) <= max_rows
        if max_tokens is not None and padded_tokens(batch) > max_tokens:
            assert len(batch) == 1  # only a sentence longer than the budget exceeds it, alone
    # batches are cut only when needed: the next sentence would not have fitted
    for batch, following in zip(batches, batches[1:]):
        grown = batch + following[:1]
        assert len(grown) > max_rows or (max_tokens is not None and padded_tokens(grown) > max_tokens)


def test_budget_batches_never_truncate_a_long_sentence():
    batches = budget_batches(range(len(LENGTHS)), LENGTHS, 16, 100)
    assert [17] in batches  # 150 tokens: a batch of its own
    assert budget_batches([], LENGTHS, 16, 100) == []


# -- split_evenly ------------------------------------------------------------------------------------

@pytest.mark.parametrize("parts", [1, 2, 3, 4, 7])
def test_split_evenly_gives_a_multiple_of_parts_without_losing_anything(parts):
    batches = budget_batches(RNG.permutation(len(LENGTHS)), LENGTHS, 12, 250)
    split = split_evenly(batches, parts)
    assert len(split) % parts == 0 and len(split) >= len(batches)
    assert sorted(flat(split)) == sorted(flat(batches)) == list(range(len(LENGTHS)))  # disjoint and covering
    assert all(split_batch for split_batch in split)
    # only halves of original batches: each new batch lies inside one old batch
    owner = {i: k for k, b in enumerate(batches) for i in b}
    assert all(len({owner[i] for i in b}) == 1 for b in split)
    if len(batches) % parts == 0:
        assert split == batches


def test_split_evenly_refuses_when_there_are_too_few_sentences():
    with pytest.raises(ValueError, match="cannot be split"):
        split_evenly([[0], [1]], 3)
    assert sorted(map(len, split_evenly([[0, 1, 2], [3]], 3))) == [1, 1, 2]


# -- TokenBatchSampler -------------------------------------------------------------------------------

def sampler(replicas=1, rank=0, shuffle=True, seed=2, **kwargs):
    options = {"max_rows": 8, "max_tokens": 160, "bucket": True, **kwargs}
    return TokenBatchSampler(LENGTHS, shuffle=shuffle, seed=seed, num_replicas=replicas, rank=rank, **options)


def epoch(s, number=0):
    s.set_epoch(number)
    return list(s)


@pytest.mark.parametrize("replicas", [1, 2, 3])
def test_training_shards_are_disjoint_equal_and_cover_everything(replicas):
    for number in (0, 3):
        shards = [epoch(sampler(replicas, rank), number) for rank in range(replicas)]
        assert len({len(s) for s in shards}) == 1  # DDP needs the same number of steps on every rank
        indices = [i for s in shards for i in flat(s)]
        assert sorted(indices) == list(range(len(LENGTHS)))  # disjoint and covering: each index once
        for s in shards:
            for batch in s:
                assert len(batch) <= 8
                assert padded_tokens(batch) <= 160 or len(batch) == 1


@pytest.mark.parametrize("replicas", [1, 2, 3])
def test_validation_batches_are_dealt_without_repeats(replicas):
    single = epoch(sampler(1, 0, shuffle=False))
    shards = [epoch(sampler(replicas, rank, shuffle=False)) for rank in range(replicas)]
    indices = [i for s in shards for i in flat(s)]
    assert sorted(indices) == list(range(len(LENGTHS)))  # every index exactly once overall
    assert sorted(map(tuple, (b for s in shards for b in s))) == sorted(map(tuple, single))
    # sorted by length: similar lengths share a batch
    assert [LENGTHS[i] for i in flat(single)] == sorted(LENGTHS)
    # the same batches every epoch
    assert all(epoch(sampler(replicas, rank, shuffle=False), 5) == shards[rank] for rank in range(replicas))


@pytest.mark.parametrize("replicas", [2, 3])
def test_fewer_validation_batches_than_processes_give_each_process_one(replicas):
    lengths = [3, 5, 4, 2, 6]  # one batch within the budget
    assert len(epoch(TokenBatchSampler(lengths, 16, 400, shuffle=False))) == 1
    shards = [epoch(TokenBatchSampler(lengths, 16, 400, shuffle=False, num_replicas=replicas, rank=rank))
              for rank in range(replicas)]
    assert all(shards) and sorted(i for s in shards for i in flat(s)) == list(range(len(lengths)))


def test_epochs_reshuffle_deterministically():
    s = sampler(2, 1)
    first, second = epoch(s, 0), epoch(s, 1)
    assert first != second
    assert epoch(s, 0) == first  # going back to an epoch gives its batches again
    assert epoch(sampler(2, 1), 1) == second  # a new sampler with the same seed: the same batches
    assert epoch(sampler(2, 1, seed=3), 0) != first
    assert s.sampler is s  # Lightning calls set_epoch on `batch_sampler.sampler`


@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("replicas", [1, 3])
def test_len_is_the_number_of_batches_iterated(shuffle, replicas):
    for rank in range(replicas):
        s = sampler(replicas, rank, shuffle=shuffle)
        for number in range(3):
            s.set_epoch(number)
            assert len(s) == len(list(s))


def test_bucketing_cuts_padding():
    def padding(batches):
        return sum(padded_tokens(b) - sum(LENGTHS[i] for i in b) for b in batches)

    plain = epoch(sampler(bucket=False, max_tokens=None))
    bucketed = epoch(sampler(bucket=True, max_tokens=None))
    assert padding(bucketed) < padding(plain) / 3
    assert sorted(flat(plain)) == sorted(flat(bucketed)) == list(range(len(LENGTHS)))


def test_sampler_serves_a_dataloader():
    data = [([5] * (n - 1) + [EOS_ID], [6] * (n - 1) + [EOS_ID]) for n in LENGTHS]  # lengths as LENGTHS
    s = sampler(max_tokens=400)
    loader = torch.utils.data.DataLoader(data, batch_sampler=s, collate_fn=collate_pairs)
    batches = list(loader)
    assert len(batches) == len(s)
    assert sum(int(b["src_len"].shape[0]) for b in batches) == len(LENGTHS)
    assert all(b["src"].numel() <= 400 or b["src"].shape[0] == 1 for b in batches)
