"""Everything MLflow: the store (`store`), logging into a run (`run`), the run file beside a model
(`run_file`), recording a finished training run (`record`), Lightning's logger for a run in
progress (`lightning_logger`, the only module here that imports Lightning), the logged model and
the registry (`registry`), the served model (`served_model`), what the UI shows first: run names,
descriptions, metric names, the BLEU view (`views`), and pointing a copied repository's store at its
own artifacts (`relocate`)."""
