"""The models as plain `nn.Module`s: attention scorers, encoder, decoders, the seq2seq model, its loss."""
