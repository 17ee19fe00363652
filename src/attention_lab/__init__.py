"""attention-lab: the attention chapter of Dive into Deep Learning (§11.1-11.7) as a pipeline.

Shape notation, used in every docstring and reshape comment of this package (one letter per
dimension, never two meanings):

    B  batch rows (sentences)             W  beam width (hypotheses kept per sentence)
    N  rows of a flattened batch (B·W)    V  vocabulary size (subword pieces or words)
    S  source steps (tokens)              E  embedding size
    T  target steps (tokens)              H  hidden size: the RNN's, or the Transformer's model width
    Q  attention queries                  D  encoder output (key/value) size: H, or 2H bidirectional
    K  attention keys (a decoder's keys   A  additive attention's hidden size
       are its S source steps, Nadaraya-  L  layers: RNN (times directions where stated) or Transformer blocks
       Watson's its training points)
    M  attention heads                    Z  one head's size, H / M
    F  Transformer feed-forward width     R  attention maps per output step: 1, or L·M (every layer and head)
    P  held-out points of leave-one-out   G  bandwidths in a cross-validation grid
       cross-validation                   C  queries in one chunk (Nadaraya-Watson)
    X  a CUDA graph bucket's length (S    U  nodes of the number constraint's digit tries
       and T padded to it)                J  digit pieces of the vocabulary
    Y  sentences packed side by side into one attention row (B/Y rows)
"""

__version__ = "0.2.0"
