"""The workflow engine: workflows, versions, executions, scheduler (see journeys.md)."""
