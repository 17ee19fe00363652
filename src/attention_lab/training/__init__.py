"""Training with Lightning: the DataModule, the LightningModule, the schedule, callbacks, resume,
the run's paths and the data it prepares, the allocator settings, and the run in steps (`run`, `steps`)."""
