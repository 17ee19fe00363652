"""Attention pooling as Nadaraya-Watson kernel regression (d2l §11.2): the `train_nw` stage.

Nadaraya, E. A. (1964). "On Estimating Regression". Theory of Probability & Its Applications 9(1).
Watson, G. S. (1964). "Smooth Regression Analysis". Sankhyā, Series A 26(4).

`kernels` pools, `data` holds the stage's parameters and d2l's data set, `estimators` fits the
bandwidths and the learned Gaussian, `experiment` runs them over seeds, `figures` draws them.
Shapes follow the package notation (`attention_lab`): Q queries, K keys (= training points),
C queries in one chunk, P held-out points of leave-one-out cross-validation, G bandwidths.
"""
