"""The tree's action hints for campaigns outside a chain: move to another group, single-campaign approval."""

import pytest

from campaigns.approval_selectors import WORKSPACE_APPROVAL_SETTING
from campaigns.chains.models import ChainNode

from .conftest import make_chain, make_group

pytestmark = pytest.mark.django_db


def _actions(api, group) -> dict[str, list[str]]:
    body = api.get(f"/api/v1/campaign-groups/{group.id}/campaign-tree").json()

    def walk(nodes):
        for n in nodes:
            yield n
            yield from walk(n["children"])

    return {n["name"]: n["allowed_actions"] for n in walk(body["roots"])}


def test_an_independent_campaign_may_move_and_is_submitted_alone_only_when_approval_is_needed(api, workspace):
    group = make_group(workspace)
    ChainNode.objects.create(workspace=workspace, name="تکی", group=group)
    chain = make_chain(workspace, group, shape="A>B")
    actions = _actions(api, group)
    assert "move_group" in actions["تکی"] and "submit" not in actions["تکی"]
    assert "move_group" not in actions[chain["A"].name] and "move_group" not in actions[chain["B"].name]
    assert "submit" in actions[chain["A"].name]  # the chain's package

    workspace.settings = {**(workspace.settings or {}), WORKSPACE_APPROVAL_SETTING: True}
    workspace.save(update_fields=["settings"])
    assert "submit" in _actions(api, group)["تکی"]
