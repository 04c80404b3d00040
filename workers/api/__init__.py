"""API of this app."""
