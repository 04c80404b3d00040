"""End: complete, stop, or loop back / restart after a delay (at most ``max_cycles`` rounds)."""

from __future__ import annotations

from datetime import timedelta

from automation.choices import EndReason, EventType, NodeType
from automation.engine.graph import END_BEHAVIORS, WAIT_UNITS
from automation.engine.nodes.base import NodeHandler
from automation.engine.nodes.end.step import End
from automation.engine.outcome import Outcome, PendingEvent

MIN_LOOP_DELAY = 3600


def delay_seconds(delay) -> int:
    if not isinstance(delay, dict):
        return 0
    try:
        return int(delay.get("amount", 0)) * WAIT_UNITS.get(delay.get("unit", "days"), 0)
    except (TypeError, ValueError):
        return 0


class EndNode(NodeHandler):
    key = NodeType.END
    label = "پایان"
    ports = frozenset()
    step = End

    def validate(self, node, config, check) -> None:
        behavior = node.behavior
        if behavior not in END_BEHAVIORS:
            check.add(node, "INVALID_END", f"رفتار پایان «{behavior}» ناشناخته است.")
            return
        if check.graph.out.get(node.node_key):
            check.add(node, "END_HAS_EDGES", "گام پایان نباید اتصال خروجی داشته باشد.")
        if behavior in ("loop", "restart"):
            if delay_seconds(config.get("delay")) < MIN_LOOP_DELAY:
                check.add(node, "LOOP_DELAY", "تکرار یا شروع دوباره دست‌کم یک ساعت فاصله لازم دارد.")
            max_cycles = config.get("max_cycles")
            if not isinstance(max_cycles, int) or max_cycles < 1:
                check.add(node, "LOOP_MAX_CYCLES", "سقف تعداد دورها (max_cycles) لازم است.")
        if behavior == "loop":
            target = check.graph.by_key.get(str(config.get("to_node", "")))
            if target is None or target.type == NodeType.START:
                check.add(node, "LOOP_TARGET", "گام مقصد تکرار معتبر نیست.")

    def jumps(self, graph, node) -> list[str]:
        if node.behavior == "loop" and node.config.get("to_node") in graph.by_key:
            return [node.config["to_node"]]
        return []

    def run(self, run, node, step):
        behavior = node.behavior
        if behavior in ("loop", "restart"):
            max_cycles = int(node.config.get("max_cycles") or 1)
            if run.ex.cycle >= max_cycles:
                return run.finish("complete", EndReason.MAX_CYCLES, EventType.COMPLETED)
            at = run.now + timedelta(seconds=delay_seconds(node.config.get("delay")))
            if behavior == "loop":
                target = run.graph.by_key[node.config["to_node"]]
                event = EventType.LOOPED
            else:
                target = run.graph.first_step()
                run.metadata = {}
                event = EventType.RESTARTED
            run.enter(target, at)
            run.events.append(
                PendingEvent(event, node.id, "", {"cycle": run.ex.cycle + 1, "at": at.isoformat()}, run.now)
            )
            return Outcome("wait", {"cycle": run.ex.cycle + 1})
        reason = EndReason.STOPPED if behavior == "stop" else EndReason.COMPLETED
        return run.finish("complete", reason, EventType.COMPLETED)
