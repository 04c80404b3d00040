"""API keys from the API: created once with scopes, listed, revoked; scopes and read-only hold on every area;
a key is bound to its workspace; a key reads the schema and the docs."""

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from campaigns.choices import Role
from campaigns.models import ApiToken
from campaigns.platform.tokens import api_token_create
from campaigns.services.workspaces import membership_set

from ..conftest import api_client_for, make_member, make_target, make_workspace

pytestmark = pytest.mark.django_db


def keyed(key: str, workspace=None) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    if workspace is not None:
        client.defaults["HTTP_X_WORKSPACE"] = workspace.slug
    return client


def create(client, **body) -> dict:
    response = client.post("/api/v1/api-keys", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_a_key_is_shown_once_listed_without_its_secret_and_revoked(workspace):
    owner = make_member(workspace, Role.OWNER)
    api = api_client_for(owner, workspace)
    made = create(api, name="crm", scopes=["targets"], read_only=True, expires_in_days=30)
    assert made["key"].startswith(made["prefix"] + ".") and made["state"] == "active"
    assert made["scopes"] == ["targets"] and made["read_only"] is True
    listed = api.get("/api/v1/api-keys").json()["results"]  # newest first: then the calling client's own key
    assert listed[0]["id"] == made["id"] and len(listed) == 2 and "key" not in listed[0]
    row = ApiToken.objects.get(pk=made["id"])
    assert row.workspace == workspace and made["key"] not in str(
        list(ApiToken.objects.values().get(pk=row.pk).values())
    )
    assert keyed(made["key"], workspace).get("/api/v1/targets").status_code == 200
    revoked = api.delete(f"/api/v1/api-keys/{made['id']}")
    assert revoked.status_code == 200 and revoked.json()["state"] == "revoked"
    assert keyed(made["key"], workspace).get("/api/v1/targets").status_code == 401


def test_a_read_only_key_gets_403_on_writes_in_the_envelope(workspace):
    owner = make_member(workspace, Role.OWNER)
    key = create(api_client_for(owner, workspace), scopes=["all"], read_only=True)["key"]
    client = keyed(key, workspace)
    assert client.get("/api/v1/targets").status_code == 200
    response = client.post("/api/v1/targets", {"name": "سارا", "mobile": "09121230001"}, format="json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "API_KEY_SCOPE" and response.json()["error"]["details"] == {
        "read_only": True
    }
    assert client.post("/api/v1/api-keys", {}, format="json").status_code == 403


@pytest.mark.parametrize(
    ("scope", "allowed", "refused"),
    [
        ("targets", "/api/v1/targets", "/api/v1/sms/templates"),
        ("sms", "/api/v1/sms/templates", "/api/v1/targets"),
        ("journeys", "/api/v1/workflows", "/api/v1/campaign-groups"),
        ("chains", "/api/v1/campaign-groups", "/api/v1/browser/accounts"),
        ("browser", "/api/v1/browser/accounts", "/api/v1/workflows"),
        ("platform", "/api/v1/notifications", "/api/v1/targets"),
    ],
)
def test_a_scoped_key_reaches_its_area_only(workspace, scope, allowed, refused):
    owner = make_member(workspace, Role.OWNER)
    client = keyed(create(api_client_for(owner, workspace), scopes=[scope])["key"], workspace)
    assert client.get(allowed).status_code == 200
    response = client.get(refused)
    assert response.status_code == 403 and response.json()["error"]["details"]["scope"] != scope
    assert client.get("/api/v1/me").status_code == 200  # every key may ask who it is


def test_a_scope_never_gives_more_than_the_role(workspace):
    viewer = make_member(workspace, Role.VIEWER)
    client = keyed(create(api_client_for(viewer, workspace), scopes=["targets"])["key"], workspace)
    response = client.post("/api/v1/targets", {"name": "سارا", "mobile": "09121230001"}, format="json")
    assert response.status_code == 403 and response.json()["error"]["code"] == "PERMISSION_DENIED"


def test_a_key_gives_only_scopes_it_holds_and_unknown_scopes_are_refused(workspace):
    owner = make_member(workspace, Role.OWNER)
    limited = keyed(create(api_client_for(owner, workspace), scopes=["targets", "platform"])["key"], workspace)
    wider = limited.post("/api/v1/api-keys", {"scopes": ["sms"]}, format="json")
    assert wider.status_code == 400 and "scopes" in wider.json()["error"]["details"]
    assert limited.post("/api/v1/api-keys", {"scopes": ["targets"]}, format="json").status_code == 201
    unknown = api_client_for(owner, workspace).post("/api/v1/api-keys", {"scopes": ["root"]}, format="json")
    assert unknown.status_code == 400


def test_a_key_never_makes_a_key_that_outlives_it(workspace):
    # a leaked short-lived key must not mint a long-lived one
    owner = make_member(workspace, Role.OWNER)
    short_key = create(api_client_for(owner, workspace), expires_in_days=7)["key"]
    granter = ApiToken.objects.get(prefix=short_key.split(".")[0])
    for body in ({"expires_in_days": 365}, {}):
        made = create(keyed(short_key, workspace), **body)
        assert ApiToken.objects.get(pk=made["id"]).expires_at == granter.expires_at
    sooner = create(keyed(short_key, workspace), expires_in_days=3)
    assert ApiToken.objects.get(pk=sooner["id"]).expires_at < granter.expires_at
    other = create(api_client_for(owner, workspace), expires_in_days=365)  # made by a 90-day key: up to its end
    assert granter.expires_at < ApiToken.objects.get(pk=other["id"]).expires_at


def test_a_key_is_bound_to_its_workspace_and_the_list_to_its_owner(workspace, other_workspace):
    owner = make_member(workspace, Role.OWNER, username="mina")
    membership_set(workspace=other_workspace, user=owner, role=Role.OWNER)
    make_target(other_workspace, name="دیگری", mobile="+989121230009")
    key = create(api_client_for(owner, workspace))["key"]
    assert keyed(key).get("/api/v1/me").json()["current_workspace_id"] == workspace.id
    foreign = keyed(key, other_workspace).get("/api/v1/targets")
    assert foreign.status_code == 404 and foreign.json()["error"]["code"] == "WORKSPACE_NOT_FOUND"
    colleague = make_member(workspace, Role.ADMIN, username="ali")
    theirs = api_client_for(colleague, workspace).get("/api/v1/api-keys").json()["results"]
    assert {k["id"] for k in theirs} == set(ApiToken.objects.filter(user=colleague).values_list("id", flat=True))
    mine = ApiToken.objects.filter(workspace=workspace, user=owner).first()
    assert api_client_for(colleague, workspace).delete(f"/api/v1/api-keys/{mine.pk}").status_code == 404
    elsewhere = api_client_for(owner, other_workspace).delete(f"/api/v1/api-keys/{mine.pk}")
    assert elsewhere.status_code == 404 and ApiToken.objects.get(pk=mine.pk).revoked_at is None


def test_any_key_reads_the_schema_and_the_docs(workspace, client):
    owner = make_member(workspace, Role.OWNER)
    _, key = api_token_create(user=owner, workspace=workspace, scopes=["targets"], read_only=True)
    assert keyed(key).get("/api/schema/").status_code == 200
    docs = client.get("/api/docs/", HTTP_AUTHORIZATION=f"Token {key}")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
    assert client.get("/api/docs/", HTTP_AUTHORIZATION="Token nope.nope").status_code == 401
    assert client.get("/api/docs/").status_code == 302  # a browser without a session: the login page


def test_the_command_makes_a_scoped_read_only_key(workspace, capsys):
    user = make_member(workspace, Role.OWNER, username="crm-bot")
    call_command("api_token_create", "crm-bot", "--workspace", workspace.slug, "--scope", "targets", "--read-only")
    key = capsys.readouterr().out.split("token=", 1)[1].split()[0]
    token = ApiToken.objects.get(user=user)
    assert token.scopes == ["targets"] and token.read_only
    assert keyed(key, workspace).get("/api/v1/targets").status_code == 200
    assert keyed(key, workspace).get("/api/v1/workflows").status_code == 403


def test_another_workspace_cannot_see_keys(workspace):
    other = make_workspace("elsewhere")
    stranger = make_member(other, Role.OWNER)
    owner = make_member(workspace, Role.OWNER)
    create(api_client_for(owner, workspace))
    listed = api_client_for(stranger, other).get("/api/v1/api-keys").json()["results"]
    assert {k["id"] for k in listed} == set(ApiToken.objects.filter(user=stranger).values_list("id", flat=True))


def _state(key_id: int) -> tuple[str | None, int | None]:
    row = ApiToken.objects.get(pk=key_id)
    return ("revoked" if row.revoked_at else "live"), row.revoked_with_id


def test_revoking_a_key_revokes_every_key_made_with_it_transitively_and_records_it(workspace):
    owner = make_member(workspace, Role.OWNER)
    api = api_client_for(owner, workspace)
    first = create(api, name="root")
    child = create(keyed(first["key"], workspace), name="child")
    grandchild = create(keyed(child["key"], workspace), name="grandchild")
    sibling = create(api, name="made by the client's key, as root was")
    assert child["granted_by"] == first["id"] and grandchild["granted_by"] == child["id"]
    assert first["granted_by"] == sibling["granted_by"] is not None

    answer = api.delete(f"/api/v1/api-keys/{first['id']}")
    assert answer.status_code == 200 and answer.json()["state"] == "revoked"
    assert answer.json()["revoked_with"] is None  # revoked itself
    assert _state(child["id"]) == ("revoked", first["id"])
    assert _state(grandchild["id"]) == ("revoked", first["id"])
    assert _state(sibling["id"]) == ("live", None)
    for made in (first, child, grandchild):
        refused = keyed(made["key"], workspace).get("/api/v1/targets")
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "AUTHENTICATION_FAILED"
    assert keyed(sibling["key"], workspace).get("/api/v1/targets").status_code == 200
    listed = {k["id"]: k for k in api.get("/api/v1/api-keys").json()["results"]}
    assert listed[grandchild["id"]]["state"] == "revoked" and listed[grandchild["id"]]["revoked_with"] == first["id"]


def test_revoking_a_middle_key_spares_its_granter_and_a_key_revoked_earlier_still_takes_its_keys(workspace):
    owner = make_member(workspace, Role.OWNER)
    api = api_client_for(owner, workspace)
    first = create(api)
    child = create(keyed(first["key"], workspace))
    grandchild = create(keyed(child["key"], workspace))
    assert api.delete(f"/api/v1/api-keys/{child['id']}").status_code == 200
    assert _state(first["id"]) == ("live", None) and _state(grandchild["id"]) == ("revoked", child["id"])

    # a key revoked before the rule existed left the keys it made live: revoking it again takes them
    later = create(keyed(first["key"], workspace))
    ApiToken.objects.filter(pk=first["id"]).update(revoked_at=ApiToken.objects.get(pk=child["id"]).revoked_at)
    assert _state(later["id"]) == ("live", None)
    again = api.delete(f"/api/v1/api-keys/{first['id']}")
    assert again.status_code == 200 and _state(later["id"]) == ("revoked", first["id"])
    assert _state(grandchild["id"]) == ("revoked", child["id"])  # kept: its own record is not rewritten


def test_a_key_revoked_while_it_makes_a_key_makes_none(workspace):
    # the granter is locked and checked when the key is made: a revocation in between wins
    from campaigns.platform.errors import NotAuthenticated
    from campaigns.platform.tokens import api_token_revoke

    owner = make_member(workspace, Role.OWNER)
    granter, _ = api_token_create(user=owner, workspace=workspace)
    api_token_revoke(user=owner, workspace=workspace, token_id=granter.pk)
    with pytest.raises(NotAuthenticated):
        api_token_create(user=owner, workspace=workspace, granter=granter)
    assert ApiToken.objects.filter(granted_by=granter).count() == 0


def test_the_page_says_revoking_takes_the_keys_made_with_it_and_shows_which(client, workspace):
    owner = make_member(workspace, Role.OWNER)
    first = create(api_client_for(owner, workspace), name="root")
    child = create(keyed(first["key"], workspace), name="child")
    client.force_login(owner)
    page = client.get("/api-keys/").content.decode()
    assert (
        "ابطال یک کلید، همهٔ کلیدهایی را هم که با آن" in page
        and f'ساخته با کلید <code dir="ltr">{first["prefix"]}' in page
    )
    answer = client.post(f"/api-keys/{first['id']}/revoke/", follow=True)
    text = answer.content.decode()
    assert f"کلید {first['prefix']} و ۱ کلیدی که با آن ساخته شده بود نیز باطل شد." in text
    assert f'باطل‌شده با ابطال کلید <code dir="ltr">{first["prefix"]}</code>' in text
    assert _state(child["id"]) == ("revoked", first["id"])
