"""Journey node types: one folder per type, registered in ``NODE_TYPES``.

A type's folder (``automation/engine/nodes/<type>/``, or one in any app) holds ``handler.py`` (a
``NodeHandler``: ports, publish rules, the step the runner takes) and ``step.py`` (a builder ``Step``:
its card, editor template, form, summary and diff lines), the handler naming its step. Adding a type is
that folder and one ``NODE_TYPES.register(key, Handler())`` — for the built-ins in
``register_builtin_node_types`` below, called from ``AutomationConfig.ready()``.
"""

from __future__ import annotations

from automation.engine.nodes.base import NODE_TYPES, NodeHandler

__all__ = [
    "NODE_TYPES",
    "NodeHandler",
    "builder_step",
    "builder_steps",
    "node_ports",
    "node_type_choices",
    "register_builtin_node_types",
    "step_display_name",
    "step_type_label",
]


def register_builtin_node_types() -> None:
    from automation.engine.nodes.action import ActionNode
    from automation.engine.nodes.condition import ConditionNode
    from automation.engine.nodes.end import EndNode
    from automation.engine.nodes.start import StartNode
    from automation.engine.nodes.wait import WaitNode

    for handler in (StartNode(), ActionNode(), WaitNode(), ConditionNode(), EndNode()):
        NODE_TYPES.register(handler.key, handler)


def node_ports(node_type: str) -> frozenset[str]:
    """Outgoing ports a node of this type may connect (none for an unknown type)."""
    handler = NODE_TYPES.get(node_type)
    return handler.ports if handler else frozenset()


def node_type_choices() -> list[tuple[str, str]]:
    return [(key, handler.label) for key, handler in NODE_TYPES]


def builder_step(node_type: str):
    """The builder's step class of a node type (None: unknown, or a type the step list cannot draw)."""
    handler = NODE_TYPES.get(node_type)
    return handler.step if handler else None


def builder_steps() -> list:
    """Every registered type's builder step class, by type key."""
    return [handler.step for _, handler in NODE_TYPES if handler.step is not None]


def step_type_label(node_type: str, subtype: str = "") -> str:
    """A step's kind for people, in Persian, as its node type names it (an action step: the action's own label,
    ``پیامک``; else the type's, ``انتظار``); never the internal key."""
    handler = NODE_TYPES.get(node_type)
    return handler.kind_label(subtype) if handler else "گام"


def step_display_name(node_type: str, subtype: str = "", name: str = "") -> str:
    """How a step is named on pages: its title, else its kind (``انتظار``) — node keys stay internal."""
    return (name or "").strip() or step_type_label(node_type, subtype)
