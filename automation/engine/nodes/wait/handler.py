"""Wait: a duration after entering the node, or until a moment; the one timed node type.

``until_fact`` (optional, a ``bool`` fact with ``ends_wait``, e.g. ``reply.received``) ends the wait early when
the fact holds at a run of the step: the channel wakes the waiting executions when it learns something
(``executions_wake``), and the fact is read again when the wait ends anyway."""

from __future__ import annotations

import zoneinfo
from datetime import datetime, timedelta

from automation.choices import WAIT_DUE, EventType, NodeType, Port
from automation.engine.graph import WAIT_UNITS, wait_seconds
from automation.engine.nodes.base import NodeHandler
from automation.engine.nodes.wait.step import Wait
from automation.engine.outcome import Outcome
from automation.engine.registry import FACTS
from automation.engine.window import SendWindow, WindowError


class WaitNode(NodeHandler):
    key = NodeType.WAIT
    label = "انتظار"
    ports = frozenset({Port.DEFAULT})
    step = Wait
    timed = True

    def validate(self, node, config, check) -> None:
        mode = config.get("mode", node.subtype)
        if mode == "duration":
            amount = config.get("amount")
            if not isinstance(amount, int) or amount <= 0 or config.get("unit", "days") not in WAIT_UNITS:
                check.add(node, "INVALID_WAIT", "مدت انتظار باید عددی مثبت با واحد دقیقه، ساعت، روز یا هفته باشد.")
        elif mode == "until":
            try:
                datetime.fromisoformat(str(config.get("at")))
                SendWindow.from_config({"timezone": config.get("timezone", "Asia/Tehran")})
            except (ValueError, WindowError):
                check.add(node, "INVALID_WAIT", "زمان یا منطقه زمانی انتظار نامعتبر است.")
        else:
            check.add(node, "INVALID_WAIT", "نوع انتظار باید duration یا until باشد.")
        until_fact = config.get("until_fact")
        if until_fact not in (None, ""):
            fact = FACTS.get(str(until_fact))
            if fact is None or fact.kind != "bool" or not fact.ends_wait:
                check.add(node, "INVALID_WAIT", f"«{until_fact}» نمی‌تواند انتظار را زودتر تمام کند.")
        check.require(node, Port.DEFAULT)

    def run(self, run, node, step):
        config = node.config
        kept = run.metadata.get(WAIT_DUE)
        if isinstance(kept, dict) and kept.get("node") == node.node_key:
            # Moved here from another version's wait with its due time kept (a version migration).
            wake = datetime.fromisoformat(str(kept["at"]))
        elif config.get("mode", node.subtype) == "until":
            naive = datetime.fromisoformat(str(config["at"]))
            wake = naive if naive.tzinfo else naive.replace(tzinfo=zoneinfo.ZoneInfo(config.get("timezone", run.tz)))
        else:
            wake = run.entered_at() + timedelta(seconds=wait_seconds(config))
        fact = FACTS.get(str(config.get("until_fact") or ""))
        if wake > run.now and fact is not None and fact.resolve(run) is True:
            run.metadata.pop("_waiting", None)
            run.metadata.pop(WAIT_DUE, None)
            run.event(EventType.WAIT_FINISHED, node, early=fact.key)
            return run.after_move(run.move(node, Port.DEFAULT), step)
        if wake > run.now:
            if not run.metadata.get("_waiting") == node.node_key:
                run.event(EventType.WAIT_STARTED, node, until=wake.isoformat())
            run.metadata["_waiting"] = node.node_key
            return Outcome("wait", {"next_run_at": wake, "eligible_at": wake})
        run.metadata.pop("_waiting", None)
        run.metadata.pop(WAIT_DUE, None)
        run.event(EventType.WAIT_FINISHED, node)
        # The next step becomes due when the wait ended, not "now" (queue fairness).
        base = max(wake, run.entered_at())
        return run.after_move(run.move(node, Port.DEFAULT, at=min(base, run.now)), step)
