"""The SMS channel's built-in workflow templates (copied into a workspace with fresh node keys).

Registered in ``SmsConfig.ready`` through ``automation.engine.registry.register_workflow_template``: the
engine offers whatever the channels register. Texts have no gendered salutations (seed D8) and make no
product claims.
"""

import itertools

from automation.engine.registry import register_workflow_template
from campaigns.platform.jalali import fa_digits

SMS_RETRY = {
    "enabled": True,
    "strategy": "fixed",
    "max_attempts": 2,
    "interval_seconds": 900,
    "on_exhausted": "continue",
}
_SMS = {
    "provider": None,
    "sender": None,
    "send_only_in_window": True,
    "on_missing_variable": "blank",
    "append_opt_out": False,
}


def _sms(key, title, body):
    return {
        "node_key": key,
        "type": "action",
        "subtype": "send_sms",
        "name": title,
        "config": {**_SMS, "title": title, "body": body, "retry": SMS_RETRY},
    }


def _wait(key, days, until):
    """A wait named by its length (Persian digits) and what it waits for: two 30-day waits are told apart."""
    return {
        "node_key": key,
        "type": "wait",
        "subtype": "duration",
        "name": f"{fa_digits(days)} روز تا {until}",
        "config": {"mode": "duration", "amount": days, "unit": "days"},
    }


def _chain(*keys):
    return [{"from": a, "to": b, "port": "default"} for a, b in itertools.pairwise(keys)]


START = {"node_key": "start", "type": "start", "subtype": "manual", "name": "شروع", "config": {}}
END = {"node_key": "end", "type": "end", "subtype": "complete", "name": "پایان", "config": {"behavior": "complete"}}

BUILTIN_TEMPLATES = {
    "three_step_intro": {
        "name": "معرفی سه‌مرحله‌ای",
        "description": "پیام معرفی، ۳۰ روز بعد یادآوری، ۳۰ روز بعد پیام پایانی.",
        "definition": {
            "nodes": [
                START,
                _sms("sms1", "معرفی", "سلام {target.first_name|همکار گرامی}، از آشنایی با شما خوشحالیم."),
                _wait("wait1", 30, "یادآوری"),
                _sms("sms2", "یادآوری", "{target.first_name|همکار گرامی}، برای هر پرسشی در خدمتیم."),
                _wait("wait2", 30, "پیام پایانی"),
                _sms("sms3", "پیام پایانی", "با سپاس از همراهی شما، {target.first_name|همکار گرامی}."),
                END,
            ],
            "edges": _chain("start", "sms1", "wait1", "sms2", "wait2", "sms3", "end"),
            "settings": {},
        },
    },
    "single_message": {
        "name": "یک پیام",
        "description": "یک پیام و پایان.",
        "definition": {
            "nodes": [START, _sms("sms1", "پیام", "سلام {target.first_name|همکار گرامی}."), END],
            "edges": _chain("start", "sms1", "end"),
            "settings": {},
        },
    },
    "follow_up_unless_interested": {
        "name": "پیگیری تا علاقه‌مندی",
        "description": "پیام، ۷ روز انتظار، اگر علاقه‌مند نشد پیام دوم.",
        "definition": {
            "nodes": [
                START,
                _sms("sms1", "پیام اول", "سلام {target.first_name|همکار گرامی}."),
                _wait("wait1", 7, "بررسی علاقه"),
                {
                    "node_key": "cond1",
                    "type": "condition",
                    "subtype": "field_rules",
                    "name": "علاقه‌مند شد؟",
                    "config": {
                        "logic": "all",
                        "rules": [{"field": "target.status", "operator": "in", "value": ["interested", "converted"]}],
                    },
                },
                _sms("sms2", "پیام دوم", "{target.first_name|همکار گرامی}، همچنان در خدمتیم."),
                END,
                {
                    "node_key": "end2",
                    "type": "end",
                    "subtype": "complete",
                    "name": "پایان",
                    "config": {"behavior": "complete"},
                },
            ],
            "edges": [
                *_chain("start", "sms1", "wait1", "cond1"),
                {"from": "cond1", "to": "end", "port": "yes"},
                {"from": "cond1", "to": "sms2", "port": "no"},
                {"from": "sms2", "to": "end2", "port": "default"},
            ],
            "settings": {},
        },
    },
}


def register() -> None:
    for order, (key, template) in enumerate(BUILTIN_TEMPLATES.items()):
        register_workflow_template(
            key,
            name=template["name"],
            description=template["description"],
            definition=template["definition"],
            order=10 + order,
        )
