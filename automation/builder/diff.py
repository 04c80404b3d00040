"""Text diff between two versions of a workflow, step by step (node keys are stable across versions).

Each step is described as a few readable lines: its name, then its type's own (message texts, wait, rules,
end behaviour — ``Step.describe`` in the type's folder). A step present in both versions with different
lines is "changed" and its lines are compared word by word, so staff see exactly which words of a message
changed.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from automation.engine.graph import Graph, NodeSpec
from automation.engine.nodes import builder_step


def describe_node(node: NodeSpec) -> list[tuple[str, str]]:
    """(label, text) lines of one step, as the diff shows them (the type's own lines from its builder step)."""
    cfg = node.config if isinstance(node.config, dict) else {}
    lines = [("نام", node.name or "")]
    if not node.is_enabled:
        lines.append(("وضعیت", "غیرفعال"))
    step = builder_step(node.type)
    if step is not None:
        lines.extend(step.describe(node, cfg))
    return lines


@dataclass
class LineDiff:
    label: str
    old: str | None
    new: str | None
    words: list[tuple[str, str]] = field(default_factory=list)  # (equal|delete|insert, text)


@dataclass
class StepDiff:
    node_key: str
    name: str
    kind: str  # added | removed | changed
    lines: list[LineDiff]


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    a, b = old.split(), new.split()
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("equal", " ".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(("delete", " ".join(a[i1:i2])))
        if op in ("insert", "replace"):
            out.append(("insert", " ".join(b[j1:j2])))
    return out


def _lines(old: list[tuple[str, str]], new: list[tuple[str, str]]) -> list[LineDiff]:
    labels = list(dict.fromkeys([label for label, _ in old] + [label for label, _ in new]))
    out = []
    for label in labels:
        a = [text for lab, text in old if lab == label]
        b = [text for lab, text in new if lab == label]
        for i in range(max(len(a), len(b))):
            x, y = (a[i] if i < len(a) else None), (b[i] if i < len(b) else None)
            if x == y:
                continue
            out.append(LineDiff(label, x, y, word_diff(x or "", y or "") if x and y else []))
    return out


def version_diff(old: Graph, new: Graph) -> list[StepDiff]:
    """Steps added, removed or changed from ``old`` to ``new`` (in the new version's order)."""
    before = {n.node_key: n for n in old.nodes}
    after = {n.node_key: n for n in new.nodes}
    diffs: list[StepDiff] = []
    for key, node in after.items():
        if key not in before:
            lines = [LineDiff(label, None, text) for label, text in describe_node(node)]
            diffs.append(StepDiff(key, node.name or key, "added", lines))
            continue
        lines = _lines(describe_node(before[key]), describe_node(node))
        if lines:
            diffs.append(StepDiff(key, node.name or key, "changed", lines))
    for key, node in before.items():
        if key not in after:
            lines = [LineDiff(label, text, None) for label, text in describe_node(node)]
            diffs.append(StepDiff(key, node.name or key, "removed", lines))
    return diffs
