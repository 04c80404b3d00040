"""API of groups, chains, approval packages and runs."""
