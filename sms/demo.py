"""The SMS part of ``manage.py demo_data``: a console provider account (logs instead of sending) as the
demo workspace's primary account, so the demo journey campaign can be activated at once. Registered in
``SmsConfig.ready()``; idempotent."""

from campaigns.platform.tenancy import Actor

ACCOUNT_NAME = "کنسول نمونه"
CONSOLE = "console"  # sms.providers.console


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
