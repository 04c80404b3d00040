"""Fixtures for groups/chains/approval tests: groups and chains built directly in the database."""

import itertools

import pytest

from campaigns.chains.models import CampaignGroup, ChainNode
from campaigns.chains.text import name_key, search_text
from campaigns.choices import CampaignStatus
from campaigns.models import TargetList
from sms.models import SmsSettings
from tests.automation.helpers import setup_sms

from ..conftest import make_list, make_target

_seq = itertools.count(1)

MONTHLY_1 = {"type": "MONTHLY", "day": 1, "time": "09:00"}
WEEKLY_MON = {"type": "WEEKLY", "weekdays": ["MON"], "time": "09:00"}
AFTER_2 = {"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"}}
GOAL = {"type": "TARGET_STATUS", "statuses": ["converted"]}
ACTION = {"channel": "sms", "content": "سلام"}


def group_of(campaign) -> int | None:
    """The campaign's group as chains keeps it (None: in none, or no chains row yet)."""
    return ChainNode.objects.filter(pk=campaign.pk).values_list("group_id", flat=True).first()


def make_group(workspace, name: str | None = None, **kwargs) -> CampaignGroup:
    name = name or f"گروه {next(_seq)}"
    return CampaignGroup.objects.create(
        workspace=workspace, name=name, name_key=name_key(name), name_search=search_text(name), **kwargs
    )


def audience_list(workspace, people: int = 1) -> TargetList:
    """A target list with ``people`` live targets (a root's audience)."""
    lst = make_list(workspace)
    for _ in range(people):
        make_target(workspace).lists.add(lst)
    return lst


def sms_ready(workspace) -> None:
    """Members send SMS: the workspace has a usable account (without one the launch check refuses Approve)."""
    if not SmsSettings.objects.filter(workspace=workspace, enabled=True, primary_account__isnull=False).exists():
        setup_sms(workspace)


def make_node(workspace, *, group=None, parent=None, root=None, status=CampaignStatus.DRAFT, **kwargs) -> ChainNode:
    sms_ready(workspace)
    defaults = {"name": f"کمپین {next(_seq)}", "chain_action": ACTION}
    if parent is None:
        defaults.update(root_schedule=MONTHLY_1, goal=GOAL)
        if "source_target_list" not in kwargs:
            defaults["source_target_list"] = audience_list(workspace)
    else:
        defaults.update(inheritance=AFTER_2, goal=GOAL)
    defaults.update(kwargs)
    campaign = ChainNode.objects.create(
        workspace=workspace, group=group, parent=parent, root=root, status=status, **defaults
    )
    return campaign


def make_chain(workspace, group=None, *, shape: str = "A>B", status=CampaignStatus.DRAFT, **root_kwargs):
    """``A>B`` root A with child B; ``A>B>D,A>C`` (edges separated by commas). Returns {letter: campaign}."""
    nodes: dict[str, ChainNode] = {}
    edges = [e.split(">") for e in shape.split(",")]
    first = edges[0][0]
    root = make_node(workspace, group=group, status=status, name=f"{first}-{next(_seq)}", **root_kwargs)
    root.root = root
    root.save(update_fields=["root"])
    nodes[first] = root
    for edge in edges:
        for parent_key, child_key in itertools.pairwise(edge):
            if child_key not in nodes:
                nodes[child_key] = make_node(
                    workspace,
                    group=group,
                    parent=nodes[parent_key],
                    root=root,
                    status=status,
                    name=f"{child_key}-{next(_seq)}",
                )
    return nodes


@pytest.fixture
def group(workspace):
    return make_group(workspace)
