"""Wait: a duration after entering the node, or until a moment; the one timed node type."""

from __future__ import annotations

import zoneinfo
from datetime import datetime, timedelta

from automation.choices import EventType, NodeType, Port
from automation.engine.graph import WAIT_UNITS, wait_seconds
from automation.engine.nodes.base import NodeHandler
from automation.engine.nodes.wait.step import Wait
from automation.engine.outcome import Outcome
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
                check.add(node, "INVALID_WAIT", "مدت انتظار باید عددی مثبت با واحد دقیقه، ساعت یا روز باشد.")
        elif mode == "until":
            try:
                datetime.fromisoformat(str(config.get("at")))
                SendWindow.from_config({"timezone": config.get("timezone", "Asia/Tehran")})
            except (ValueError, WindowError):
                check.add(node, "INVALID_WAIT", "زمان یا منطقه زمانی انتظار نامعتبر است.")
        else:
            check.add(node, "INVALID_WAIT", "نوع انتظار باید duration یا until باشد.")
        check.require(node, Port.DEFAULT)

    def run(self, run, node, step):
        config = node.config
        if config.get("mode", node.subtype) == "until":
            naive = datetime.fromisoformat(str(config["at"]))
            wake = naive if naive.tzinfo else naive.replace(tzinfo=zoneinfo.ZoneInfo(config.get("timezone", run.tz)))
        else:
            wake = run.entered_at() + timedelta(seconds=wait_seconds(config))
        if wake > run.now:
            if not run.metadata.get("_waiting") == node.node_key:
                run.event(EventType.WAIT_STARTED, node, until=wake.isoformat())
            run.metadata["_waiting"] = node.node_key
            return Outcome("wait", {"next_run_at": wake, "eligible_at": wake})
        run.metadata.pop("_waiting", None)
        run.event(EventType.WAIT_FINISHED, node)
        # The next step becomes due when the wait ended, not "now" (queue fairness).
        base = max(wake, run.entered_at())
        return run.after_move(run.move(node, Port.DEFAULT, at=min(base, run.now)), step)
