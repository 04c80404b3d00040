"""The SMS part of ``manage.py demo_data``: a console provider account (logs instead of sending) as the
demo workspace's primary account, so the demo journey campaign can be activated at once, its credit read at once
(the console's fixed demo credit: the launch check shows it instead of «خوانده نشده»), and three replies on
it for the inbox and a target's thread (one «لغو»: its sender is blacklisted as a keyword opt-out; one from an
unknown number). Registered in ``SmsConfig.ready()``; idempotent (the replies have fixed provider message ids,
stored once)."""

from datetime import timedelta

from django.utils import timezone

from campaigns.platform.tenancy import Actor

ACCOUNT_NAME = "کنسول نمونه"
CONSOLE = "console"  # sms.providers.console
UNKNOWN_NUMBER = "09390000000"  # no demo target has it: an unmatched reply


def sms_demo(*, workspace, user, actor: Actor, stdout) -> None:
    from sms.models import SmsProviderAccount, SmsSettings
    from sms.services import sms_account_create, sms_settings_update

    account = SmsProviderAccount.objects.filter(workspace=workspace, name=ACCOUNT_NAME, provider=CONSOLE).first()
    if account is None:
        account = sms_account_create(actor=actor, name=ACCOUNT_NAME, provider=CONSOLE, senders=["10000000"])
        stdout.write(f"demo sms: console provider «{ACCOUNT_NAME}»")
    primary = SmsSettings.objects.filter(workspace=workspace).values_list("primary_account_id", flat=True).first()
    if primary is None:
        sms_settings_update(actor=actor, data={"primary_account_id": account.id, "enabled": True})
        stdout.write("demo sms: console provider is the primary account")
    _demo_credit(account=account, stdout=stdout)
    _demo_replies(workspace=workspace, account=account, stdout=stdout)


def _demo_credit(*, account, stdout) -> None:
    """The console account's credit read now, through the timer's own path, so the demo's launch check shows a
    credit from the first minute instead of «خوانده نشده» until the first ``sms-credit-read``."""
    from sms.credit import credit_read

    if credit_read(account_ids=[account.id])["read"]:
        account.refresh_from_db()
        stdout.write(f"demo sms: console credit {account.credit:,} {account.credit_in}")


def _demo_replies(*, workspace, account, stdout) -> None:
    from campaigns.models import Target
    from sms.inbound.models import InboundSms
    from sms.inbound.services import inbound_store
    from sms.inbound.types import ReceivedSms

    if InboundSms.objects.filter(account=account).exists():
        return
    mobiles = list(
        Target.objects.filter(workspace=workspace, deleted_at__isnull=True, mobile__isnull=False)
        .order_by("-id")  # the last ones: the first targets are the ones page tests enroll and reply from
        .values_list("mobile", flat=True)[:2]
    )
    if len(mobiles) < 2:
        return
    line = (account.senders or [""])[0]
    now = timezone.now()
    replies = [
        ("demo-reply-1", mobiles[0], "سلام، کِی ارسال می‌شود؟", now - timedelta(hours=2)),
        ("demo-reply-2", UNKNOWN_NUMBER, "این شماره کیست؟", now - timedelta(hours=1)),
        ("demo-reply-3", mobiles[1], "لغو", now - timedelta(minutes=30)),
    ]
    stored = inbound_store(
        account=account,
        messages=[
            ReceivedSms(provider_message_id=i, sender=s, line=line, text=t, received_at=at) for i, s, t, at in replies
        ],
    )
    stdout.write(f"demo sms: {len(stored)} replies in the inbox (one «لغو» opt-out, one unknown number)")
