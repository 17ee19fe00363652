"""Training with Lightning: the DataModule, the LightningModule, the schedule, callbacks, resume, the run."""
