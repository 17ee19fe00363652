"""attention-lab: the attention chapter of Dive into Deep Learning as a reproducible pipeline."""

__version__ = "0.1.0"
