"""SMS writes: blacklist, templates, circuit resume, webhook token, delivery reports + opt-outs."""

from __future__ import annotations

import hmac
import json
import secrets
from datetime import date
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.platform.errors import NotFound, ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped
from campaigns.platform.text import text_check
from campaigns.services.workspaces import workspace_settings_set
from sms import channel, events, filtered_words, frequency_cap, quiet_days, webhook_events
from sms.choices import MAX_PRICE, PRICE_FIELDS, AttemptStatus, BlacklistReason, BlacklistSource, CreditUnit, LineKind
from sms.delivery import attempt_status_apply
from sms.errors import AlreadyBlacklisted, InvalidNumber
from sms.models import (
    BlacklistEntry,
    SmsAttempt,
    SmsProviderAccount,
    SmsSettings,
    SmsTemplate,
    new_webhook_token,
    webhook_token_digest,
)
from sms.retention import SETTING as RETENTION_SETTING

MAX_IMPORT = 20000


# --- blacklist -----------------------------------------------------------------------------------
def _upsert_entry(
    *, workspace_id: int, number: str, reason: str, source: str, description: str = "", user=None
) -> tuple[BlacklistEntry, bool]:
    """Insert or reactivate; returns (entry, changed)."""
    try:
        with transaction.atomic():
            entry = BlacklistEntry.objects.create(
                workspace_id=workspace_id,
                value=number,
                reason=reason,
                source=source,
                description=description,
                created_by=user,
            )
            return entry, True
    except IntegrityError:
        entry = BlacklistEntry.objects.get(workspace_id=workspace_id, channel="sms", value=number)
        if entry.is_active:
            return entry, False
        BlacklistEntry.objects.filter(pk=entry.pk).update(
            is_active=True,
            reason=reason,
            source=source,
            description=description,
            removed_at=None,
            removed_by=None,
            updated_at=timezone.now(),
        )
        entry.refresh_from_db()
        return entry, True


def blacklist_opt_out(*, workspace_id: int, number: str, source: str, description: str = "") -> BlacklistEntry:
    """The recipient asked to receive nothing more (a webhook's opt-out, a reply's opt-out word): the number is
    blacklisted now with reason ``opt_out`` (an entry already active is left as it is, and fires no webhook)."""
    with transaction.atomic():
        entry, changed = _upsert_entry(
            workspace_id=workspace_id,
            number=number,
            reason=BlacklistReason.OPT_OUT,
            source=source,
            description=description[:300],
        )
        if changed:
            webhook_events.opted_out(entry=entry)
    return entry


def blacklist_add(
    *,
    actor: Actor,
    number: str,
    reason: str = BlacklistReason.MANUAL,
    description: str = "",
    source: str = BlacklistSource.MANUAL,
) -> BlacklistEntry:
    actor.require(Perm.MANAGE_BLACKLIST)
    normalized = channel.normalize_number(number)
    if not normalized:
        raise InvalidNumber(details={"number": ["شماره معتبر نیست."]})
    if reason not in BlacklistReason.values:
        raise ValidationFailed.field("reason", "دلیل نامعتبر است.")
    entry, changed = _upsert_entry(
        workspace_id=actor.workspace.id,
        number=normalized,
        reason=reason,
        source=source,
        description=description,
        user=actor.user,
    )
    if not changed:
        raise AlreadyBlacklisted()
    return entry


def blacklist_deactivate(*, actor: Actor, entry_id: int) -> BlacklistEntry:
    actor.require(Perm.MANAGE_BLACKLIST)
    entry = get_scoped(BlacklistEntry, actor.workspace, entry_id)
    BlacklistEntry.objects.filter(pk=entry.pk, is_active=True).update(
        is_active=False, removed_at=timezone.now(), removed_by=actor.user, updated_at=timezone.now()
    )
    entry.refresh_from_db()
    return entry


def blacklist_reactivate(*, actor: Actor, entry_id: int) -> BlacklistEntry:
    actor.require(Perm.MANAGE_BLACKLIST)
    entry = get_scoped(BlacklistEntry, actor.workspace, entry_id)
    BlacklistEntry.objects.filter(pk=entry.pk).update(
        is_active=True, removed_at=None, removed_by=None, updated_at=timezone.now()
    )
    entry.refresh_from_db()
    return entry


