"""The SMS webhooks' tokens are encrypted at rest (sms 0022: the reply push's, 0023: the delivery webhook's,
found by its digest): every account and workspace keeps its token (the URL a provider was given still works),
stored as ciphertext; migrated back, the tokens are clear again."""

import pytest

from tests.platform.scratch_db import migrate, scratch_database

BEFORE = [("sms", "0021_account_credit_unit")]
AFTER = [("sms", "0023_webhook_token_encrypted")]


@pytest.fixture
def scratch():
    with scratch_database("sms_tokens") as connection:
        yield connection


def _raw(connection, table: str, column: str) -> dict[int, str]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, {column} FROM {table}")
        return dict(cursor.fetchall())


@pytest.mark.timeout(900)  # every migration the SMS app depends on, from an empty database
@pytest.mark.django_db
def test_every_webhook_token_is_kept_and_encrypted_and_back(scratch):
    old = migrate(scratch, BEFORE)
    Account, Settings = old.get_model("sms", "SmsProviderAccount"), old.get_model("sms", "SmsSettings")
    tokens, hooks = {}, {}
    for i, token in enumerate(("a" * 43, "b" * 43)):
        workspace = old.get_model("platform", "Workspace").objects.create(name=f"فضا {i}", slug=f"ws{i}")
        account = Account.objects.create(workspace=workspace, name="حساب", provider="melipayamak", inbound_token=token)
        tokens[account.pk] = token
        hooks[Settings.objects.create(workspace=workspace, webhook_token=token.upper()).pk] = token.upper()
    accounts, settings = Account._meta.db_table, Settings._meta.db_table

    new = migrate(scratch, AFTER)
    for stored, clear in (
        (_raw(scratch, accounts, "inbound_token"), tokens),
        (_raw(scratch, settings, "webhook_token"), hooks),
    ):
        assert all(raw.startswith("gAAAA") and clear[pk] not in raw for pk, raw in stored.items())
    assert dict(new.get_model("sms", "SmsProviderAccount").objects.values_list("pk", "inbound_token")) == tokens
    assert dict(new.get_model("sms", "SmsSettings").objects.values_list("pk", "webhook_token")) == hooks

    migrate(scratch, BEFORE)
    assert _raw(scratch, accounts, "inbound_token") == tokens
    assert _raw(scratch, settings, "webhook_token") == hooks
