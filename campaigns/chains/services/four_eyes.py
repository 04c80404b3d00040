"""The approval notifications of chain packages.

Four eyes (``Workspace.settings["approval_four_eyes"]``, absent = off) is the core's rule
(``campaigns.services.approval.assert_may_approve``): the member who submitted a package (or a single
campaign) may not approve it — 403 ``SUBMITTER_CANNOT_APPROVE``; another member with ``approve_chains`` can.
The rule is bound at submit (``ChainApprovalPackage.four_eyes``, the single campaign's submit event data) and
approval is decided by the bound value: switching the setting off after submitting does not open
self-approval. Rejecting stays open to the submitter's peers and the submitter withdraws instead.

Notifications (bell, and e-mail when the workspace has ``notifications_email``), sent after commit, once per
package and event: approval requested → every member who may approve it; approved / rejected → the submitter.
"""

from __future__ import annotations

from django.db import transaction
from django.urls import reverse

from campaigns.approval_selectors import approver_ids
from campaigns.chains.models import ChainApprovalPackage
from campaigns.notifications.services import notification_send
from campaigns.platform.jalali import fa_digits


def _package_notice(package: ChainApprovalPackage, event: str, recipients: list[int], title: str, body: str) -> None:
    notification_send(
        workspace=package.workspace_id,
        recipients=recipients,
        kind=f"chain_package_{event}",
        title=title,
        body=body,
        link=reverse("chain-package", args=[package.id]),
        dedupe_key=f"chain-package-{event}:{package.id}",
    )


def package_requested_notify(package: ChainApprovalPackage, root_name: str) -> None:
    """After commit: everyone who may approve hears that a package waits (not the submitter)."""
    ids = approver_ids(package.workspace, submitter_id=package.submitted_by_id, bound_four_eyes=package.four_eyes)
    recipients = [i for i in ids if i != package.submitted_by_id]
    number = fa_digits(package.id)
    title = f"بسته تأیید #{number} زنجیره «{root_name}» در انتظار تأیید است"
    body = f"زنجیره «{root_name}» برای تأیید فرستاده شد؛ بسته را بازبینی و تأیید یا رد کنید."
    transaction.on_commit(lambda: _package_notice(package, "requested", recipients, title, body))


def package_decided_notify(
    package: ChainApprovalPackage, root_name: str, *, decider_id: int | None, approved: bool, reason: str = ""
) -> None:
    """After commit: the submitter hears the decision (and the reason of a rejection), unless they made it."""
    if package.submitted_by_id is None or package.submitted_by_id == decider_id:
        return
    number = fa_digits(package.id)
    if approved:
        title = f"بسته #{number} زنجیره «{root_name}» تأیید شد"
        body = "زنجیره تأیید شد و در انتظار نخستین اجرا است."
        event = "approved"
    else:
        title = f"بسته #{number} زنجیره «{root_name}» رد شد"
        body = f"دلیل: {reason}" if reason else "زنجیره رد شد و برای اصلاح باز است."
        event = "rejected"
    recipients = [package.submitted_by_id]
    transaction.on_commit(lambda: _package_notice(package, event, recipients, title, body))
