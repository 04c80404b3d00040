"""One registry type for every plug-in, and the kernel's own registries.

``Registry`` (after NetBox's frozen registry): a named store of plug-ins keyed by name. Every app fills
its registries from its ``AppConfig.ready()`` — never as a side effect of importing a module — and a
registry is frozen once every app is ready: a later ``register`` raises ``RegistryFrozen``, and a key
registered twice raises ``ValueError`` (two apps claiming one name is a bug, not an override). Readers
iterate in key order (or ``in_order()`` by an ``order`` attribute). Tests that add a plug-in use
``with registry.added(key, item): …`` (``replaced`` to swap one), which also works on a frozen registry
and undoes itself afterwards.

The registries of the product live with their owners (``automation.engine.registry`` for actions,
guards, operators, variables, retry strategies and workflow templates, ``automation.engine.nodes`` for
node types, ``sms.providers`` for SMS providers, ``workers.steps`` for browser steps,
``campaigns.services.lifecycle`` for campaign policies, ``campaigns.platform.navigation`` for the menu);
the kernel's, below, let apps plug into the campaigns app without it importing them.

Campaign kinds plug their creation into ``POST /api/v1/campaigns``. Each channel app registers, in its
``AppConfig.ready()``, the input serializer and the service that create a campaign of its kind:

    register_campaign_kind("browser", input_serializer=BrowserCampaignInput, create=browser_campaign_create)

The API picks the handler from the body's ``kind``, validates with the
serializer and calls ``create(actor=actor, **validated_data)``, which must
return the ``Campaign`` (created in one transaction). The campaigns app never
imports a channel.

A kind also tells the campaign lifecycle (``campaigns.services.lifecycle``) what a status change means
for it: ``effects[moment](*, campaign, actor, now)`` per moment (``start``, ``pause``, ``resume``,
``cancel``, ``finish``) runs after the status write, in its transaction, for every transition into that
moment (a person's, the scheduler's and chain runs' alike). Its ``page`` is the URL name of a campaign's own
page (taking ``campaign_id``): where a notification about the campaign links.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Generic, TypeVar

from django.apps import apps

from campaigns.platform.permissions import Perm

T = TypeVar("T")


class RegistryFrozen(RuntimeError):
    """A plug-in registered after every app was ready (register from ``AppConfig.ready()``)."""


class Registry(Generic[T]):
    """A named store of plug-ins, filled while the apps get ready and frozen afterwards (see the module)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._items: dict[str, T] = {}
        self.version = 0  # changes on every change (readers may keep indexes of the items)

    def register(self, key: str, item: T) -> T:
        if apps.ready:
            raise RegistryFrozen(f"{self.name}: {key!r} registered after the apps were ready")
        if not key or key in self._items:
            raise ValueError(f"{self.name}: key {key!r} is empty or taken")
        self._items[key] = item
        self.version += 1
        return item

    @contextmanager
    def added(self, key: str, item: T) -> Iterator[T]:
        """A plug-in present for the duration of a block (tests), frozen or not."""
        if key in self._items:
            raise ValueError(f"{self.name}: key {key!r} is taken")
        self._items[key] = item
        self.version += 1
        try:
            yield item
        finally:
            del self._items[key]
            self.version += 1

    @contextmanager
    def replaced(self, key: str, item: T) -> Iterator[T]:
        """Another plug-in under a registered key for the duration of a block (tests); the first comes back."""
        previous = self._items[key]
        self._items[key] = item
        self.version += 1
        try:
            yield item
        finally:
            self._items[key] = previous
            self.version += 1

    def get(self, key: str) -> T | None:
        return self._items.get(key) if isinstance(key, str) else None

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[tuple[str, T]]:
        return iter(sorted(self._items.items()))

    def __len__(self) -> int:
        return len(self._items)

    def keys(self) -> list[str]:
        return sorted(self._items)

    def values(self) -> list[T]:
        return [item for _, item in self]

    def in_order(self) -> list[T]:
        """The items by their ``order`` attribute, then key."""
        return [item for key, item in sorted(self._items.items(), key=lambda kv: (getattr(kv[1], "order", 0), kv[0]))]


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
    page: str = ""  # URL name of a campaign's own page (``campaign_id``); "": none


CAMPAIGN_KINDS: Registry[CampaignKindHandler] = Registry("campaign_kinds")


def register_campaign_kind(
    kind: str,
    *,
    input_serializer: type,
    create: Callable,
    permission: str = Perm.MANAGE_CAMPAIGNS,
    control: Callable | None = None,
    effects: Mapping[str, Callable] | None = None,
    page: str = "",
) -> None:
    CAMPAIGN_KINDS.register(
        kind,
        CampaignKindHandler(
            kind,
            input_serializer,
            create,
            permission,
            control,
            MappingProxyType(dict(effects or {})),
            page,
        ),
    )


