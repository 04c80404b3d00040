"""What a busy workspace does during the chaos run.

``setup`` (this process, Django on the private cluster): a workspace with Kavenegar (primary) and
Melipayamak pointing at the fake providers, three journeys (SMS → wait 1 min → condition → SMS) — one with
a daily limit sending through Melipayamak, one with a daily send window (09:00–12:00 on the run's calendar
clock, clock.py), one with both — the first enrollment batch of 5,000 through the review (preview,
conflicts skipped, commit in the background job), a browser Like campaign and an approved chain root →
child → grandchild with two periods a week. ``Activity`` then runs, each bounded in count and time: more
enrollment batches, API clients reading and writing through gunicorn, delivery reports and opt-outs
through the public webhook, and recipients' answers waiting in the providers' inboxes (some «لغو» in its
spellings) for the platform's poll.
"""

from __future__ import annotations

import json
import random
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

from django.db import DatabaseError, InterfaceError, connection

COND_RULES = [{"field": "target.status", "operator": "in", "value": ["interested"]}]
FIRST_BATCH = 5000
LIMITS = {"limit": 120, "window": None, "both": 80}
PROVIDERS = {"limit": "melipayamak"}  # the other journeys and the chain send through the primary, Kavenegar
# What recipients answer: «لغو» in its spellings (Persian and Arabic-Indic digits, a space, ZWNJ, Latin), and
# replies that are no opt-out (a word inside a sentence never is).
REPLY_TEXTS = ("لغو", "لغو۱۱", "لغو 11", "لغو‌۱۱", "لغو١١", "11", "STOP", "بله", "ممنون", "لغو نکنید")
REPLY_LINES = {"kavenegar": "3000", "melipayamak": "5000"}  # each account's line (setup)


def graph(name: str, provider: str | None = None) -> dict:
    from tests.automation.helpers import end_node, sms_node, start_node, wait_node

    retry = {"enabled": True, "strategy": "fixed", "max_attempts": 2, "interval_seconds": 60, "on_exhausted": "fail"}
    chosen = {"provider": provider} if provider else {}
    nodes = [
        start_node(),
        sms_node("a", body=f"{name} a {{target.first_name}}", retry=retry, **chosen),
        wait_node("w", amount=1, unit="minutes"),
        {
            "node_key": "c",
            "type": "condition",
            "subtype": "field_rules",
            "config": {"logic": "all", "rules": COND_RULES},
        },
        sms_node("b", body=f"{name} b {{target.first_name}}", retry=retry, **chosen),
        end_node("end"),
        end_node("end_no"),
    ]
    edges = [
        {"from": "start", "to": "a", "port": "default"},
        {"from": "a", "to": "w", "port": "default"},
        {"from": "w", "to": "c", "port": "default"},
        {"from": "c", "to": "b", "port": "yes"},
        {"from": "c", "to": "end_no", "port": "no"},
        {"from": "b", "to": "end", "port": "default"},
    ]
    return {"nodes": nodes, "edges": edges, "settings": {}}


def daily_window() -> dict:
    """The window journeys' send window: every day 09:00–12:00 in the workspace's zone, on the run's calendar
    clock (clock.py), which lives through each opening and closing and jumps between them."""
    from .clock import CLOSES, OPENS, TIME_ZONE

    names = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    return {"timezone": TIME_ZONE, "days": {name: [[OPENS, CLOSES]] for name in names}}


CHAIN_AUDIENCE = 150


def chain_setup(actor, *, people: int = CHAIN_AUDIENCE) -> dict[str, int]:
    """A chain root → child → grandchild, approved: the root every Monday and Thursday at 09:00 from the run's
    first day (two periods a week), the child one day after the root's run and the grandchild one day after
    the child's (each to the people its source reached and who did not convert), every node an SMS through
    the primary provider. Under the run's clock both periods of the first week run all three levels."""
    from campaigns.chains.services.approval import campaign_submit, package_approve
    from campaigns.models import Target, TargetList
    from tests.chains.conftest import make_chain

    from .clock import OPENS, ROOT_WEEKDAYS, first_day

    workspace = actor.workspace
    audience = TargetList.objects.create(workspace=workspace, name="chaos chain")
    rows = [
        Target(workspace=workspace, name=f"chain {i}", first_name=f"z{i}", mobile=f"+98937{i:07d}")
        for i in range(people)
    ]
    Target.objects.bulk_create(rows)
    audience.targets.add(*Target.objects.filter(workspace=workspace, mobile__startswith="+98937"))
    schedule = {"type": "WEEKLY", "weekdays": list(ROOT_WEEKDAYS), "time": OPENS}
    schedule["start_date"] = first_day(time.time()).isoformat()
    nodes = make_chain(
        workspace,
        shape="A>B>C",
        source_target_list=audience,
        root_schedule=schedule,
        chain_action={"channel": "sms", "content": "زنجیره A"},
    )
    day_after = {"type": "AFTER_INTERVAL", "offset_days": 1, "run_time": OPENS}
    for key in ("B", "C"):
        nodes[key].inheritance = {"type": "NOT_CONVERTED", "schedule": day_after}
        nodes[key].chain_action = {"channel": "sms", "content": f"زنجیره {key}"}
        nodes[key].save(update_fields=["inheritance", "chain_action"])
    root = nodes["A"]
    _, package = campaign_submit(actor=actor, campaign_id=root.id, expected_chain_revision=root.chain_revision)
    package_approve(actor=actor, package_id=package.id, expected_submitted_revision=package.submitted_revision)
    return {"root": nodes["A"].id, "child": nodes["B"].id, "grandchild": nodes["C"].id}


