"""Reusable tenant-isolation cases (NetBox-style): subclass, describe the endpoint, inherit the tests.

    class TestTargetIsolation(TenantIsolationCases):
        list_url = "/api/v1/targets"
        detail_url = "/api/v1/targets/{id}"
        update_payload = {"name": "x"}
        def make(self, workspace): return make_target(workspace)

Another workspace's object is invisible in lists and answers 404 (never 403)
to retrieve, update and delete — and stays unchanged.
"""

import pytest

from .conftest import api_client_for, make_member, make_workspace


class TenantIsolationCases:
    list_url: str | None = None
    detail_url: str | None = None
    update_payload: dict | None = None
    update_method: str = "patch"
    can_delete: bool = True
    list_key: str = "results"

    def make(self, workspace):  # pragma: no cover - subclasses implement
        raise NotImplementedError

    def snapshot(self, obj):
        obj.refresh_from_db()
        return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}

    @pytest.fixture
    def setup(self, db):
        mine, theirs = make_workspace("mine"), make_workspace("theirs")
        user = make_member(mine)
        make_member(theirs)  # the other workspace has its own members
        return api_client_for(user, mine), self.make(mine), self.make(theirs)

    def test_list_shows_only_own_workspace(self, setup):
        if not self.list_url:
            pytest.skip("no list endpoint")
        client, own, foreign = setup
        response = client.get(self.list_url, {"size": 200})
        assert response.status_code == 200, response.content
        ids = {item["id"] for item in response.json()[self.list_key]}
        assert own.id in ids
        assert foreign.id not in ids

    def test_retrieve_other_workspace_is_404(self, setup):
        client, own, foreign = setup
        assert client.get(self.detail_url.format(id=own.id)).status_code == 200
        response = client.get(self.detail_url.format(id=foreign.id))
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "NOT_FOUND"

    def test_update_other_workspace_is_404_and_unchanged(self, setup):
        if self.update_payload is None:
            pytest.skip("read-only endpoint")
        client, _, foreign = setup
        before = self.snapshot(foreign)
        response = getattr(client, self.update_method)(
            self.detail_url.format(id=foreign.id), self.update_payload, format="json"
        )
        assert response.status_code == 404
        assert self.snapshot(foreign) == before

    def test_delete_other_workspace_is_404_and_kept(self, setup):
        if not self.can_delete:
            pytest.skip("no delete")
        client, _, foreign = setup
        before = self.snapshot(foreign)
        assert client.delete(self.detail_url.format(id=foreign.id)).status_code == 404
        assert self.snapshot(foreign) == before

    def test_header_naming_a_workspace_you_do_not_belong_to_is_404(self, setup):
        client, own, foreign = setup
        response = client.get(self.detail_url.format(id=own.id), HTTP_X_WORKSPACE=foreign.workspace.slug)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "WORKSPACE_NOT_FOUND"


class APIViewCases(TenantIsolationCases):
    """NetBox's ``APIViewTestCases`` for one resource: its isolation cases plus create / update / delete by a
    role that may (``write_role``) and one that may not (``denied_role``, 403, nothing changes), and a list
    paged by ``?page=&size=``. Describe the resource:

        class TestTemplates(APIViewCases):
            list_url, detail_url = "/api/v1/sms/templates", "/api/v1/sms/templates/{id}"
            model = SmsTemplate
            create_data = {"name": "a", "body": "b"}
            update_payload = {"name": "c"}
            def make(self, workspace): return SmsTemplate.objects.create(workspace=workspace, name="t", body="b")
    """

    model = None
    create_data: dict | None = None
    write_role: str = "manager"
    denied_role: str = "viewer"

    def client_for(self, workspace, role):
        return api_client_for(make_member(workspace, role), workspace)

    def _created(self, workspace):
        return self.model.objects.filter(workspace=workspace)

    def test_create_then_read_it_back(self, db):
        if self.create_data is None:
            pytest.skip("no create")
        workspace = make_workspace("crud")
        client = self.client_for(workspace, self.write_role)
        response = client.post(self.list_url, self.create_data, format="json")
        assert response.status_code == 201, response.content
        created = response.json()
        assert self._created(workspace).filter(pk=created["id"]).exists()
        shown = client.get(self.detail_url.format(id=created["id"])).json()
        assert {k: shown[k] for k in self.create_data if k in shown} == {
            k: v for k, v in self.create_data.items() if k in shown
        }

    def test_a_role_without_the_permission_creates_updates_and_deletes_nothing(self, db):
        workspace = make_workspace("crud")
        obj = self.make(workspace)
        client = self.client_for(workspace, self.denied_role)
        before, count = self.snapshot(obj), self._created(workspace).count()
        if self.create_data is not None:
            assert client.post(self.list_url, self.create_data, format="json").status_code == 403
        if self.update_payload is not None:
            url = self.detail_url.format(id=obj.id)
            assert getattr(client, self.update_method)(url, self.update_payload, format="json").status_code == 403
        if self.can_delete:
            assert client.delete(self.detail_url.format(id=obj.id)).status_code == 403
        assert self._created(workspace).count() == count and self.snapshot(obj) == before

    def test_update_changes_the_fields(self, db):
        if self.update_payload is None:
            pytest.skip("read-only")
        workspace = make_workspace("crud")
        obj = self.make(workspace)
        client = self.client_for(workspace, self.write_role)
        url = self.detail_url.format(id=obj.id)
        response = getattr(client, self.update_method)(url, self.update_payload, format="json")
        assert response.status_code == 200, response.content
        shown = client.get(url).json()
        assert {k: shown[k] for k in self.update_payload} == self.update_payload

    def test_delete_removes_it_from_the_api(self, db):
        if not self.can_delete:
            pytest.skip("no delete")
        workspace = make_workspace("crud")
        obj = self.make(workspace)
        client = self.client_for(workspace, self.write_role)
        assert client.delete(self.detail_url.format(id=obj.id)).status_code in (200, 204)
        assert client.get(self.detail_url.format(id=obj.id)).status_code == 404

    def test_the_list_is_paged(self, db):
        if not self.list_url:
            pytest.skip("no list endpoint")
        workspace = make_workspace("crud")
        made = [self.make(workspace) for _ in range(3)]
        client = self.client_for(workspace, self.write_role)
        first = client.get(self.list_url, {"size": 2}).json()
        second = client.get(self.list_url, {"size": 2, "page": 2}).json()
        assert (first["count"], first["page"], first["size"], len(first["results"])) == (3, 1, 2, 2)
        assert len(second["results"]) == 1
        assert {r["id"] for r in first["results"] + second["results"]} == {m.id for m in made}