def campaign_kind_handler(kind: str) -> CampaignKindHandler | None:
    return CAMPAIGN_KINDS.get(kind)


def campaign_kind_handlers() -> list[CampaignKindHandler]:
    return CAMPAIGN_KINDS.values()


# --------------------------------------------------------------------------- chain runs → the engine
#
# Chain runs (``campaigns.chains.runs``) enroll a frozen audience into the
# campaign's pinned workflow and later read what happened, without importing
# the engine. The engine app registers both functions in its ``ready()``:
#
#   enroll(campaign=Campaign, target_ids=[…], now=datetime, action={"channel", "content"} | None)
#       → {target_id: ("execution", execution_id) | ("refused", reason)}
#     Creates executions in the caller's transaction (so the caller's link
#     rows and the executions commit together). A chain campaign without a
#     workflow gets a one-step workflow built from ``action`` (the chain
#     step's, passed by chains: the engine reads no chain column).
#   outcomes(execution_ids=[…])
#       → {execution_id: {"status": str, "terminal": bool, "results": [str, …], "excluded": str | None}}
#     ``results`` holds the final result of every message action of the
#     execution ("success", "failed", "rejected", "unknown", "blocked", …);
#     ``excluded`` why a send left the person out when it came to send
#     ("blacklisted", "telecom_blocked", "frequency_cap") or None.
#   pending_reports(execution_ids=[…]) → int
#     How many sends of these executions the provider accepted but whose delivery report has not come yet
#     (a FAILED_DELIVERY follow-up waits for them, ``campaigns.chains.runs.scheduler``).
#   unknown_variables(text) → [name, …]
#     Message variables the engine cannot fill from a target or the campaign
#     (a chain child's content may only use data its inherited audience has).
#   send_window_error(config) → str | None
#     Why a campaign's own send window (``Campaign.send_window``) cannot be saved (None: it can).
#   migrations(workspace_id=…, campaign_ids=[…]) → [{"at", "by", "workflow_name", "from_version_number",
#     "to_version_number", "kind_label", "status_label", "moved", "exited", "campaign_ids"}, …]
#     The version migrations that moved these campaigns' executions (who, when, what), newest first.


@dataclass(frozen=True)
class RunEngine:
    enroll: Callable
    outcomes: Callable
    unknown_variables: Callable | None = None
    send_window_error: Callable | None = None
    pending_reports: Callable | None = None
    migrations: Callable | None = None


RUN_ENGINE: Registry[RunEngine] = Registry("run_engine")  # one entry: "engine"


def register_run_engine(
    *,
    enroll: Callable,
    outcomes: Callable,
    unknown_variables: Callable | None = None,
    send_window_error: Callable | None = None,
    pending_reports: Callable | None = None,
    migrations: Callable | None = None,
) -> None:
    RUN_ENGINE.register(
        "engine", RunEngine(enroll, outcomes, unknown_variables, send_window_error, pending_reports, migrations)
    )


def run_engine() -> RunEngine | None:
    return RUN_ENGINE.get("engine")


# --------------------------------------------------------------------------- journey of a campaign
#
# The workflow a campaign runs and its pinned version belong to the engine
# (``automation.CampaignJourney``). Campaign code that must know whether a
# campaign has one asks here; the engine registers the lookup in its ``ready()``:
#
#   lookup(campaign) → {"workflow_id": int, "version_id": int} | None

JOURNEY_LOOKUP: Registry[Callable] = Registry("campaign_journey")  # one entry: "lookup"


def register_campaign_journey(*, lookup: Callable) -> None:
    JOURNEY_LOOKUP.register("lookup", lookup)


def campaign_journey(campaign) -> dict | None:
    """The campaign's workflow and pinned version ids, or None (no journey, or no engine installed)."""
    lookup = JOURNEY_LOOKUP.get("lookup")
    return lookup(campaign) if lookup else None


# --------------------------------------------------------------------------- launch check of an approval package
#
# What approving a chain package would send, computed by the engine (``automation.launch_check``); the chain
# pages ask here (the core names no engine). ``check(*, actor, package_id) → dict`` with ``members`` (one check
# per member campaign), ``blockers`` (any disables Approve) and ``ok``.

PACKAGE_CHECKS: Registry[Callable] = Registry("package_checks")  # one entry: "check"


