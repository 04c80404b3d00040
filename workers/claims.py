"""The run claim of a lease: the key a browser worker sets in the shared cache (``SET NX``) before it starts a
payload, and which the lease reclaim reads to tell a payload a worker took from one no worker ever started."""

from __future__ import annotations

import logging

from django.core.cache import cache

logger = logging.getLogger("workers.dispatch")


def run_claim_key(lease_id) -> str:
    return f"browser-run:{lease_id}"


def started_leases(lease_ids: list) -> set[str] | None:
    """The lease ids some worker claimed (started), or None when the cache cannot answer (assume all were)."""
    ids = [str(lease) for lease in lease_ids if lease]
    if not ids:
        return set()
    keys = {run_claim_key(lease): lease for lease in ids}
    try:
        found = cache.get_many(list(keys))
    except Exception:  # the claim store is down: every lease counts as started (its attempt is spent)
        logger.warning("run claims could not be read; expired leases count as started", exc_info=True)
        return None
    return {keys[key] for key in found}
