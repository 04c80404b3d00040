"""The builder's side of a node type: the step the step-list builder draws, edits, compiles and compares.

A node type's folder (``automation/engine/nodes/<type>/``) holds its engine handler (``handler.py``) and
its builder step (``step.py``, a frozen dataclass extending ``Step``); the handler names the step
(``NodeHandler.step``), so the builder (``automation/builder``) finds every step through ``NODE_TYPES``
and has no list of types of its own. The ports a step may draw are the handler's ``ports``.

A step class declares:

- ``node_type`` (the handler's key), ``kind`` (CSS/test name of its card), ``label`` (badge) and, when
  staff may add it from the add-step menu, ``menu_label`` (``menu_order``, ``menu_at_end_only``);
- ``editor_template`` (the partial its editor form includes);
- ``branch_fields``: branch name (= the port it leaves by) → the field holding that branch's list;
  ``terminates``: whether it must close its list (a condition, an end);
- ``new`` (a fresh step for the menu), ``read`` (a graph node → the step and the key that follows it),
  ``summary`` (the card's line), ``describe`` (the version diff's lines) and ``from_form`` (its editor).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from automation.engine.graph import NodeSpec

JSON = dict[str, Any]


class SequenceError(ValueError):
    """A sequence that breaks the list rules (an end or condition not last, repeated keys, bad path)."""


UNITS = [("minutes", "دقیقه"), ("hours", "ساعت"), ("days", "روز"), ("weeks", "هفته")]
UNIT_LABELS = dict(UNITS)
_LATIN = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")

# read_list(key) → the steps of the list starting at ``key`` (None: an empty list).
ListReader = Callable[[str | None], tuple["Step", ...]]


def as_steps(value: Iterable[Step]) -> tuple[Step, ...]:
    return value if isinstance(value, tuple) else tuple(value)


def form_int(value: Any) -> int | None:
    """An integer typed in Latin, Persian or Arabic-Indic digits; None when it is not one."""
    text = str(value if value is not None else "").strip().translate(_LATIN)
    try:
        return int(text)
    except ValueError:
        return None


def form_text(data: Mapping, name: str, default: str = "") -> str:
    value = data.get(name)
    return default if value is None else str(value).replace("\r\n", "\n")


@dataclass(frozen=True)
class Step:
    """Base of the builder's step dataclasses: the fields every step has (``key``, ``name``, ``config``,
    ``enabled``); a step type adds its ``subtype`` (a field, or a property: an action's is its action) and
    its own fields, keyword-only (``@dataclass(frozen=True, kw_only=True)``; only ``key`` may be positional)."""

    key: str
    _: KW_ONLY
    name: str = ""
    config: JSON = field(default_factory=dict)
    enabled: bool = True

    node_type: ClassVar[str] = ""
    kind: ClassVar[str] = ""
    label: ClassVar[str] = ""
    menu_label: ClassVar[str] = ""  # "" = not offered by the add-step menu (the start, actions: per action)
    menu_order: ClassVar[int] = 100  # place in the menu, after the actions
    menu_at_end_only: ClassVar[bool] = False  # offered only where a list may end (an end)
    editor_template: ClassVar[str] = ""
    branch_fields: ClassVar[dict[str, str]] = {}
    terminates: ClassVar[bool] = False
    # Ports the engine reads as another (an action's ``success`` is its ``default``).
    port_aliases: ClassVar[dict[str, str]] = {}

    def branches(self) -> dict[str, tuple[Step, ...]]:
        """Branch name → its list, in the order the list shows them."""
        return {branch: getattr(self, name) for branch, name in self.branch_fields.items()}

    def drawn_branches(self) -> dict[str, tuple[Step, ...]]:
        """The branches a card shows (an action's failure branch only when it has one)."""
        return self.branches()

    def with_branch(self, branch: str, steps: tuple[Step, ...]) -> Step:
        return replace(self, **{self.branch_fields[branch]: steps})

    def adopt(self, following: tuple[Step, ...]) -> Step | None:
        """Inserted before ``following``: the step that takes them as a branch (a condition's "yes"), or None."""
        return None

    def kind_label(self) -> str:
        """The step's kind for people («انتظار»; an action step: its action's label, «پیامک»)."""
        from automation.engine.nodes import step_type_label

        return step_type_label(self.node_type, self.subtype)

    def card_title(self) -> str:
        """The step named for people: its title, else its kind — never its internal key."""
        return (self.name or "").strip() or self.kind_label()

    def badge(self) -> str:
        return self.label

    def editor(self) -> str:
        return self.editor_template

    def summary(self) -> str:
        return ""

    @classmethod
    def new(cls, key: str) -> Step:  # pragma: no cover - interface
        raise NotImplementedError

    @classmethod
    def new_at(cls, key: str, *, sequence: Any = None, at: tuple | None = None) -> Step:
        """A fresh step for place ``at`` of ``sequence`` (a ``WorkflowSequence``, None when unknown); a type
        whose defaults come from the journey around the place overrides it (a wait takes the journey's)."""
        return cls.new(key)

    @classmethod
    def read(cls, node: NodeSpec, common: JSON, ports: Mapping[str, str], read_list: ListReader):
        """(step, key of the next step in the same list or None) for a graph node of this type."""
        raise NotImplementedError  # pragma: no cover - interface

    @staticmethod
    def describe(node: NodeSpec, config: JSON) -> list[tuple[str, str]]:
        """(label, text) lines of the version diff, after the name and the enabled state."""
        return []

    def from_form(self, data: Mapping, *, name: str, enabled: bool, timezone: str) -> Step:
        """The edited step from its editor's fields (lenient: the validator says what is missing)."""
        return replace(self, name=name, enabled=enabled)