def register_package_check(*, check: Callable, campaign: Callable | None = None) -> None:
    """``check``: a package's launch check; ``campaign(*, actor, campaign_id) → dict | None``: one standalone
    campaign's (its ``blockers`` disable single-campaign Approve), None for a kind the engine does not send."""
    PACKAGE_CHECKS.register("check", check)
    if campaign is not None:
        PACKAGE_CHECKS.register("campaign", campaign)


def package_check(*, actor, package_id: int) -> dict | None:
    """The package's launch check, or None when no engine is installed."""
    check = PACKAGE_CHECKS.get("check")
    return check(actor=actor, package_id=package_id) if check else None


# What the engine's package check reads of a package, given by the app that owns packages (chains registers
# ``plan(*, actor, package_id) → PackagePlan`` in its ``ready()``), so the engine imports nothing of it.


@dataclass(frozen=True)
class PackagePlan:
    """A submitted package as the launch check sees it: the root's audience as submitted and each member
    campaign (in package order) with the action it was submitted with (``{"channel", "content"}``; None: its
    own journey or none). ``first_ids``: the audience's target ids from its small side (the list's membership
    index), walked for the check's sample; ``size``: the audience's size when it is kept (a whole list);
    ``first_run_at``: no member sends before it, so the root's finish estimate starts there; ``first_runs``: a
    follow-up's own first planned run (its parent's run + its own timing, level by level), where its estimate
    starts (a member missing from it: ``first_run_at``)."""

    package_id: int
    subjects: object  # a QuerySet of the workspace's targets: the root's list and filters as submitted
    members: list[tuple[object, dict | None]]
    first_ids: object = None  # a values list of target ids (None: the subjects' own ids)
    size: int | None = None
    first_run_at: datetime | None = None  # the root's first scheduled run (None: started by hand or by an event)
    first_runs: dict[int, datetime] = field(default_factory=dict)  # a follow-up's campaign id → its first run


PACKAGE_PLANS: Registry[Callable] = Registry("package_plans")  # one entry: "plan"


def register_package_plan(*, plan: Callable) -> None:
    PACKAGE_PLANS.register("plan", plan)


def package_plan(*, actor, package_id: int) -> PackagePlan | None:
    """The package's plan (404 when it is not the workspace's), or None when no app owns packages."""
    plan = PACKAGE_PLANS.get("plan")
    return plan(actor=actor, package_id=package_id) if plan else None


def campaign_check(*, actor, campaign_id: int) -> dict | None:
    """A standalone campaign's launch check, or None (no engine, or a kind it does not send)."""
    check = PACKAGE_CHECKS.get("campaign")
    return check(actor=actor, campaign_id=campaign_id) if check else None


# --------------------------------------------------------------------------- a campaign's page
#
# Where a notification about a campaign links to, when an app owns its page rather than its kind's page
# (a chain member's runs page). The app registers a resolver in its ``ready()``:
#
#   register_campaign_page("chains", link)
#   link(campaign) → str  (the page's path; "" when the campaign is not the app's)

CAMPAIGN_PAGES: Registry[Callable] = Registry("campaign_pages")


def register_campaign_page(name: str, link: Callable) -> None:
    CAMPAIGN_PAGES.register(name, link)


def campaign_page(campaign) -> str:
    """The first registered page of the campaign (key order), or "" (its kind's page then)."""
    for _, link in CAMPAIGN_PAGES:
        if url := link(campaign):
            return url
    return ""


# --------------------------------------------------------------------------- home page counters
#
# Apps add a number to the home page's counters: ``register_dashboard_count("workflows", count)``
# where ``count(workspace=Workspace) → int``.

DASHBOARD_COUNTS: Registry[Callable] = Registry("dashboard_counts")


def register_dashboard_count(name: str, count: Callable) -> None:
    DASHBOARD_COUNTS.register(name, count)


def dashboard_counts(*, workspace) -> dict[str, int]:
    return {name: count(workspace=workspace) for name, count in DASHBOARD_COUNTS}


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


DEMO_CONTRIBUTORS: Registry[DemoContributor] = Registry("demo")


def register_demo(name: str, order: int, contribute: Callable) -> None:
    DEMO_CONTRIBUTORS.register(name, DemoContributor(name, order, contribute))


def demo_contributors() -> list[DemoContributor]:
    return DEMO_CONTRIBUTORS.in_order()


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


TARGET_PANELS: Registry[TargetPanel] = Registry("target_panels")


def register_target_panel(name: str, *, render: Callable, order: int = 100) -> None:
    TARGET_PANELS.register(name, TargetPanel(name, order, render))


def target_panels(*, request, actor, target) -> list[tuple[str, str]]:
    """``[(name, html), …]`` of the panels this user may see, in order."""
    out = []
    for panel in TARGET_PANELS.in_order():
        html = panel.render(request=request, actor=actor, target=target)
        if html:
            out.append((panel.name, html))
    return out


