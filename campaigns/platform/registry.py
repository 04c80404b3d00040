"""Campaign kinds plug their creation into ``POST /api/v1/campaigns``.

Each channel app registers, in its ``AppConfig.ready()``, the input
serializer and the service that create a campaign of its kind:

    register_campaign_kind("browser", input_serializer=BrowserCampaignInput, create=browser_campaign_create)

The API picks the handler from the body's ``kind``, validates with the
serializer and calls ``create(actor=actor, **validated_data)``, which must
return the ``Campaign`` (created in one transaction). The campaigns app never
imports a channel.

A kind also tells the campaign lifecycle (``campaigns.services.lifecycle``) what a status change means
for it: ``effects[moment](*, campaign, actor, now)`` per moment (``start``, ``pause``, ``resume``,
``cancel``, ``finish``) runs after the status write, in its transaction, for every transition into that
moment (a person's, the scheduler's and chain runs' alike).
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from campaigns.platform.permissions import Perm


@dataclass(frozen=True)
class CampaignKindHandler:
    kind: str
    input_serializer: type
    create: Callable
    permission: str
    # control(actor=, campaign_id=, action="activate"|"pause"|"resume"|"cancel") → Campaign: the kind's own
    # start/pause service (the admin's actions use it); None = the generic campaign_transition.
    control: Callable | None = None
    effects: Mapping[str, Callable] = field(default_factory=lambda: MappingProxyType({}))


_KINDS: dict[str, CampaignKindHandler] = {}


def register_campaign_kind(
    kind: str,
    *,
    input_serializer: type,
    create: Callable,
    permission: str = Perm.MANAGE_CAMPAIGNS,
    control: Callable | None = None,
    effects: Mapping[str, Callable] | None = None,
) -> None:
    _KINDS[kind] = CampaignKindHandler(
        kind,
        input_serializer,
        create,
        permission,
        control,
        MappingProxyType(dict(effects or {})),
    )


def campaign_kind_handler(kind: str) -> CampaignKindHandler | None:
    return _KINDS.get(kind)


def campaign_kind_handlers() -> list[CampaignKindHandler]:
    return [_KINDS[k] for k in sorted(_KINDS)]


# --------------------------------------------------------------------------- chain runs → the engine
#
# Chain runs (``campaigns.chains.runs``) enroll a frozen audience into the
# campaign's pinned workflow and later read what happened, without importing
# the engine. The engine app registers both functions in its ``ready()``:
#
#   enroll(campaign=Campaign, target_ids=[…], now=datetime)
#       → {target_id: ("execution", execution_id) | ("refused", reason)}
#     Creates executions in the caller's transaction (so the caller's link
#     rows and the executions commit together). A chain campaign without a
#     workflow gets a one-step workflow built from its ``chain_action``.
#   outcomes(execution_ids=[…])
#       → {execution_id: {"status": str, "terminal": bool, "results": [str, …]}}
#     ``results`` holds the final result of every message action of the
#     execution ("success", "failed", "rejected", "unknown", "blocked", …).
#   unknown_variables(text) → [name, …]
#     Message variables the engine cannot fill from a target or the campaign
#     (a chain child's content may only use data its inherited audience has).
#   send_window_error(config) → str | None
#     Why a campaign's own send window (``Campaign.send_window``) cannot be saved (None: it can).


@dataclass(frozen=True)
class RunEngine:
    enroll: Callable
    outcomes: Callable
    unknown_variables: Callable | None = None
    send_window_error: Callable | None = None


_RUN_ENGINE: list[RunEngine] = []


def register_run_engine(
    *,
    enroll: Callable,
    outcomes: Callable,
    unknown_variables: Callable | None = None,
    send_window_error: Callable | None = None,
) -> None:
    _RUN_ENGINE[:] = [RunEngine(enroll, outcomes, unknown_variables, send_window_error)]


def run_engine() -> RunEngine | None:
    return _RUN_ENGINE[0] if _RUN_ENGINE else None


# --------------------------------------------------------------------------- journey of a campaign
#
# The workflow a campaign runs and its pinned version belong to the engine
# (``automation.CampaignJourney``). Campaign code that must know whether a
# campaign has one asks here; the engine registers the lookup in its ``ready()``:
#
#   lookup(campaign) → {"workflow_id": int, "version_id": int} | None

_JOURNEY_LOOKUP: list[Callable] = []


def register_campaign_journey(*, lookup: Callable) -> None:
    _JOURNEY_LOOKUP[:] = [lookup]


def campaign_journey(campaign) -> dict | None:
    """The campaign's workflow and pinned version ids, or None (no journey, or no engine installed)."""
    return _JOURNEY_LOOKUP[0](campaign) if _JOURNEY_LOOKUP else None


