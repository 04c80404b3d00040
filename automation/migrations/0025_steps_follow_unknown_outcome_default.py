"""Action steps saved with the old schema default ``on_unknown_outcome: "continue"`` follow the workflow's default
(docs/journeys.md "Workflow-wide defaults", decision on existing steps).

The key is dropped wherever dropping it changes nothing today: the step's version (or template) has no
unknown-outcome default of its own, or its default is ``continue`` too — the engine then runs ``continue`` as
before, so no execution on any version behaves differently. A step whose version's default is ``hold`` keeps its
``continue`` (set against that default: a choice). From now on a new draft copied from these versions follows
whatever default the workflow gets. Published versions are rewritten too: what they run stays the same.
"""

from django.db import migrations

KEY, OLD_DEFAULT = "on_unknown_outcome", "continue"


def _follows(settings) -> bool:
    """Dropping a step's explicit ``continue`` under these settings leaves what it runs unchanged."""
    return (settings or {}).get(KEY) in (None, "", OLD_DEFAULT)


def forward(apps, schema_editor):
    WorkflowNode = apps.get_model("automation", "WorkflowNode")
    WorkflowTemplate = apps.get_model("automation", "WorkflowTemplate")
    nodes = WorkflowNode.objects.filter(type="action", **{f"config__{KEY}": OLD_DEFAULT}).select_related("version")
    changed = []
    for node in nodes.iterator(chunk_size=2000):
        if _follows(node.version.settings):
            node.config = {k: v for k, v in node.config.items() if k != KEY}
            changed.append(node)
    WorkflowNode.objects.bulk_update(changed, ["config"], batch_size=2000)  # no save(): versions may be published
    for template in WorkflowTemplate.objects.all().iterator(chunk_size=500):
        definition = template.definition if isinstance(template.definition, dict) else {}
        if not _follows(definition.get("settings")):
            continue
        touched = False
        for node in definition.get("nodes") or []:
            config = node.get("config") if isinstance(node, dict) else None
            if node.get("type") == "action" and isinstance(config, dict) and config.get(KEY) == OLD_DEFAULT:
                del config[KEY]
                touched = True
        if touched:
            WorkflowTemplate.objects.filter(pk=template.pk).update(definition=definition)


class Migration(migrations.Migration):
    dependencies = [("automation", "0024_journey_counts_live_steps")]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=False)]
