"""Everything MLflow: the store, logging into a run, the logged model, the registry, the served model."""
