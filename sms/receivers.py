"""The SMS channel tells the workspace's owners when it goes down (once per outage, at most every 6 h) and
when sends stay unknown for hours (once per day)."""

from django.urls import reverse

from campaigns.notifications.services import notification_send, workspace_owners
from sms.channel import CREDIT_EXHAUSTED, channel_outage

REASONS = {
    "sms_disabled": "پیامک خاموش است",
    "sms_not_configured": "سرویس پیامک پیکربندی نشده است",
}


def _tell_owners(workspace_id: int, *, kind: str, title: str, body: str, link: str, dedupe_key: str) -> None:
    """One notification to the workspace's owners, linking to an SMS page (``link``: its URL name)."""
    notification_send(
        workspace=workspace_id,
        recipients=workspace_owners(workspace_id),
        kind=kind,
        title=title,
        body=body,
        link=reverse(link),
        dedupe_key=dedupe_key,
    )


def notify_outage(sender, *, workspace_id: int, reason: str, **kwargs) -> None:
    # The atomic UPDATE of ``outage_notified_at`` already allowed this signal once per outage window;
    # its timestamp makes the key, so a repeated delivery of the same signal adds nothing.
    from sms.models import SmsSettings

    stamp = SmsSettings.objects.filter(workspace_id=workspace_id).values_list("outage_notified_at", flat=True).first()
    if reason == CREDIT_EXHAUSTED:
        title = "ارسال پیامک‌ها برای اعتبار حساب متوقف شد"
        body = (
            f"{CREDIT_EXHAUSTED}؛ سرویس‌دهنده پیامک‌ها را نپذیرفت. ارسال‌ها متوقف است و هیچ پیامکی از دست نمی‌رود "
            "یا ناموفق شمرده نمی‌شود. حساب را شارژ کنید؛ وقتی اعتبار دوباره دیده شود (هر ۱۵ دقیقه خوانده می‌شود)، "
            "ارسال‌ها خودبه‌خود ادامه می‌یابند."
        )
    else:
        title = "کانال پیامک قطع است"
        body = (
            f"{REASONS.get(reason, reason)}. ارسال‌ها تا رفع مشکل به تعویق می‌افتند؛ پس از رفع، در تنظیمات پیامک "
            "«مشکل برطرف شد؛ ادامه» را بزنید."
        )
    _tell_owners(
        workspace_id,
        kind="channel_outage",
        title=title,
        body=body,
        link="sms-settings" if reason == CREDIT_EXHAUSTED else "sms-home",
        dedupe_key=f"sms_outage:{stamp.isoformat() if stamp else reason}",
    )


def notify_unknowns_aged(sender, *, workspace_id: int, count: int, day, **kwargs) -> None:
    """Sends whose outcome nobody could confirm for hours: once per workspace and day."""
    _tell_owners(
        workspace_id,
        kind="sms_unknown_aged",
        title="وضعیت برخی پیامک‌ها نامعلوم مانده است",
        body=f"{count} پیامک بیش از ۶ ساعت است که وضعیت ارسالشان از سرویس‌دهنده معلوم نشده است. "
        "این پیامک‌ها دوباره فرستاده نمی‌شوند؛ گزارش پیامک‌ها را بررسی کنید.",
        link="sms-home",
        dedupe_key=f"sms_unknown_aged:{day.isoformat()}",
    )


def notify_credit_low(
    sender, *, workspace_id: int, account_id: int, account_name: str, credit: int, day, credit_unit: str = "", **kw
):
    """An account's credit below the threshold of its unit: once per account and day."""
    from sms.models import credit_amount_text

    _tell_owners(
        workspace_id,
        kind="sms_credit_low",
        title="اعتبار حساب پیامک رو به پایان است",
        body=f"اعتبار حساب «{account_name}» {credit_amount_text(credit, credit_unit or 'rial')} است. پیش از تمام شدن "
        "آن، حساب را شارژ کنید تا ارسال‌ها متوقف نشود.",
        link="sms-settings",
        dedupe_key=f"sms_credit_low:{account_id}:{day.isoformat()}",
    )


def connect() -> None:
    from sms.credit import credit_low
    from sms.unknown_watch import unknowns_aged

    credit_low.connect(notify_credit_low, dispatch_uid="sms.notify_credit_low")
    channel_outage.connect(notify_outage, dispatch_uid="sms.notify_outage")
    unknowns_aged.connect(notify_unknowns_aged, dispatch_uid="sms.notify_unknowns_aged")