# --------------------------------------------------------------------------- a target left out of a send
#
# A target's timeline (the page and ``GET targets/{id}/timeline``) shows why it was not sent something even
# when no execution was made to hang an event on — a chain run's dispatch that refused a blacklisted number.
# The app that left it out registers a reader with the row types it answers (the ``type`` enum of
# ``GET targets/{id}/timeline``'s ``left_out``):
#
#   register_target_left_out("chains", read=target_left_out, types=("chain_run_refused",))
#   read(*, actor, target_id) → [{"type", "why_not_sent" (code), "why_label" (Persian), "campaign_id",
#                                 "campaign_name", "run_id" (or None), "occurred_at"}] newest first,
#                                 at most ``LEFT_OUT_MAX`` — exactly these keys (the API schema declares them)

LEFT_OUT_MAX = 50


@dataclass(frozen=True)
class LeftOutReader:
    read: Callable
    types: tuple[str, ...]


TARGET_LEFT_OUT: Registry[LeftOutReader] = Registry("target_left_out")


def register_target_left_out(name: str, *, read: Callable, types: tuple[str, ...]) -> None:
    TARGET_LEFT_OUT.register(name, LeftOutReader(read=read, types=tuple(types)))


def target_left_out_types() -> list[str]:
    """Every ``type`` a left-out row can have, over the registered readers."""
    return sorted({kind for _, reader in TARGET_LEFT_OUT for kind in reader.types})


def target_left_out(*, actor, target_id: int) -> list[dict]:
    """Every registered app's rows for the target, newest first (``LEFT_OUT_MAX`` at most)."""
    rows = [row for _, reader in TARGET_LEFT_OUT for row in reader.read(actor=actor, target_id=target_id)]
    rows.sort(key=lambda row: row["occurred_at"], reverse=True)
    return rows[:LEFT_OUT_MAX]


# --------------------------------------------------------------------------- audiences built on a target list
#
# A target list is refused deletion while a campaign takes its audience from it
# (docs/architecture.md "Tenancy and roles").
# The campaigns app knows its own reference (``Campaign.source_target_list``); an app that keeps a list inside
# a campaign's audience in another form registers who uses it:
#
#   register_target_list_users("auto_enroll", campaign_ids=rule_campaigns)
#   campaign_ids(*, workspace, list_id) → iterable of campaign ids (any status; the caller keeps the open ones)

TARGET_LIST_USERS: Registry[Callable] = Registry("target_list_users")


def register_target_list_users(name: str, *, campaign_ids: Callable) -> None:
    TARGET_LIST_USERS.register(name, campaign_ids)


def target_list_user_campaign_ids(*, workspace, list_id: int) -> set[int]:
    """Ids of the campaigns whose audience the registered apps build on the list."""
    ids: set[int] = set()
    for _, campaign_ids in TARGET_LIST_USERS:
        ids.update(campaign_ids(workspace=workspace, list_id=list_id))
    return ids


# --------------------------------------------------------------------------- before deleting a target
#
# What deleting a target would stop, said before it is deleted (the journeys it is live in), without the
# campaigns app importing the apps that know:
#
#   register_target_delete_warning("automation", warn=live_journeys_warning)
#   warn(*, actor, target) → str (plain text) | "" (nothing to say)

TARGET_DELETE_WARNINGS: Registry[Callable] = Registry("target_delete_warnings")


def register_target_delete_warning(name: str, *, warn: Callable) -> None:
    TARGET_DELETE_WARNINGS.register(name, warn)


def target_delete_warnings(*, actor, target) -> list[str]:
    return [text for _, warn in TARGET_DELETE_WARNINGS if (text := warn(actor=actor, target=target))]


# --- workspace defaults -------------------------------------------------------------------------------------
# What ``Workspace.settings`` starts with, whichever path creates the row (``workspace_create``, the Django
# admin, the ORM): the model's default reads this registry, so no path gets fewer defaults than another. An
# app registers the keys it owns (campaigns: four eyes, the Jalali calendar) from its ``AppConfig.ready()``.
WORKSPACE_DEFAULTS: Registry[Mapping] = Registry("workspace_defaults")


def register_workspace_defaults(name: str, values: Mapping) -> None:
    WORKSPACE_DEFAULTS.register(name, MappingProxyType(dict(values)))


def workspace_default_settings() -> dict:
    """A new workspace's settings: every app's registered defaults (the model field's ``default``)."""
    settings: dict = {}
    for _, values in WORKSPACE_DEFAULTS:
        settings.update(values)
    return settings
