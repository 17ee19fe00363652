"""The reserved tokens every vocabulary starts with, and their ids: the model pads with `<pad>`,
search starts from `<bos>` and stops at `<eos>`, and `<unk>` stands for a word a word vocabulary lacks."""

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
RESERVED = (PAD, BOS, EOS, UNK)
PAD_ID, BOS_ID, EOS_ID, UNK_ID = range(4)
