"""Text in: the corpus archive, cleaning, the splits, the tokenizer and its training, batching."""