def blacklist_import(*, actor: Actor, numbers: list[str], reason: str = BlacklistReason.IMPORTED) -> dict[str, Any]:
    """Add many numbers (any notation); reports added, already there and invalid lines."""
    actor.require(Perm.MANAGE_BLACKLIST)
    if len(numbers) > MAX_IMPORT:
        raise ValidationFailed.field("numbers", f"حداکثر {MAX_IMPORT} شماره در هر بار.")
    added, existing, invalid = 0, 0, []
    for raw in numbers:
        normalized = channel.normalize_number(str(raw))
        if not normalized:
            invalid.append(str(raw)[:40])
            continue
        _, changed = _upsert_entry(
            workspace_id=actor.workspace.id,
            number=normalized,
            reason=reason,
            source=BlacklistSource.IMPORT,
            user=actor.user,
        )
        added, existing = added + changed, existing + (not changed)
    return {"added": added, "already_active": existing, "invalid": invalid}


# --- templates ---------------------------------------------------------------------------------------
def sms_template_create(*, actor: Actor, name: str, body: str) -> SmsTemplate:
    actor.require(Perm.MANAGE_WORKFLOWS)
    text_check(names={"name": name}, texts={"body": body})
    if not name.strip() or not body.strip():
        raise ValidationFailed(details={"name": ["نام و متن لازم است."]})
    return SmsTemplate.objects.create(workspace=actor.workspace, name=name.strip(), body=body, created_by=actor.user)


def sms_template_update(*, actor: Actor, template_id: int, data: dict[str, Any]) -> SmsTemplate:
    actor.require(Perm.MANAGE_WORKFLOWS)
    template = get_scoped(SmsTemplate, actor.workspace, template_id)
    text_check(names={"name": data.get("name")}, texts={"body": data.get("body")})
    for field in ("name", "body"):
        if field in data:
            if not str(data[field]).strip():
                raise ValidationFailed.field(field, "این فیلد لازم است.")
            setattr(template, field, data[field])
    template.save()
    return template


def sms_template_delete(*, actor: Actor, template_id: int) -> None:
    actor.require(Perm.MANAGE_WORKFLOWS)
    template = get_scoped(SmsTemplate, actor.workspace, template_id)
    SmsTemplate.objects.filter(pk=template.pk).update(deleted_at=timezone.now())


# --- channel ---------------------------------------------------------------------------------------------
def circuit_resume(*, actor: Actor) -> SmsSettings:
    """The "fixed, resume" button: closes the circuit now (audited)."""
    actor.require(Perm.MANAGE_WORKSPACE)
    settings = channel.sms_settings(actor.workspace.id)
    SmsSettings.objects.filter(pk=settings.pk).update(paused_until=None, pause_reason="", outage_notified_at=None)
    events.manual_resume_event(
        workspace_id=actor.workspace.id, actor=actor.user, was_paused_until=settings.paused_until
    )
    settings.refresh_from_db()
    return settings


SETTINGS_FIELDS = {
    "enabled",
    "opt_out_text",
    "primary_account_id",
    "fallback_account_id",
    "notifications_email",
    "sms_retention_days",
    "frequency_cap_rules",
    "frequency_cap_per_day",
    "quiet_fridays",
    "quiet_days",
}
MAX_FREQUENCY_CAP = frequency_cap.MAX_LIMIT[frequency_cap.DAY]
# ``notifications_email`` (e-mail every notification, campaigns.notifications) and ``sms_retention_days`` (days
# after which SMS texts and numbers are erased, sms.retention; 0 = keep forever) live in Workspace.settings.
MAX_RETENTION_DAYS = 3650


