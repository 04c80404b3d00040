"""Browser slots are shared fairly between workspaces: one workspace's flood never keeps another's task waiting.

Priority orders the tasks of one workspace; across workspaces the next slot goes to the workspace that holds
the fewest in-flight tasks, and a share a workspace cannot use goes to the others (no slot left idle).
"""

from collections import Counter

import pytest

from campaigns.platform.fairness import fair_fill
from workers.choices import TaskStatus
from workers.models import BrowserTask
from workers.services import creation
from workers.services.dispatch import dispatch_due_tasks
from workers.services.results import result_apply

from ..conftest import make_actor, make_workspace
from .conftest import make_account, make_browser_campaign

pytestmark = pytest.mark.django_db


def links(name: str, n: int) -> list[str]:
    return [f"http://127.0.0.1:9/{name}/{i}" for i in range(n)]


def dispatch(capture, **kwargs) -> int:
    with capture(execute=True):
        return dispatch_due_tasks(**kwargs)


def done(payload: dict) -> dict:
    keys = ("task_id", "attempt", "lease_id")
    return {**{k: payload[k] for k in keys}, "status": "completed", "result_data": {"url": payload["link"]}}


@pytest.fixture
def flood(actor, workspace, settings):
    """Workspace A: a 300-link campaign at priority 100; in-flight limit 50 for all platforms together."""
    settings.BROWSER_TASKS = {**settings.BROWSER_TASKS, "MAX_IN_FLIGHT": 50, "DISPATCH_BATCH": 50}
    return make_browser_campaign(actor, accounts=[make_account(workspace)], links=links("a", 300), priority=100)


@pytest.fixture
def quiet():
    """Workspace B: a small campaign at the lowest priority."""
    workspace = make_workspace("quiet")
    actor = make_actor(workspace)
    return make_browser_campaign(actor, accounts=[make_account(workspace)], links=links("b", 3), priority=0)


def per_workspace(payloads: list[dict]) -> Counter:
    return Counter(p["workspace_id"] for p in payloads)


def test_a_flooding_workspace_leaves_the_other_its_share(flood, quiet, published, django_capture_on_commit_callbacks):
    creation.due_platforms_create_tasks()
    assert dispatch(django_capture_on_commit_callbacks) == 50
    # every task of the quiet workspace went out in the first batch; the flood's priority only ranks its own
    assert per_workspace(published) == {flood.workspace_id: 47, quiet.workspace_id: 3}
    a_ids = list(
        BrowserTask.objects.filter(campaign=flood)
        .order_by("-priority", "start_date", "id")
        .values_list("id", flat=True)
    )
    assert [p["task_id"] for p in published if p["workspace_id"] == flood.workspace_id] == a_ids[:47]


def test_slots_freed_by_the_flood_go_first_to_the_workspace_holding_fewer(
    actor, flood, published, django_capture_on_commit_callbacks
):
    creation.due_platforms_create_tasks()
    assert dispatch(django_capture_on_commit_callbacks) == 50  # the flood alone: it may use every slot
    other = make_workspace("late")
    late = make_browser_campaign(make_actor(other), accounts=[make_account(other)], links=links("late", 5))
    creation.due_platforms_create_tasks()
    assert dispatch(django_capture_on_commit_callbacks) == 0  # the in-flight limit is reached
    for payload in published[:4]:
        result_apply(message=done(payload))  # four of the flood's tasks finish
    published.clear()
    assert dispatch(django_capture_on_commit_callbacks) == 4
    assert per_workspace(published) == {late.workspace_id: 4}  # 46 in flight against 0: the four slots are B's
    for payload in published[:2]:
        result_apply(message=done(payload))
    published.clear()
    assert dispatch(django_capture_on_commit_callbacks) == 2
    assert per_workspace(published) == {late.workspace_id: 1, flood.workspace_id: 1}  # B's last task, then A


def test_every_dispatch_moves_the_quiet_workspace(flood, quiet, published, django_capture_on_commit_callbacks):
    """Batches smaller than the flood, many runs: the small workspace's tasks go out in the first one."""
    creation.due_platforms_create_tasks()
    assert dispatch(django_capture_on_commit_callbacks, batch_size=4) == 4
    assert per_workspace(published) == {flood.workspace_id: 2, quiet.workspace_id: 2}
    assert dispatch(django_capture_on_commit_callbacks, batch_size=4) == 4
    assert per_workspace(published) == {flood.workspace_id: 5, quiet.workspace_id: 3}
    assert BrowserTask.objects.filter(campaign=quiet, status=TaskStatus.PENDING).count() == 0


def test_fair_fill_is_max_min_and_wastes_nothing():
    queues = {ws: [ws] * n for ws, n in ((1, 100), (2, 3), (3, 100))}
    taken: Counter = Counter()
    held = Counter({1: 10})  # workspace 1 already holds ten slots
    assert fair_fill(queues, held, size=30, take=lambda ws: taken.update([ws]) or True) == 30
    # 2 has only three tasks: its share goes to the others, levelled with what they already hold
    assert taken == {1: 9, 2: 3, 3: 18}
    assert (held[1] + taken[1], taken[3]) == (19, 18)


def test_a_refused_task_passes_the_turn_to_that_workspace_next_task():
    queues = {1: ["a-paced", "a-ok", "a-ok2"], 2: ["b"]}
    taken: list = []

    def take(item: str) -> bool:
        if item.endswith("paced"):
            return False
        taken.append(item)
        return True

    assert fair_fill(queues, Counter(), size=3, take=take) == 3
    assert taken == ["a-ok", "b", "a-ok2"]


def test_one_workspace_many_campaigns_never_take_every_creation_place(actor, workspace, settings):
    """Task creation serves each workspace's first due platform before any workspace's second."""
    settings.BROWSER_TASKS = {**settings.BROWSER_TASKS, "CREATION_BATCH": 2}
    many = [make_browser_campaign(actor, accounts=[make_account(workspace)], links=links(f"m{i}", 2)) for i in range(4)]
    other = make_workspace("other")
    late = make_browser_campaign(make_actor(other), accounts=[make_account(other)], links=links("late", 2))
    assert creation.due_platforms_create_tasks() == 4  # two places: one campaign of each workspace
    assert BrowserTask.objects.filter(campaign=late).count() == 2
    assert BrowserTask.objects.filter(campaign__in=many).count() == 2
