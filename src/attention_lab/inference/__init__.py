"""Translating with a trained model: search, the model file, the translator. No training code."""
