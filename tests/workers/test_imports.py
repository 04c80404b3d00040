"""Bulk import of accounts and proxies: preview every row's problems, commit only the good rows, once."""

import json

import pytest
from django.core.cache import cache

from campaigns.platform.crypto import decrypt
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


def cached_previews(actor) -> dict:
    """What the cache holds of this user's previews, by kind (decrypted)."""
    found = {}
    for kind in ("accounts", "proxies"):
        stored = cache.get(f"browser-import:{actor.workspace.pk}:{actor.user.pk}:{kind}")
        if stored is not None:
            found[kind] = json.loads(decrypt(stored))
    return found


def test_a_preview_keeps_only_what_the_commit_creates_bounded_by_the_model(actor, workspace):
    content = csv_file(
        "label,host,port,username,password,notes",
        "p1,127.0.0.1,3128,u,proxy-secret," + "n" * 5000,  # a column nothing reads: not kept
        "p2,127.0.0.1,99999,u,x,",  # a problem: shown, not kept
        "p3,127.0.0.1,3129," + "u" * 300 + ",x,",  # longer than Proxy.username (255): a problem, not kept
    )
    preview = import_preview(actor=actor, kind="proxies", file_name="p.csv", content=content)
    assert (preview["valid"], preview["invalid"]) == (1, 2)
    assert "۲۵۵" in " ".join(preview["rows"][2]["problems"])
    kept = cached_previews(actor)["proxies"]
    assert kept["token"] == preview["token"]
    assert kept["rows"] == [
        {
            "label": "p1",
            "host": "127.0.0.1",
            "port": 3128,
            "username": "u",
            "password": "proxy-secret",
            "protocol": "http",
        }
    ]
    assert import_commit(actor=actor, kind="proxies", token=preview["token"]) == 1
    assert cached_previews(actor) == {}


def test_a_preview_over_1_mb_is_refused(actor):
    big = csv_file(
        "label,platform,cookie_domain,cookies", *[f"a{n},demo,example.com,sid={'x' * 1000}" for n in range(1100)]
    )
    assert len(big) > 1024 * 1024
    with pytest.raises(ValidationFailed) as refused:
        import_preview(actor=actor, kind="accounts", file_name="a.csv", content=big)
    assert "۱ مگابایت" in str(refused.value.details["file"])
    assert cached_previews(actor) == {}


def test_a_new_preview_replaces_the_previous_one_of_the_same_user_and_kind(actor, workspace):
    rows = ("label,host,port", "p1,127.0.0.1,3128")
    first = import_preview(actor=actor, kind="proxies", file_name="p.csv", content=csv_file(*rows))
    accounts = import_preview(
        actor=actor,
        kind="accounts",
        file_name="a.csv",
        content=csv_file("label,platform,cookie_domain,cookies", "a,demo,example.com,sid=1"),
    )
    second = import_preview(actor=actor, kind="proxies", file_name="p.csv", content=csv_file(*rows))
    assert set(cached_previews(actor)) == {"accounts", "proxies"}  # one of each kind, however many uploads
    with pytest.raises(ValidationFailed):
        import_commit(actor=actor, kind="proxies", token=first["token"])  # replaced
    assert import_commit(actor=actor, kind="proxies", token=second["token"]) == 1
    assert import_commit(actor=actor, kind="accounts", token=accounts["token"]) == 1
    assert Proxy.objects.filter(workspace=workspace).count() == 1


def test_the_import_page_refuses_a_file_over_1_mb_before_reading_it(client, owner):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(owner)
    big = SimpleUploadedFile("p.csv", csv_file("label,host,port", *[f"p{n},127.0.0.1,{n}" for n in range(60_000)]))
    assert big.size > 1024 * 1024
    page = client.post("/browser/proxies/import/", {"file": big})
    assert page.status_code == 400 and "۱ مگابایت" in page.content.decode()
