"""Journey node types: one module per type, registered in ``NODE_TYPES``.

Adding a type: a module here (or in any app) with a ``NodeHandler`` subclass, and one
``NODE_TYPES.register(key, Handler())`` — for the built-ins in ``register_builtin_node_types`` below,
called from ``AutomationConfig.ready()``.
"""

from __future__ import annotations

from automation.engine.nodes.base import NODE_TYPES, NodeHandler

__all__ = ["NODE_TYPES", "NodeHandler", "node_ports", "node_type_choices", "register_builtin_node_types"]


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
