"""Analyses over the IR (Affinity, Partitioning, ResourceHazards, ResourceUsage, Liveness,
TimepointCoverage), shared by the passes."""
