"""The text steps around the model: how a line is read before it (English) and its translation written after
it (French), one ordered list of steps (text/steps.py), one module per concept."""
