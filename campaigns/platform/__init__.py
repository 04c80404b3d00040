"""The shared kernel every app builds on: tenancy, roles and permissions, typed errors, the API
envelope/pagination/schema, the FSM compare-and-set, field encryption, phone numbers, the admin base,
the channel registry and deploy checks. It imports nothing of the product (targets, campaigns, chains)
beyond the workspace models."""
