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
