"""Helpers shared by the engine and SMS tests: journeys, SMS setup, ticks + workers with simulated time."""

from __future__ import annotations

import itertools
import json
import zoneinfo
from datetime import UTC, datetime

from django.test import TestCase

from automation.engine.batch import process_batch
from automation.engine.scheduler import tick
from automation.services.campaigns import journey_campaign_create, journey_campaign_transition
from automation.services.enrollment import enroll_subjects
from automation.services.workflows import workflow_create, workflow_graph_save, workflow_publish
from sms.models import SmsProviderAccount, SmsSettings
from sms.providers.console import ConsoleProvider

TEHRAN = zoneinfo.ZoneInfo("Asia/Tehran")
# Sunday 2026-11-01 06:30 Tehran (window closed).
T0 = datetime(2026, 11, 1, 3, 0, tzinfo=UTC)

WINDOW_9_18 = {
    "timezone": "Asia/Tehran",
    "days": {d: [["09:00", "18:00"]] for d in ("sat", "sun", "mon", "tue", "wed", "thu", "fri")},
}


def sms_node(key="sms1", body="سلام {target.first_name}", **config):
    retry = config.pop(
        "retry",
        {"enabled": True, "strategy": "fixed", "max_attempts": 0, "interval_seconds": 900, "on_exhausted": "fail"},
    )
    return {
        "node_key": key,
        "type": "action",
        "subtype": "send_sms",
        "name": key,
        "config": {"body": body, "on_missing_variable": "blank", "retry": retry, **config},
    }


def wait_node(key="wait1", amount=1, unit="days", **extra):
    return {
        "node_key": key,
        "type": "wait",
        "subtype": "duration",
        "config": {"mode": "duration", "amount": amount, "unit": unit},
        **extra,
    }


def start_node():
    return {"node_key": "start", "type": "start", "subtype": "manual", "config": {}}


def end_node(key="end", behavior="complete", **config):
    return {"node_key": key, "type": "end", "subtype": behavior, "config": {"behavior": behavior, **config}}


def chain(*keys, port="default"):
    return [{"from": a, "to": b, "port": port} for a, b in itertools.pairwise(keys)]


def linear_graph(*nodes, settings=None):
    keys = ["start", *[n["node_key"] for n in nodes]]
    return {"nodes": [start_node(), *nodes], "edges": chain(*keys), "settings": settings or {}}


def setup_sms(workspace, provider="console", credentials=None, senders=("3000",), **settings_fields) -> SmsSettings:
    account = SmsProviderAccount.objects.create(
        workspace=workspace,
        name=provider,
        provider=provider,
        credentials=json.dumps(credentials or {}),
        senders=list(senders),
    )
    settings, _ = SmsSettings.objects.update_or_create(
        workspace=workspace, defaults={"primary_account": account, "enabled": True, **settings_fields}
    )
    return settings


def publish(actor, graph: dict, name="سفر"):
    workflow = workflow_create(actor=actor, name=name)
    _, errors = workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph)
    assert not errors, [e.as_dict() for e in errors]
    workflow_publish(actor=actor, workflow_id=workflow.id)
    workflow.refresh_from_db()
    return workflow


def journey(actor, graph: dict, *, activate=True, **campaign_fields):
    workflow = publish(actor, graph)
    campaign = journey_campaign_create(actor=actor, name="کمپین سفر", workflow_id=workflow.id, **campaign_fields)
    if activate:
        campaign = journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
    return campaign


class Driver:
    """Runs ticks and processes what they dispatched, at a simulated ``now``."""

    def __init__(self) -> None:
        self.dispatched: list[list[tuple[int, str]]] = []

    def tick(self, now: datetime, *, process=True):
        batch: list[tuple[int, str]] = []
        with TestCase.captureOnCommitCallbacks(execute=True):  # dispatch happens on commit
            report = tick(now=now, send=lambda chunk: batch.extend(chunk))
        self.dispatched.append(batch)
        if process:
            process_batch(batch, now=now)
        return report, batch


def enroll(actor, campaign, targets):
    return enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])


class CountingConsole:
    """Wraps the console provider: counts calls, can fail chosen local ids."""

    def __init__(self, monkeypatch, respond=None):
        self.calls: list[str] = []
        self.respond = respond
        original = ConsoleProvider.send

        def send(provider, credentials, request):
            self.calls.append(request.local_id)
            if self.respond:
                response = self.respond(request)
                if response is not None:
                    return response
            return original(provider, credentials, request)

        monkeypatch.setattr(ConsoleProvider, "send", send)
