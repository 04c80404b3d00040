"""The shared kernel every app builds on: tenancy, roles and permissions, typed errors, the API
envelope/pagination/schema, the FSM compare-and-set, field encryption, phone numbers, the admin base,
the channel registry and deploy checks. A Django app of its own (label ``platform``) holding the tenancy
models (``models.py``); it imports nothing of the product (targets, campaigns, chains)."""
