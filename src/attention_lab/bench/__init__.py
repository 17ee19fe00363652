"""Speed, measured: the benchmark report, FLOP counting, the textbook reference loop, d2l side by side."""
