"""Everything MLflow: the store (`store`), logging into a run (`run`), the run file beside a model
(`run_file`), recording a finished training run (`record`), Lightning's logger for a run in
progress (`lightning_logger`, the only module here that imports Lightning), the logged model and
the registry (`registry`), the served model (`served_model`)."""