# --------------------------------------------------------------------------- home page counters
#
# Apps add a number to the home page's counters: ``register_dashboard_count("workflows", count)``
# where ``count(workspace=Workspace) → int``.

_DASHBOARD_COUNTS: dict[str, Callable] = {}


def register_dashboard_count(name: str, count: Callable) -> None:
    _DASHBOARD_COUNTS[name] = count


def dashboard_counts(*, workspace) -> dict[str, int]:
    return {name: count(workspace=workspace) for name, count in sorted(_DASHBOARD_COUNTS.items())}


# --------------------------------------------------------------------------- demo data
#
# ``manage.py demo_data`` (campaigns) creates the core demo: the "demo" workspace, its admin
# user, targets and lists. Each channel adds its own part from its ``ready()``:
#
#   register_demo("sms", order=10, contribute=sms_demo)
#   contribute(*, workspace, user, actor, stdout) → None
#
# Contributors run in ``order`` (then name) inside the command's transaction and must be
# idempotent: a second run changes nothing.


@dataclass(frozen=True)
class DemoContributor:
    name: str
    order: int
    contribute: Callable


_DEMO_CONTRIBUTORS: dict[str, DemoContributor] = {}


def register_demo(name: str, order: int, contribute: Callable) -> None:
    _DEMO_CONTRIBUTORS[name] = DemoContributor(name, order, contribute)


def demo_contributors() -> list[DemoContributor]:
    return sorted(_DEMO_CONTRIBUTORS.values(), key=lambda c: (c.order, c.name))


# --------------------------------------------------------------------------- target page panels
#
# The target edit page shows sections other apps own (the journey timeline), without importing them:
#
#   register_target_panel("automation", order=10, render=render_panel)
#   render(*, request, actor, target) → str (HTML, already escaped) | None (nothing to show for this user)


@dataclass(frozen=True)
class TargetPanel:
    name: str
    order: int
    render: Callable


_TARGET_PANELS: dict[str, TargetPanel] = {}


def register_target_panel(name: str, *, render: Callable, order: int = 100) -> None:
    _TARGET_PANELS[name] = TargetPanel(name, order, render)


def target_panels(*, request, actor, target) -> list[tuple[str, str]]:
    """``[(name, html), …]`` of the panels this user may see, in order."""
    out = []
    for panel in sorted(_TARGET_PANELS.values(), key=lambda p: (p.order, p.name)):
        html = panel.render(request=request, actor=actor, target=target)
        if html:
            out.append((panel.name, html))
    return out


# --------------------------------------------------------------------------- audiences built on a target list
#
# A target list is refused deletion while a campaign takes its audience from it (README "Tenancy and roles").
# The campaigns app knows its own reference (``Campaign.source_target_list``); an app that keeps a list inside
# a campaign's audience in another form registers who uses it:
#
#   register_target_list_users("auto_enroll", campaign_ids=rule_campaigns)
#   campaign_ids(*, workspace, list_id) → iterable of campaign ids (any status; the caller keeps the open ones)

_TARGET_LIST_USERS: dict[str, Callable] = {}


def register_target_list_users(name: str, *, campaign_ids: Callable) -> None:
    _TARGET_LIST_USERS[name] = campaign_ids


def target_list_user_campaign_ids(*, workspace, list_id: int) -> set[int]:
    """Ids of the campaigns whose audience the registered apps build on the list."""
    ids: set[int] = set()
    for name in sorted(_TARGET_LIST_USERS):
        ids.update(_TARGET_LIST_USERS[name](workspace=workspace, list_id=list_id))
    return ids


# --------------------------------------------------------------------------- before deleting a target
#
# What deleting a target would stop, said before it is deleted (the journeys it is live in), without the
# campaigns app importing the apps that know:
#
#   register_target_delete_warning("automation", warn=live_journeys_warning)
#   warn(*, actor, target) → str (plain text) | "" (nothing to say)

_TARGET_DELETE_WARNINGS: dict[str, Callable] = {}


def register_target_delete_warning(name: str, *, warn: Callable) -> None:
    _TARGET_DELETE_WARNINGS[name] = warn


def target_delete_warnings(*, actor, target) -> list[str]:
    return [text for _, warn in sorted(_TARGET_DELETE_WARNINGS.items()) if (text := warn(actor=actor, target=target))]
