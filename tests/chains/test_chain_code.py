"""The stable chain code: given to every node when its chain is validated (submit), kept for good, shown by the
API, used by the run's execution keys; clones get their own."""

import re

import pytest
import time_machine

from campaigns.chains.models import ChainNode
from campaigns.chains.run_models import RunExecution
from campaigns.chains.runs import dispatch
from campaigns.chains.services.approval import campaign_submit, package_approve, package_withdraw
from campaigns.chains.services.chains import chain_campaign_clone

from .conftest import make_chain, make_group
from .runs_helpers import approved_chain, at, root_run, tick

pytestmark = pytest.mark.django_db

CODE = re.compile(r"^CH-[2-9A-HJKMNP-Z]{8}$")


def _fresh(nodes):
    return {key: ChainNode.objects.get(pk=node.pk) for key, node in nodes.items()}


def test_submit_gives_every_node_its_own_code_and_a_resubmit_keeps_them(actor, api):
    nodes = make_chain(actor.workspace, make_group(actor.workspace), shape="A>B>C")
    assert all(n.chain_code == "" for n in nodes.values())  # a draft has none yet
    root = nodes["A"]
    _, first = campaign_submit(actor=actor, campaign_id=root.id, expected_chain_revision=root.chain_revision)
    codes = {key: node.chain_code for key, node in _fresh(nodes).items()}
    assert all(CODE.match(code) for code in codes.values()) and len(set(codes.values())) == 3
    assert {i["campaign_id"]: i["chain_code"] for i in first.items} == {nodes[k].id: codes[k] for k in codes}

    package_withdraw(actor=actor, package_id=first.id, expected_submitted_revision=first.submitted_revision)
    root.refresh_from_db()
    campaign_submit(actor=actor, campaign_id=root.id, expected_chain_revision=root.chain_revision)
    assert {key: node.chain_code for key, node in _fresh(nodes).items()} == codes

    body = api.get(f"/api/v1/campaign/{nodes['B'].id}").json()
    assert body["chain_code"] == codes["B"]
    tree = api.get(f"/api/v1/campaign-groups/{root.group_id}/campaign-tree").json()
    top = tree["roots"][0]
    assert top["chain_code"] == codes["A"] and top["children"][0]["chain_code"] == codes["B"]


def test_the_client_cannot_set_a_code(api, actor):
    nodes = make_chain(actor.workspace, make_group(actor.workspace), shape="A")
    root = nodes["A"]
    answer = api.put(
        f"/api/v1/campaign/{root.id}",
        {"chain_code": "CH-AAAAAAAA", "expected_chain_revision": root.chain_revision},
        format="json",
    )
    root.refresh_from_db()
    assert answer.status_code in (200, 400) and root.chain_code == ""


def test_a_clone_gets_its_own_code_at_its_own_submit(actor):
    nodes = make_chain(actor.workspace, make_group(actor.workspace), shape="A>B")
    root = nodes["A"]
    campaign_submit(actor=actor, campaign_id=root.id, expected_chain_revision=root.chain_revision)
    copy, id_map = chain_campaign_clone(actor=actor, campaign_id=root.id)
    assert set(ChainNode.objects.filter(pk__in=id_map.values()).values_list("chain_code", flat=True)) == {""}
    campaign_submit(actor=actor, campaign_id=copy.id, expected_chain_revision=copy.chain_revision)
    original = set(ChainNode.objects.filter(pk__in=id_map).values_list("chain_code", flat=True))
    copies = set(ChainNode.objects.filter(pk__in=id_map.values()).values_list("chain_code", flat=True))
    assert len(copies) == 2 and not original & copies


def test_a_package_submitted_before_codes_existed_gets_them_at_approval(actor):
    nodes = make_chain(actor.workspace, make_group(actor.workspace), shape="A>B")
    root = nodes["A"]
    _, package = campaign_submit(actor=actor, campaign_id=root.id, expected_chain_revision=root.chain_revision)
    ChainNode.objects.filter(pk__in=[n.id for n in nodes.values()]).update(chain_code="")
    package_approve(actor=actor, package_id=package.id, expected_submitted_revision=package.submitted_revision)
    assert all(CODE.match(n.chain_code) for n in _fresh(nodes).values())


def test_execution_keys_use_the_code_given_at_validation(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B", targets=2)
    root = nodes["A"]
    assert CODE.match(root.chain_code)
    tick(at(2026, 10, 1, 9, 0))
    run = root_run(root, at(2026, 10, 1))
    links = list(RunExecution.objects.filter(run=run))
    assert len(links) == 2
    assert all(link.action_code == root.chain_code for link in links)
    assert all(link.key == f"run:{run.id}:target:{link.target_id}:action:{root.chain_code}" for link in links)


def test_a_run_keeps_the_code_its_first_links_were_written_with(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B", targets=2)
    tick(at(2026, 10, 1, 9, 0))
    run = root_run(nodes["A"], at(2026, 10, 1))
    RunExecution.objects.filter(run=run).update(action_code="sms")  # written before the node had a code
    assert dispatch.run_action_code(run) == "sms"