@dataclass
class World:
    workspace_id: int
    user_id: int
    api_key: str
    webhook_token: str
    campaigns: dict[str, int]
    windows: dict[str, dict]  # campaign name → its send window config
    limits: dict[str, int | None]
    spare_target_ids: list[int]
    slug: str
    browser_campaign: int | None = None
    chain: dict[str, int] = field(default_factory=dict)  # level → campaign id


def browser_setup(actor, site, *, posts: int = 40, accounts: int = 4) -> int:
    """A Like campaign on the local demo site: every account likes every post once (``posts × accounts``)."""
    from tests.workers.conftest import make_account, make_browser_campaign

    made = [make_account(actor.workspace) for _ in range(accounts)]  # one session cookie each
    links = [site.url(f"/post/chaos-{i}") for i in range(posts)]
    return make_browser_campaign(actor, accounts=made, links=links).id


def setup(*, targets: int, seed: int, site=None) -> World:
    from automation.services.enrollment_batches import (
        enrollment_batch_commit,
        enrollment_batch_decide,
        enrollment_batch_preview,
    )
    from campaigns.choices import Role
    from campaigns.models import Target
    from campaigns.platform.tokens import api_token_create
    from sms.models import SmsProviderAccount, SmsSettings
    from tests.automation.helpers import journey, setup_sms
    from tests.conftest import make_actor, make_workspace

    rng = random.Random(seed)
    workspace = make_workspace("chaos")
    actor = make_actor(workspace, Role.OWNER)
    setup_sms(workspace, "kavenegar", {"api_key": "K"})
    SmsProviderAccount.objects.create(
        workspace=workspace,
        name="melipayamak",
        provider="melipayamak",
        credentials=json.dumps({"username": "chaos", "password": "M"}),
        senders=["5000"],
    )
    window = daily_window()
    campaigns, windows = {}, {}
    for name, limit in LIMITS.items():
        fields = {"daily_limit": limit} if limit else {}
        if name in ("window", "both"):
            fields["send_window"] = window
            windows[name] = window
        campaigns[name] = journey(actor, graph(name, PROVIDERS.get(name)), **fields).id
    rows = [
        Target(
            workspace=workspace,
            name=f"chaos {i}",
            first_name=f"c{i}",
            mobile=f"+98935{i:07d}",
            status="interested" if rng.random() < 0.5 else "new",
        )
        for i in range(targets)
    ]
    Target.objects.bulk_create(rows, batch_size=2000)
    ids = list(Target.objects.filter(workspace=workspace).order_by("id").values_list("id", flat=True))
    first = ids[:FIRST_BATCH]
    batch = enrollment_batch_preview(actor=actor, campaign_id=campaigns["both"], target_ids=first)
    enrollment_batch_decide(actor=actor, batch_id=batch.id, default="skip", set_default=True)
    enrollment_batch_commit(actor=actor, batch_id=batch.id)
    _, key = api_token_create(user=actor.user, workspace=workspace, name="chaos")
    token = SmsSettings.objects.get(workspace=workspace).webhook_token
    browser = browser_setup(actor, site) if site is not None else None
    chain = chain_setup(actor)
    return World(
        browser_campaign=browser,
        chain=chain,
        workspace_id=workspace.id,
        user_id=actor.user.id,
        api_key=key,
        webhook_token=token,
        campaigns=campaigns,
        windows=windows,
        limits=dict(LIMITS),
        spare_target_ids=ids[FIRST_BATCH:],
        slug=workspace.slug,
    )


def _message_id(message: dict) -> str:
    """The provider's message id (Kavenegar ``messageid``, Melipayamak ``recId``)."""
    return str(message.get("messageid") or message.get("recId"))


@dataclass
class ApiCall:
    at: float
    method: str
    path: str
    status: int  # 0: no answer (connection refused/reset, timeout)


