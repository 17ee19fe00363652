"""Scoring and showing a trained model: BLEU, the test-split report, attention heatmaps."""
