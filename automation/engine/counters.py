"""Daily counters: atomic reserve/release per scope and workspace calendar day.

``reserve`` is ``UPDATE … SET used = used + 1 WHERE used < limit`` on a row
created with INSERT … ON CONFLICT DO NOTHING, so concurrent workers can never
exceed a limit. Only accepted sends keep their reservation.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db import connection
from django.db.models import F

from automation.choices import CounterScope
from automation.models import DailyCounter


@dataclass(frozen=True)
class BudgetScope:
    scope: str
    scope_id: int
    limit: int | None


@dataclass(frozen=True)
class Budget:
    """The limits one send must fit in (campaign first, then workspace)."""

    workspace_id: int
    channel: str
    day: date
    scopes: tuple[BudgetScope, ...]

    def reserve(self) -> bool:
        """Reserve one unit in every scope, or nothing (gives the first back if the second fails)."""
        taken: list[BudgetScope] = []
        for scope in self.scopes:
            if not reserve(self.workspace_id, scope.scope, scope.scope_id, self.channel, self.day, scope.limit):
                for done in taken:
                    release(self.workspace_id, done.scope, done.scope_id, self.channel, self.day)
                return False
            taken.append(scope)
        return True

    def release(self) -> None:
        for scope in self.scopes:
            release(self.workspace_id, scope.scope, scope.scope_id, self.channel, self.day)

    def reserve_many(self, wanted: int) -> int:
        """Reserve up to ``wanted`` units in every scope at once; returns how many were granted (PostgreSQL)."""
        granted = wanted
        taken: list[tuple[BudgetScope, int]] = []
        for scope in self.scopes:
            got = reserve_many(
                self.workspace_id, scope.scope, scope.scope_id, self.channel, self.day, scope.limit, granted
            )
            for done, amount in taken:
                if amount > got:
                    release(self.workspace_id, done.scope, done.scope_id, self.channel, self.day, amount - got)
            taken = [(done, got) for done, _ in taken] + [(scope, got)]
            granted = got
        return granted

    def release_many(self, count: int) -> None:
        if count > 0:
            for scope in self.scopes:
                release(self.workspace_id, scope.scope, scope.scope_id, self.channel, self.day, count)

    def remaining(self) -> int | None:
        """min(limit − used) over the limited scopes (None = unlimited)."""
        values = [
            max(0, scope.limit - used(scope.scope, scope.scope_id, self.channel, self.day))
            for scope in self.scopes
            if scope.limit is not None
        ]
        return min(values) if values else None


def _ensure(workspace_id: int, scope: str, scope_id: int, channel: str, day: date) -> None:
    DailyCounter.objects.bulk_create(
        [DailyCounter(workspace_id=workspace_id, scope=scope, scope_id=scope_id, channel=channel, day=day, used=0)],
        ignore_conflicts=True,
    )


def reserve(workspace_id: int, scope: str, scope_id: int, channel: str, day: date, limit: int | None) -> bool:
    """``UPDATE … SET used = used + 1 WHERE used < limit``; the day's row is created on first use."""
    qs = DailyCounter.objects.filter(scope=scope, scope_id=scope_id, channel=channel, day=day)
    if limit is not None:
        qs = qs.filter(used__lt=limit)
    if qs.update(used=F("used") + 1) == 1:
        return True
    _ensure(workspace_id, scope, scope_id, channel, day)
    return qs.update(used=F("used") + 1) == 1


def reserve_many(
    workspace_id: int, scope: str, scope_id: int, channel: str, day: date, limit: int | None, wanted: int
) -> int:
    """Take up to ``wanted`` units in one statement: ``used = LEAST(limit, used + wanted)``; returns the units taken."""
    if wanted <= 0:
        return 0
    taken = _take_many(scope, scope_id, channel, day, limit, wanted)
    if taken is None:  # the day's first reservation of this scope: its row is created once
        _ensure(workspace_id, scope, scope_id, channel, day)
        taken = _take_many(scope, scope_id, channel, day, limit, wanted)
    return taken or 0


def _take_many(scope: str, scope_id: int, channel: str, day: date, limit: int | None, wanted: int) -> int | None:
    """One statement on the day's row: the units taken; None = the row does not exist yet."""
    qs = DailyCounter.objects.filter(scope=scope, scope_id=scope_id, channel=channel, day=day)
    if limit is None:
        return wanted if qs.update(used=F("used") + wanted) else None
    table = DailyCounter._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH old AS (SELECT id, used FROM {table} WHERE scope = %s AND scope_id = %s AND channel = %s"  # noqa: S608
            f" AND day = %s FOR UPDATE) UPDATE {table} AS d SET used = GREATEST(old.used, LEAST(%s, old.used + %s))"
            " FROM old WHERE d.id = old.id RETURNING d.used - old.used",
            [scope, scope_id, channel, day, limit, wanted],
        )
        row = cursor.fetchone()
    return None if row is None else int(row[0])


def release(workspace_id: int, scope: str, scope_id: int, channel: str, day: date, count: int = 1) -> None:
    DailyCounter.objects.filter(scope=scope, scope_id=scope_id, channel=channel, day=day, used__gte=count).update(
        used=F("used") - count
    )


def used(scope: str, scope_id: int, channel: str, day: date) -> int:
    return (
        DailyCounter.objects.filter(scope=scope, scope_id=scope_id, channel=channel, day=day)
        .values_list("used", flat=True)
        .first()
        or 0
    )


def budget_scopes(campaign, *, settings) -> tuple[BudgetScope, ...]:
    """The budget rule, written once: the campaign's limit (the campaign's own, else its pinned version's
    ``daily_limit``; None = unlimited), then the workspace's global daily limit when it has one. The sends
    (``campaign_budget``) and the scheduler's claim budget read it."""
    from automation.selectors import campaign_journey_version

    version = campaign_journey_version(campaign)
    version_settings = (version.settings or {}) if version else {}
    limit = campaign.daily_limit if campaign.daily_limit is not None else version_settings.get("daily_limit")
    scopes = [BudgetScope(CounterScope.CAMPAIGN, campaign.id, limit)]
    if settings.global_daily_limit is not None:
        scopes.append(BudgetScope(CounterScope.WORKSPACE, campaign.workspace_id, settings.global_daily_limit))
    return tuple(scopes)


def campaign_budget(campaign, *, channel: str, day: date, settings) -> Budget:
    """The limits one send of ``channel`` on ``day`` must fit in (``budget_scopes``)."""
    return Budget(campaign.workspace_id, channel, day, budget_scopes(campaign, settings=settings))
