"""The SMS channel: providers, gateway, attempts, blacklist, webhooks (journeys.md)."""
