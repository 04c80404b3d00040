"""Outbound webhook events of the SMS channel (docs/api.md "Outbound webhooks"): the one writer of each, called
in the transaction that records the fact.

- ``sms.sent``: the provider accepted an attempt (``submitted``), when the send's result is written
  (``sms.action.attempts.record_many``: one INSERT for the batch); for an attempt whose outcome was ``unknown``,
  once, when it is settled as accepted — by a status call by local id (the step's settling, the unknown watch),
  the unknown watch's look at what was sent to the number, or a delivery report that moves it straight to
  ``sent`` / ``delivered`` (then ``data.status`` says that status, and ``sms.delivered`` follows as usual).
- ``sms.delivered`` / ``sms.failed``: an attempt's status moved to ``delivered``, or to ``failed`` /
  ``rejected`` / ``unavailable`` — by the send's result or by a delivery report (``sms.delivery``). The status
  only moves forward by a conditional UPDATE, so a repeated report fires nothing. ``data.status`` tells which.
- ``sms.reply_received``: a received message was stored (once per provider message id, ``sms.inbound``).
- ``sms.opted_out``: a number was blacklisted as an opt-out (a reply's opt-out word or the provider's
  opt-out); an entry already active fires nothing.

The one recipient's number is in the payload (the workspace's own endpoint, the workspace's own data); no
message text is, except a reply's (what the subscriber asked for).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, fields
from datetime import datetime

from campaigns.platform.webhook_payloads import webhook_data
from campaigns.platform.webhooks import webhook_events_emit, webhook_subscribed, webhook_wanted
from sms.choices import AttemptStatus
from sms.models import SmsAttempt

SENT, DELIVERED, FAILED = "sms.sent", "sms.delivered", "sms.failed"
REPLY_RECEIVED, OPTED_OUT = "sms.reply_received", "sms.opted_out"

# an attempt's new status → its event
STATUS_EVENTS = {
    AttemptStatus.SUBMITTED: SENT,
    AttemptStatus.DELIVERED: DELIVERED,
    AttemptStatus.FAILED: FAILED,
    AttemptStatus.REJECTED: FAILED,
    AttemptStatus.UNAVAILABLE: FAILED,
}
ATTEMPT_EVENTS = (SENT, DELIVERED, FAILED)


@dataclass(frozen=True)
class SmsAttemptData:
    """One SMS attempt (one recipient's message of a journey step). `status`: submitted (sms.sent; sent or
    delivered when a delivery report settled an unknown outcome), delivered (sms.delivered), failed / rejected /
    unavailable (sms.failed); `retry_at` when the step will try again."""

    attempt_id: int
    campaign_id: int
    execution_id: int
    target_id: int
    node_id: int
    attempt_number: int
    phone: str
    status: str
    provider: str
    provider_message_id: str
    error_code: str
    requested_at: datetime
    retry_at: datetime | None


@dataclass(frozen=True)
class SmsReplyData:
    """A message received from a recipient: `target_id` when the number is a live target of the workspace,
    `attempt_id` / `campaign_id` of the last message accepted for it on that line; `outcome` the keyword applied
    (opt_out, opt_in, …; empty when none)."""

    reply_id: int
    number: str
    line: str
    text: str
    received_at: datetime
    target_id: int | None
    attempt_id: int | None
    campaign_id: int | None
    outcome: str


@dataclass(frozen=True)
class SmsOptOutData:
    """A number blacklisted because its recipient asked to receive nothing more. `source`: reply (an opt-out
    word) or opt_out (the provider's opt-out report)."""

    blacklist_entry_id: int
    number: str
    source: str
    opted_out_at: datetime


def register() -> None:
    """From ``SmsConfig.ready()``."""
    from campaigns.platform.webhooks import register_webhook_event

    register_webhook_event(SENT, "ارسال پیامک (پذیرش در پنل)", SmsAttemptData)
    register_webhook_event(DELIVERED, "رسیدن پیامک", SmsAttemptData)
    register_webhook_event(FAILED, "ناموفق شدن پیامک", SmsAttemptData)
    register_webhook_event(REPLY_RECEIVED, "دریافت پاسخ پیامکی", SmsReplyData)
    register_webhook_event(OPTED_OUT, "لغو اشتراک گیرنده", SmsOptOutData)


def attempts_wanted(workspace_ids: Iterable[int]) -> bool:
    """Does any of these workspaces subscribe to an attempt event? (Cached: no query.)"""
    return any(webhook_wanted(w, *ATTEMPT_EVENTS) for w in set(workspace_ids))


# An attempt event's fields → the attempt's columns that hold them (the same name where not listed).
_RENAMED = {
    "attempt_id": "id",
    "target_id": "subject_id",
    "requested_at": "request_at",
    "retry_at": "retry_scheduled_at",
}
_COLUMNS = {f.name: _RENAMED.get(f.name, f.name) for f in fields(SmsAttemptData)}


def attempts_moved(
    *, attempt_ids: Iterable[int], workspace_ids: Iterable[int] | None = None, as_event: str | None = None
) -> None:
    """Events of attempts whose status just moved (in the caller's transaction): one SELECT, then one INSERT per
    workspace and event type of the subscribed ones. Given the attempts' ``workspace_ids``, nothing is read when
    none of them subscribes. ``as_event``: that event for each attempt whatever its status (an unknown outcome a
    delivery report settled as accepted: ``sms.sent``, ``sms.delivery.attempt_status_apply``)."""
    ids = list(attempt_ids)
    if not ids or (workspace_ids is not None and not attempts_wanted(workspace_ids)):
        return
    groups: dict[tuple[int, str], list[dict]] = defaultdict(list)
    subscribed: dict[int, frozenset[str]] = {}  # one cache read per workspace, not per row
    for row in SmsAttempt.objects.filter(pk__in=ids).order_by("id").values("workspace_id", *_COLUMNS.values()):
        event = as_event or STATUS_EVENTS.get(row["status"])
        workspace_id = row["workspace_id"]
        if workspace_id not in subscribed:
            subscribed[workspace_id] = webhook_subscribed(workspace_id)
        if event is None or event not in subscribed[workspace_id]:
            continue
        data = SmsAttemptData(**{name: row[column] for name, column in _COLUMNS.items()})
        groups[(row["workspace_id"], event)].append(webhook_data(data))
    for (workspace_id, event), items in groups.items():
        webhook_events_emit(workspace_id=workspace_id, type=event, items=items)


def reply_received(*, message) -> None:
    """A stored ``InboundSms`` (in its transaction)."""
    if not webhook_wanted(message.workspace_id, REPLY_RECEIVED):
        return
    data = SmsReplyData(
        reply_id=message.pk,
        number=message.number,
        line=message.line,
        text=message.text,
        received_at=message.received_at,
        target_id=message.target_id,
        attempt_id=message.attempt_id,
        campaign_id=message.campaign_id,
        outcome=message.outcome or "",
    )
    webhook_events_emit(workspace_id=message.workspace_id, type=REPLY_RECEIVED, items=[webhook_data(data)])


def opted_out(*, entry) -> None:
    """A ``BlacklistEntry`` just made active as an opt-out (in its transaction)."""
    if not webhook_wanted(entry.workspace_id, OPTED_OUT):
        return
    data = SmsOptOutData(
        blacklist_entry_id=entry.pk, number=entry.value, source=entry.source, opted_out_at=entry.updated_at
    )
    webhook_events_emit(workspace_id=entry.workspace_id, type=OPTED_OUT, items=[webhook_data(data)])