@dataclass
class Activity:
    world: World
    web_url: str
    seed: int
    deadline: float
    calls: list[ApiCall] = field(default_factory=list)
    opt_outs: dict[str, float] = field(default_factory=dict)  # national number → when the webhook said 200
    reported: set[str] = field(default_factory=set)
    batches: list[int] = field(default_factory=list)
    batch_errors: int = 0
    replies: list[tuple[str, str]] = field(default_factory=list)  # (provider kind, message id) placed in an inbox
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _http(self, method: str, path: str, body: dict | None = None, *, api: bool = True) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.web_url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if api:
            request.add_header("Authorization", f"Token {self.world.api_key}")
            request.add_header("X-Workspace", self.world.slug)
        status, payload = 0, {}
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                status = response.status
                payload = json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            status = exc.code
        except (OSError, ValueError):
            status = 0
        with self.lock:
            self.calls.append(ApiCall(time.time(), method, path.split("?")[0], status))
        return status, payload

    def _running(self) -> bool:
        return not self.stop.is_set() and time.monotonic() < self.deadline

    def api_client(self, index: int) -> None:
        rng = random.Random(self.seed * 100 + index)
        c = self.world.campaigns
        reads = [
            "/api/v1/me",
            "/api/v1/targets?page=1&size=20",
            "/api/v1/campaigns?page=1&size=20",
            "/api/v1/executions?page=1&size=20",
            "/api/v1/sms/attempts?page=1&size=20",
            *(f"/api/v1/campaigns/{cid}/journey/stats" for cid in c.values()),
        ]
        for n in range(100_000):
            if not self._running():
                return
            if rng.random() < 0.2:
                mobile = f"+98936{index}{n:06d}"
                self._http("POST", "/api/v1/targets", {"name": f"api {index}-{n}", "mobile": mobile})
            else:
                self._http("GET", rng.choice(reads))
            time.sleep(rng.uniform(0.2, 0.8))

    def webhooks(self, providers) -> None:
        """Delivery reports for accepted messages (both providers) and, now and then, an opt-out of an enrolled
        number."""
        from sms.providers.base import national

        rng = random.Random(self.seed * 7)
        hook = f"/api/webhooks/sms/generic/{self.world.webhook_token}"
        for n in range(100_000):
            if not self._running():
                return
            accepted = [m for p in providers for m in p.messages().values()]
            fresh = [m for m in accepted if _message_id(m) not in self.reported]
            reports = [{"message_id": _message_id(m), "status": "delivered"} for m in fresh[:40]]
            body: dict = {"reports": reports}
            number = None
            if n % 5 == 4 and fresh:
                number = national(fresh[rng.randrange(len(fresh))]["receptor"])
                body["opt_outs"] = [number]
            status, _ = self._http("POST", hook, body, api=False)
            if status == 200:
                self.reported.update(r["message_id"] for r in reports)
                if number is not None:
                    self.opt_outs.setdefault(number, time.time())
            time.sleep(rng.uniform(1.0, 2.5))

    def answers(self, providers) -> None:
        """Recipients of accepted messages answer now and then; each answer waits in its provider's inbox for the
        platform's poll (``sms-inbox-poll``), which must store it once and honour an opt-out word at once."""
        rng = random.Random(self.seed * 11)
        while self._running():
            for provider in providers:
                accepted = list(provider.messages().values())
                if not accepted:
                    continue
                receptor = str(accepted[rng.randrange(len(accepted))].get("receptor") or "")
                text = rng.choice(REPLY_TEXTS)
                message_id = provider.fake.reply(receptor, text, line=REPLY_LINES[provider.kind], at=int(time.time()))
                self.replies.append((provider.kind, str(message_id)))
            time.sleep(rng.uniform(2.0, 5.0))

    def enrollments(self, every: float = 45.0, size: int = 400) -> None:
        """Batches through the review, into the journeys without the first batch, one at a time."""
        from automation.services.enrollment_batches import (
            enrollment_batch_commit,
            enrollment_batch_decide,
            enrollment_batch_preview,
        )

        spare = list(self.world.spare_target_ids)
        names = ("limit", "window")
        for n in range(1000):
            if not self._running() or not spare:
                return
            ids, spare = spare[:size], spare[size:]
            try:
                actor = self._actor()
                campaign_id = self.world.campaigns[names[n % 2]]
                batch = enrollment_batch_preview(actor=actor, campaign_id=campaign_id, target_ids=ids)
                enrollment_batch_decide(actor=actor, batch_id=batch.id, default="skip", set_default=True)
                enrollment_batch_commit(actor=actor, batch_id=batch.id)
                self.batches.append(batch.id)
            except (DatabaseError, InterfaceError):  # PostgreSQL is down: the person tries again later
                self.batch_errors += 1
                spare = ids + spare
                connection.close()
            self.stop.wait(every)

    def _actor(self):
        from django.contrib.auth import get_user_model

        from campaigns.models import Workspace
        from tests.conftest import make_actor

        workspace = Workspace.objects.get(pk=self.world.workspace_id)
        user = get_user_model().objects.get(pk=self.world.user_id)
        return make_actor(workspace, user=user)

    def start(self, providers: list, *, api_clients: int = 2) -> list[threading.Thread]:
        threads = [threading.Thread(target=self.api_client, args=(i,), daemon=True) for i in range(api_clients)]
        threads.append(threading.Thread(target=self.webhooks, args=(providers,), daemon=True))
        threads.append(threading.Thread(target=self.enrollments, daemon=True))
        threads.append(threading.Thread(target=self.answers, args=(providers,), daemon=True))
        for thread in threads:
            thread.start()
        return threads
