"""API of groups, chains and runs (mounted from ``campaigns/api/chain_urls.py``)."""
