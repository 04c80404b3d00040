"""The channel contract (campaigns/platform/channels.py): a channel is one folder plus its line in INSTALLED_APPS.

``tests/channel_example`` is a throw-away channel no shared file names. Installed through the settings hook
(``EXTRA_APPS``) in a process of its own, its queue and route, periodic job, page, API and other URL
mounts, menu entry, campaign kind (its choices and creation handler), chain action, API area and
history table and its own settings all appear; in this process, where it is not installed, none does.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from campaigns.platform.channels import campaign_kind_choices, installed_channels

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("config", "campaigns", "automation", "sms", "workers", "templates")

SCRIPT = r"""
import json
from types import SimpleNamespace

import django

django.setup()

from django.conf import settings
from django.urls import resolve, reverse

from automation.services.chain_runs import chain_action_graph
from campaigns.chains.page_forms import channel_choices
from campaigns.platform.api.schema import operation_area
from campaigns.platform.channels import campaign_kind_choices
from campaigns.platform.navigation import menu_for
from campaigns.platform.partitions import history_tables
from campaigns.platform.registry import campaign_kind_handler
from config.celery import BEAT_SCHEDULE, app

menu = menu_for(user=SimpleNamespace(is_staff=False), actor=None)
graph = chain_action_graph({"channel": "example", "content": "سلام"})
print(json.dumps({
    "queues": sorted(q.name for q in app.conf.task_queues),
    "route": app.amqp.router.route({}, "channel_example.poll")["queue"].name,
    "beat": BEAT_SCHEDULE.get("example-poll", {}).get("task"),
    "page": reverse("example-home"),
    "api": resolve("/api/v1/example/ping").url_name,
    "hook": resolve("/api/example-hooks/example").url_name,
    "menu": {group.label: [item.url for item in group.items] for group in menu},
    "kinds": dict(campaign_kind_choices()),
    "kind_handler": campaign_kind_handler("example") is not None,
    "chain_channels": dict(channel_choices()),
    "chain_step": [node["subtype"] for node in graph.to_dict()["nodes"] if node["type"] == "action"],
    "history": history_tables(),
    "tags": [tag["name"] for tag in settings.SPECTACULAR_SETTINGS["TAGS"]],
    "area": operation_area("/api/v1/example/ping", "tests.channel_example.views"),
    "setting": getattr(settings, "EXAMPLE_POLL_SECONDS", None),
}, ensure_ascii=False))
"""


def _with_example_channel() -> dict:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "EXTRA_APPS": "tests.channel_example.apps.ExampleChannelConfig",
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_channel_from_one_folder_appears_everywhere_the_platform_lists_channels():
    seen = _with_example_channel()
    assert seen["queues"] == ["browser", "default", "engine", "example", "sms"]
    assert seen["route"] == "example"
    assert seen["beat"] == "channel_example.poll"
    assert seen["page"] == "/example/"
    assert seen["api"] == "api-example-ping"
    assert seen["hook"] == "example-hook"
    assert seen["menu"]["کانال نمونه"] == ["/example/"]
    assert seen["kinds"] == {"journey": "سفر پیامکی", "browser": "وظایف مرورگر", "example": "کمپین نمونه"}
    assert seen["kind_handler"] is True
    assert seen["chain_channels"] == {"sms": "پیامک", "example": "کانال نمونه"}
    assert seen["chain_step"] == ["send_example"]
    assert seen["history"]["channel_example_event"] == "created_at"
    assert "Example" in seen["tags"]
    assert seen["area"] == "Example"
    assert seen["setting"] == 30  # its settings module, in its own folder


def test_without_it_nothing_of_it_is_there_and_no_shared_file_names_it():
    assert [channel.name for channel in installed_channels()] == ["sms", "browser"]
    assert "example" not in dict(campaign_kind_choices())
    assert not hasattr(settings, "EXAMPLE_POLL_SECONDS")
    assert settings.APP_SETTINGS == (
        "campaigns.chains.settings",
        "automation.settings",
        "sms.settings",
        "workers.settings",
    )
    named = [
        str(path.relative_to(ROOT))
        for folder in PRODUCT
        for path in (ROOT / folder).rglob("*")
        if path.suffix in {".py", ".html", ".toml"} and "channel_example" in path.read_text(encoding="utf-8")
    ]
    assert named == []
