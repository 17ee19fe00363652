"""Everything MLflow: the store (`store`), logging into a run (`run`), the run file beside a model
(`run_file`), recording a finished training run (`record`), the logged model and the registry
(`registry`), the served model (`served_model`)."""
