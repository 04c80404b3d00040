"""The reply push's token is encrypted at rest (sms 0022): every account keeps its token (the push URL a provider
was given still works), stored as ciphertext; migrated back, the tokens are clear again."""

import pytest

from tests.platform.scratch_db import migrate, scratch_database

BEFORE = [("sms", "0021_account_credit_unit")]
AFTER = [("sms", "0022_inbound_token_encrypted")]


@pytest.fixture
def scratch():
    with scratch_database("inbound_token") as connection:
        yield connection


def _raw(connection, table: str) -> dict[int, str]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, inbound_token FROM {table}")
        return dict(cursor.fetchall())


@pytest.mark.timeout(900)  # every migration the SMS app depends on, from an empty database
@pytest.mark.django_db
def test_each_accounts_push_token_is_kept_and_encrypted_and_back(scratch):
    old = migrate(scratch, BEFORE)
    workspace = old.get_model("platform", "Workspace").objects.create(name="فضا", slug="ws")
    Account = old.get_model("sms", "SmsProviderAccount")
    tokens = {
        Account.objects.create(
            workspace=workspace, name=f"حساب {i}", provider="melipayamak", inbound_token=token
        ).pk: token
        for i, token in enumerate(("a" * 43, "b" * 43))
    }
    table = Account._meta.db_table

    new = migrate(scratch, AFTER)
    stored = _raw(scratch, table)
    assert all(raw.startswith("gAAAA") and tokens[pk] not in raw for pk, raw in stored.items())
    assert dict(new.get_model("sms", "SmsProviderAccount").objects.values_list("pk", "inbound_token")) == tokens

    migrate(scratch, BEFORE)
    assert _raw(scratch, table) == tokens