def _workspace_values(data: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if "notifications_email" in data:
        if not isinstance(data["notifications_email"], bool):
            raise ValidationFailed.field("notifications_email", "مقدار باید درست یا نادرست باشد.")
        values["notifications_email"] = data["notifications_email"]
    if RETENTION_SETTING in data:
        days = data[RETENTION_SETTING]
        if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= MAX_RETENTION_DAYS:
            raise ValidationFailed.field(RETENTION_SETTING, f"تعداد روز باید بین ۰ و {MAX_RETENTION_DAYS} باشد.")
        values[RETENTION_SETTING] = days or None  # 0: keep forever (the key is removed)
    return values


def _cap_rules(value: Any) -> list[frequency_cap.Rule]:
    """``[{"period": "day" | "week" | "month", "limit": N}]``: one rule per period, each limit within its bound."""
    field = "frequency_cap_rules"
    if not isinstance(value, list) or len(value) > len(frequency_cap.PERIODS):
        raise ValidationFailed.field(field, "فهرستی از حداکثر سه قاعده (روز، هفته، ماه).")
    rules: dict[str, frequency_cap.Rule] = {}
    for entry in value:
        period = entry.get("period") if isinstance(entry, dict) else None
        limit = entry.get("limit") if isinstance(entry, dict) else None
        if period not in frequency_cap.PERIODS:
            raise ValidationFailed.field(field, "دوره باید روز، هفته یا ماه باشد.")
        if period in rules:
            raise ValidationFailed.field(field, "برای هر دوره یک قاعده.")
        most = frequency_cap.MAX_LIMIT[period]
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= most:
            label = frequency_cap.PERIOD_LABELS[period]
            raise ValidationFailed.field(field, f"سقف هر {label} باید عددی بین ۱ و {most} باشد.")
        rules[period] = frequency_cap.Rule(period, limit)
    return list(rules.values())


def _promotional_values(settings: SmsSettings, data: dict[str, Any]) -> None:
    """The frequency cap's rules (per Jalali day / week / month, one each; ``frequency_cap_per_day`` sets the day
    rule alone, 0 removes it) and the quiet days of promotional sends (ISO dates, each once, sorted)."""
    if "frequency_cap_rules" in data and "frequency_cap_per_day" in data:
        raise ValidationFailed.field("frequency_cap_per_day", "سقف روزانه یا در قاعده‌ها یا جدا، نه هر دو.")
    if "frequency_cap_rules" in data:
        settings.frequency_cap_rules = frequency_cap.rules_value(_cap_rules(data["frequency_cap_rules"]))
    if "frequency_cap_per_day" in data:
        cap = data["frequency_cap_per_day"]
        if isinstance(cap, bool) or not isinstance(cap, int) or not 0 <= cap <= MAX_FREQUENCY_CAP:
            raise ValidationFailed.field("frequency_cap_per_day", f"سقف باید عددی بین ۰ و {MAX_FREQUENCY_CAP} باشد.")
        rules = [r for r in frequency_cap.rules_of(settings) if r.period != frequency_cap.DAY]
        if cap:
            rules.append(frequency_cap.Rule(frequency_cap.DAY, cap))
        settings.frequency_cap_rules = frequency_cap.rules_value(rules)
    if "quiet_fridays" in data:
        if not isinstance(data["quiet_fridays"], bool):
            raise ValidationFailed.field("quiet_fridays", "مقدار باید درست یا نادرست باشد.")
        settings.quiet_fridays = data["quiet_fridays"]
    if "quiet_days" in data:
        values = data["quiet_days"]
        if not isinstance(values, list) or len(values) > quiet_days.MAX_DAYS:
            raise ValidationFailed.field("quiet_days", f"فهرستی از حداکثر {quiet_days.MAX_DAYS} تاریخ.")
        days = set()
        for value in values:
            try:
                days.add(date.fromisoformat(str(value)))
            except ValueError:
                raise ValidationFailed.field("quiet_days", "تاریخ نامعتبر است.") from None
        settings.quiet_days = [d.isoformat() for d in sorted(days)]


def sms_settings_update(*, actor: Actor, data: dict[str, Any]) -> SmsSettings:
    """Change the workspace's SMS settings; the accounts must be this workspace's own."""
    actor.require(Perm.MANAGE_WORKSPACE)
    unknown = set(data) - SETTINGS_FIELDS
    if unknown:
        raise ValidationFailed(details={key: ["فیلد ناشناخته"] for key in sorted(unknown)})
    text_check(texts={"opt_out_text": data.get("opt_out_text")})
    workspace_values = _workspace_values(data)
    settings = channel.sms_settings(actor.workspace.id)
    for field in ("primary_account_id", "fallback_account_id"):
        if field not in data:
            continue
        account = None
        if data[field] is not None:  # another workspace's account is not found either (no hint it exists)
            account = SmsProviderAccount.objects.filter(pk=data[field], workspace=actor.workspace).first()
            if account is None:
                raise ValidationFailed.field(field, "حساب پیامک پیدا نشد.")
        setattr(settings, field.removesuffix("_id"), account)
    if "enabled" in data:
        settings.enabled = bool(data["enabled"])
    if "opt_out_text" in data:
        settings.opt_out_text = str(data["opt_out_text"] or "")[:60]
    _promotional_values(settings, data)
    with transaction.atomic():
        settings.save()
        if workspace_values:
            workspace_settings_set(actor=actor, values=workspace_values)
    return settings


def webhook_token_rotate(*, actor: Actor) -> SmsSettings:
    actor.require(Perm.MANAGE_WORKSPACE)
    settings = channel.sms_settings(actor.workspace.id)
    token = new_webhook_token()
    SmsSettings.objects.filter(pk=settings.pk).update(
        webhook_token=token, webhook_token_digest=webhook_token_digest(token)
    )
    events.webhook_token_rotated_event(workspace_id=actor.workspace.id, actor=actor.user)
    settings.refresh_from_db()
    return settings


# --- delivery webhook ------------------------------------------------------------------------------------
REPORT_STATUSES = {
    "sent": AttemptStatus.SENT,
    "delivered": AttemptStatus.DELIVERED,
    "failed": AttemptStatus.FAILED,
    "rejected": AttemptStatus.REJECTED,
}


def settings_for_token(token: str) -> SmsSettings:
    """Constant-time comparison against the workspace's token; every refusal is the same NotFound."""
    candidate = SmsSettings.objects.filter(webhook_token_digest=webhook_token_digest(token)).first() if token else None
    expected = candidate.webhook_token if candidate else new_webhook_token()
    if candidate is None or not hmac.compare_digest(expected.encode(), token.encode()):
        raise NotFound()
    return candidate


def delivery_reports_apply(*, settings: SmsSettings, reports: list, opt_outs: list) -> None:
    """Store each report once; status only moves forward; opt-outs go to the blacklist. Never changes a path."""
    now = timezone.now()
    for report in reports:
        if not isinstance(report, dict):
            continue
        message_id, status = str(report.get("message_id") or "")[:64], REPORT_STATUSES.get(str(report.get("status")))
        if not message_id or status is None:
            continue
        attempt = SmsAttempt.objects.filter(workspace_id=settings.workspace_id, provider_message_id=message_id).first()
        if attempt is None:
            continue
        # Stored once (a duplicate report is dropped), forward-only, a late one adds history only.
        attempt_status_apply(
            attempt_id=attempt.pk,
            workspace_id=settings.workspace_id,
            status=status,
            event="delivery_report",
            provider_status=str(report.get("status")),
            dedupe_key=f"{status}:{report.get('at', '')}",
            payload=report,
            occurred_at=now,
        )
    for item in opt_outs:
        raw = item.get("number") if isinstance(item, dict) else item
        number = channel.normalize_number(str(raw or ""))
        if number:
            blacklist_opt_out(workspace_id=settings.workspace_id, number=number, source=BlacklistSource.OPT_OUT)


# --- provider accounts -----------------------------------------------------------------------------------
ACCOUNT_FIELDS = {
    "name",
    "credentials",
    "senders",
    "is_active",
    "line_kind",
    "filtered_words",
    "use_typed_prices",
    "credit_unit",
    *PRICE_FIELDS,
}


def _clean_senders(raw: Any) -> list[str]:
    items = raw.replace(",", "\n").splitlines() if isinstance(raw, str) else list(raw or [])
    senders = [str(item).strip() for item in items if str(item).strip()]
    for sender in senders:
        if len(sender) > 30:
            raise ValidationFailed.field("senders", "هر خط ارسال حداکثر ۳۰ نویسه است.")
    return list(dict.fromkeys(senders))


def _line_kind(value: Any) -> str:
    if value not in LineKind.values:
        raise ValidationFailed.field("line_kind", "نوع خط باید تبلیغاتی یا خدماتی باشد.")
    return str(value)


def _credit_unit(provider_kind: str, value: Any) -> str:
    """The unit the account's credit counts (``CreditUnit``); empty = the provider's own."""
    from sms.models import provider_credit_unit

    if not value:
        return provider_credit_unit(provider_kind)
    if value not in CreditUnit.values:
        raise ValidationFailed.field("credit_unit", "واحد اعتبار باید ریال یا پیامک باشد.")
    return str(value)


def _price(field: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_PRICE:
        raise ValidationFailed.field(field, f"بها باید عددی از ۰ تا {MAX_PRICE} ریال باشد.")
    return value


def _credentials_json(provider_kind: str, credentials: dict[str, Any]) -> str:
    """Only non-empty strings are kept; the provider says whether they are enough."""
    from sms.providers import provider_for

    values = {str(k): str(v).strip() for k, v in (credentials or {}).items() if str(v or "").strip()}
    provider = provider_for(provider_kind)
    if provider is None:
        raise ValidationFailed.field("provider", "سرویس‌دهنده ناشناخته است.")
    if provider.credentials_problem(values):
        raise ValidationFailed.field("credentials", "اعتبارنامه این سرویس‌دهنده کامل نیست.")
    return json.dumps(values) if values else ""


def sms_account_create(
    *,
    actor: Actor,
    name: str,
    provider: str,
    credentials: dict[str, Any] | None = None,
    senders: Any = None,
    is_active: bool = True,
    line_kind: str = LineKind.SERVICE,
    prices: dict[str, int] | None = None,
) -> SmsProviderAccount:
    """A provider account of the workspace; credentials are stored encrypted and never read back to staff.
    ``prices``: price of one message part per operator (``price_mci``, ``price_irancell``, ``price_rightel``)."""
    actor.require(Perm.MANAGE_WORKSPACE)
    text_check(names={"name": name})
    if not str(name or "").strip():
        raise ValidationFailed.field("name", "نام حساب لازم است.")
    return SmsProviderAccount.objects.create(
        workspace=actor.workspace,
        name=str(name).strip()[:100],
        provider=provider,
        credentials=_credentials_json(provider, credentials or {}),
        senders=_clean_senders(senders),
        is_active=bool(is_active),
        line_kind=_line_kind(line_kind),
        **{field: _price(field, value) for field, value in (prices or {}).items() if field in PRICE_FIELDS},
    )


def sms_account_update(*, actor: Actor, account_id: int, data: dict[str, Any]) -> SmsProviderAccount:
    """Change name, senders, active flag, line kind, prices per operator (and whether they win over the
    provider's); new credentials replace the old ones
    only when given (write-only)."""
    actor.require(Perm.MANAGE_WORKSPACE)
    unknown = set(data) - ACCOUNT_FIELDS
    if unknown:
        raise ValidationFailed(details={key: ["فیلد ناشناخته"] for key in sorted(unknown)})
    account = get_scoped(SmsProviderAccount, actor.workspace, account_id)
    text_check(names={"name": data.get("name")})
    if "name" in data:
        if not str(data["name"] or "").strip():
            raise ValidationFailed.field("name", "نام حساب لازم است.")
        account.name = str(data["name"]).strip()[:100]
    if "senders" in data:
        account.senders = _clean_senders(data["senders"])
    if "is_active" in data:
        account.is_active = bool(data["is_active"])
    if "line_kind" in data:
        account.line_kind = _line_kind(data["line_kind"])
    for field in PRICE_FIELDS:
        if field in data:
            setattr(account, field, _price(field, data[field]))
    if "use_typed_prices" in data:  # staff's prices over the provider's (docs/sms.md "Prices from the provider")
        account.use_typed_prices = bool(data["use_typed_prices"])
    if "credit_unit" in data:  # the provider's unit unless staff know better (docs/sms.md "Credit")
        account.credit_unit = _credit_unit(account.provider, data["credit_unit"])
    if "filtered_words" in data:
        if not isinstance(data["filtered_words"], list):
            raise ValidationFailed.field("filtered_words", "فهرستی از کلمه‌ها.")
        account.filtered_words = filtered_words.clean_words(data["filtered_words"])
    if any(str(v or "").strip() for v in (data.get("credentials") or {}).values()):
        account.credentials = _credentials_json(account.provider, data["credentials"])
    account.save()
    return account


def sms_account_test_send(*, actor: Actor, account_id: int, number: str, text: str) -> dict[str, Any]:
    """Send one message through this account now (no journey, no retry); the result is audited without the
    number or the text."""
    from sms.providers import SendRequest, provider_for

    actor.require(Perm.MANAGE_WORKSPACE)
    account = get_scoped(SmsProviderAccount, actor.workspace, account_id)
    normalized = channel.normalize_number(number)
    if not normalized:
        raise InvalidNumber(details={"number": ["شماره معتبر نیست."]})
    if not str(text or "").strip():
        raise ValidationFailed.field("text", "متن پیام لازم است.")
    provider = provider_for(account.provider)
    credentials = channel.account_credentials(account)
    if provider is None or provider.credentials_problem(credentials):
        raise ValidationFailed.field("account", "این حساب پیکربندی کامل ندارد.")
    local_id = str(secrets.randbelow(10**12) + 10**12)  # digits only; never the id of a journey step
    response = provider.send(
        credentials, SendRequest(phone=normalized, text=str(text), sender=account.default_sender, local_id=local_id)
    )
    result = {
        "status": response.status,
        "message_id": response.message_id,
        "error_code": response.error_code,
        "error_message": response.error_message,
    }
    events.test_message_event(
        workspace_id=actor.workspace.id,
        actor=actor.user,
        account_id=account.id,
        status=response.status,
        error_code=response.error_code,
    )
    return result
