"""An approved root whose audience emptied after approval shows "needs review" (``AUDIENCE_EMPTY`` /
``AUDIENCE_MISSING``). The SKIPPED EMPTY_AUDIENCE run itself is notified once by ``runs.skips``.
"""

from __future__ import annotations

from campaigns.chains.audience import audience_problems
from campaigns.chains.node_models import ChainNode

AUDIENCE_CODES = {"AUDIENCE_MISSING", "AUDIENCE_EMPTY"}


def root_audience_review(root: ChainNode) -> bool:
    """Set or clear the root's audience review reasons from its approved audience now; True if it can reach people."""
    problems = audience_problems(root, use_snapshot=True)
    kept = [r for r in (root.needs_review_reasons or []) if r.get("code") not in AUDIENCE_CODES]
    reasons = kept + problems
    if reasons != (root.needs_review_reasons or []):
        ChainNode.objects.filter(pk=root.pk).update(needs_review=bool(reasons), needs_review_reasons=reasons)
        root.needs_review, root.needs_review_reasons = bool(reasons), reasons
    return not problems
