"""A scheduler process for the fault tests whose database is not the test's own (a private PostgreSQL).

    python -m tests.platform.faults.driver setup --targets 40 --provider-url http://127.0.0.1:…
    python -m tests.platform.faults.driver tick --campaign 7 --seconds 120
    python -m tests.platform.faults.driver report --campaign 7

``setup`` creates a workspace, an owner, Kavenegar settings pointing at the fake provider, a one-SMS
journey and its targets (enrolled) and prints the campaign id. ``tick`` runs the real scheduler tick
every 0.3 s, as beat would, until every execution is completed and no attempt is left in flight; a
tick that fails because the database went away is retried on a new connection (what beat's next run
does). ``report`` prints what happened as JSON. The database is ``DATABASE_URL``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter

import django


def _setup(args) -> None:
    from automation.services.enrollment import enroll_subjects
    from campaigns.choices import Role
    from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node
    from tests.conftest import make_actor, make_target, make_workspace

    workspace = make_workspace("faults")
    actor = make_actor(workspace, Role.OWNER)
    setup_sms(workspace, "kavenegar", {"api_key": "K"})
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    targets = [make_target(workspace) for _ in range(args.targets)]
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    print(json.dumps({"campaign": campaign.id, "mobiles": [t.mobile for t in targets]}))


def _done(campaign_id: int) -> bool:
    from automation.models import Execution
    from sms.models import SmsAttempt

    live = Execution.objects.filter(campaign_id=campaign_id).exclude(status="completed").exists()
    in_flight = SmsAttempt.objects.filter(campaign_id=campaign_id, status__in=("queued", "sending", "unknown"))
    return not live and not in_flight.exists()


def _tick(args) -> None:
    from django.db import DatabaseError, InterfaceError, connection
    from kombu.exceptions import OperationalError as BrokerError

    from automation.engine.scheduler import tick

    deadline = time.monotonic() + args.seconds
    failures = 0
    while time.monotonic() < deadline:
        try:
            tick()
            if _done(args.campaign):
                print(json.dumps({"done": True, "tick_failures": failures}))
                return
        # The database or the broker went away (a publish after the claim): the next run tries again, and the
        # leases bring back what was claimed and not published.
        except (DatabaseError, InterfaceError, BrokerError) as exc:
            failures += 1
            print(f"tick failed: {type(exc).__name__}", file=sys.stderr, flush=True)
            connection.close()
            time.sleep(0.3)
        time.sleep(0.3)
    print(json.dumps({"done": False, "tick_failures": failures}))
    sys.exit(1)


def _report(args) -> None:
    from automation.models import Execution, ExecutionEvent
    from campaigns.models import CampaignEvent
    from sms.models import SmsAttempt

    executions = Counter(Execution.objects.filter(campaign_id=args.campaign).values_list("status", flat=True))
    attempts = Counter(SmsAttempt.objects.filter(campaign_id=args.campaign).values_list("status", flat=True))
    per_execution = Counter(
        SmsAttempt.objects.filter(campaign_id=args.campaign, status="submitted").values_list("execution_id", flat=True)
    )
    events = Counter(ExecutionEvent.objects.filter(campaign_id=args.campaign).values_list("type", flat=True))
    print(
        json.dumps(
            {
                "executions": executions,
                "attempts": attempts,
                "submitted_twice": sum(1 for n in per_execution.values() if n > 1),
                "lease_expired": events.get("lease_expired", 0),
                "completed_events": events.get("completed", 0),
                # a campaign's part of a tick that raised (e.g. the publish after the claim): consecutive
                # identical failures are recorded once, so this is a lower bound
                "tick_failed_events": CampaignEvent.objects.filter(
                    campaign_id=args.campaign, type="tick_failed"
                ).count(),
            }
        )
    )


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    setup = sub.add_parser("setup")
    setup.add_argument("--targets", type=int, default=40)
    for name in ("tick", "report"):
        command = sub.add_parser(name)
        command.add_argument("--campaign", type=int, required=True)
        command.add_argument("--seconds", type=float, default=120)
    args = parser.parse_args()
    {"setup": _setup, "tick": _tick, "report": _report}[args.command](args)


if __name__ == "__main__":
    main()
