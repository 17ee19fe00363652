import numpy as np
import pytest
import torch

from attention_lab.datamodule import BucketBatchSampler, collate_pairs, encode
from attention_lab.vocab import BOS_ID, EOS_ID, PAD_ID, RESERVED, Vocab

LENGTHS = np.random.default_rng(0).integers(1, 30, size=103).tolist()


def epoch(sampler, number=0):
    sampler.set_epoch(number)
    return list(sampler)


def test_every_index_once_per_epoch_and_reshuffled_by_epoch():
    sampler = BucketBatchSampler(LENGTHS, batch_size=8, shuffle=True, bucket=True, seed=1)
    first, second = epoch(sampler, 0), epoch(sampler, 1)
    assert sorted(i for b in first for i in b) == list(range(103)) == sorted(i for b in second for i in b)
    assert len(first) == len(sampler) == 13 and first != second
    assert epoch(BucketBatchSampler(LENGTHS, 8, True, True, seed=1), 0) == first  # seeded


def test_bucketing_cuts_padding():
    def padding(batches):
        return sum(max(LENGTHS[i] for i in b) * len(b) - sum(LENGTHS[i] for i in b) for b in batches)
    plain = epoch(BucketBatchSampler(LENGTHS, 8, shuffle=True, bucket=False, seed=1))
    bucketed = epoch(BucketBatchSampler(LENGTHS, 8, shuffle=True, bucket=True, seed=1))
    assert padding(bucketed) < padding(plain) / 3


@pytest.mark.parametrize("replicas", [2, 3])
def test_ranks_get_equal_batch_counts_covering_everything(replicas):
    shards = [epoch(BucketBatchSampler(LENGTHS, 8, True, True, seed=2, num_replicas=replicas, rank=r), 4)
              for r in range(replicas)]
    assert len({len(s) for s in shards}) == 1  # DDP needs the same number of steps on every rank
    assert {i for s in shards for b in s for i in b} == set(range(103))


def test_encode_truncates_and_ends_with_eos():
    vocab = Vocab(RESERVED + ("a", "b"))
    assert encode(vocab, ["a", "b", "zz"], max_len=10) == [4, 5, 3, EOS_ID]
    assert encode(vocab, ["a"] * 20, max_len=5) == [4, 4, 4, 4, EOS_ID]


def test_collate_shifts_targets_and_counts_tokens():
    batch = collate_pairs([([4, 5, EOS_ID], [6, 7, 8, EOS_ID]), ([4, EOS_ID], [9, EOS_ID])])
    assert batch["src"].tolist() == [[4, 5, EOS_ID], [4, EOS_ID, PAD_ID]]
    assert batch["src_len"].tolist() == [3, 2]
    assert batch["tgt_out"].tolist() == [[6, 7, 8, EOS_ID], [9, EOS_ID, PAD_ID, PAD_ID]]
    assert batch["tgt_in"].tolist() == [[BOS_ID, 6, 7, 8], [BOS_ID, 9, PAD_ID, PAD_ID]]  # <eos> never an input
    assert batch["n_tokens"] == 6 and isinstance(batch["n_tokens"], int)
    assert batch["tgt_out"].dtype == torch.long
