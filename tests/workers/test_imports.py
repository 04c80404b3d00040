"""Bulk import of accounts and proxies: preview every row's problems, commit only the good rows, once."""

import pytest

from campaigns.platform.errors import ValidationFailed
from workers.models import BrowserAccount, Proxy
from workers.services.imports import import_commit, import_preview

pytestmark = pytest.mark.django_db


def csv_file(*rows: str) -> bytes:
    return ("\n".join(rows) + "\n").encode()


def test_proxy_rows_are_checked_like_a_single_create_and_committed_once(actor, workspace):
    content = csv_file(
        "label,host,port,username,password",
        "p1,127.0.0.1,3128,u,proxy-secret",
        "p2,127.0.0.1,99999,u,x",
        "p3,169.254.169.254,80,,",
    )
    preview = import_preview(actor=actor, kind="proxies", file_name="p.csv", content=content)
    assert (preview["valid"], preview["invalid"]) == (1, 2)
    assert "proxy-secret" not in str(preview["rows"]) and preview["rows"][0]["has_secret"] is True
    assert import_commit(actor=actor, kind="proxies", token=preview["token"]) == 1
    assert Proxy.objects.get(workspace=workspace).password == "proxy-secret"
    with pytest.raises(ValidationFailed):
        import_commit(actor=actor, kind="proxies", token=preview["token"])  # a preview is used once


def test_a_preview_belongs_to_its_workspace(actor, workspace, other_workspace):
    from ..conftest import make_actor

    preview = import_preview(
        actor=actor,
        kind="accounts",
        file_name="a.csv",
        content=csv_file("label,platform,cookie_domain,cookies", "a,demo,example.com,sid=1"),
    )
    with pytest.raises(ValidationFailed):
        import_commit(actor=make_actor(other_workspace), kind="accounts", token=preview["token"])
    assert not BrowserAccount.objects.exists()


def test_a_file_without_the_required_columns_is_refused(actor):
    with pytest.raises(ValidationFailed) as exc:
        import_preview(actor=actor, kind="accounts", file_name="a.csv", content=csv_file("foo,bar", "1,2"))
    assert "file" in exc.value.details
