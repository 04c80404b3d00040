"""Admin for groups, chains (tree on the change page) and approval packages (read-only snapshot).

Found by Django's admin autodiscovery (``campaigns.chains`` is an installed app); the run admins come
with it (``campaigns.chains.runs.admin``).
"""

import json

from django.contrib import admin
from django.db.models import F
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html

from campaigns.chains.models import CampaignChain, CampaignGroup, ChainApprovalPackage
from campaigns.chains.node_models import ChainNode
from campaigns.chains.tree import children_map
from campaigns.platform.admin import ReadOnlyAdmin, WorkspaceScopedAdmin
from campaigns.platform.permissions import Perm


@admin.register(CampaignGroup)
class CampaignGroupAdmin(WorkspaceScopedAdmin):
    manage_perm = Perm.MANAGE_CAMPAIGNS
    list_display = ("name", "workspace", "status", "revision", "created_jalali")
    list_filter = ("status", "workspace")
    search_fields = ("name", "name_search", "description")
    # status (delete = archive) and revision change only through the group services
    readonly_fields = (
        "status",
        "name_key",
        "name_search",
        "revision",
        "created_by",
        "updated_by",
        "created_at",
        "updated_at",
    )

    def has_delete_permission(self, request, obj=None):
        return False  # deleting a group is the service's archive (refused while chains run)

    def save_model(self, request, obj, form, change):
        from campaigns.chains.text import name_key, search_text

        obj.name_key, obj.name_search = name_key(obj.name), search_text(obj.name)
        if not change:
            obj.created_by = request.user
        obj.updated_by = request.user
        super().save_model(request, obj, form, change)


def chain_tree_html(root: ChainNode) -> str:
    nodes = list(ChainNode.objects.filter(root_id=root.id, deleted_at__isnull=True).order_by("id")) or [root]
    kids = children_map(nodes)

    def build(node):
        inheritance = node.inheritance or {}
        return {
            "id": node.id,
            "name": node.name,
            "url": reverse("admin:chains_campaignchain_change", args=[root.id])
            if node.id == root.id
            else reverse("admin:campaigns_campaign_change", args=[node.id]),
            "status_display": node.get_status_display(),
            "inheritance": " / ".join(
                str(x) for x in (inheritance.get("type"), (inheritance.get("schedule") or {}).get("type")) if x
            ),
            "needs_review": node.needs_review,
            "reasons": [r.get("code", "") for r in node.needs_review_reasons or []],
            "children": [build(c) for c in kids.get(node.id, [])],
        }

    return render_to_string("chains/admin_tree.html", {"nodes": [build(n) for n in kids.get(None, [])]})


@admin.register(CampaignChain)
class CampaignChainAdmin(WorkspaceScopedAdmin):
    manage_perm = Perm.MANAGE_CAMPAIGNS
    list_display = ("name", "workspace", "status", "group", "chain_control", "chain_revision", "created_jalali")
    list_filter = ("status", "chain_control", "workspace")
    search_fields = ("name",)
    fields = ("name", "workspace", "group", "status", "chain_control", "chain_revision", "approval_package", "tree")
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).filter(root_id=F("pk")).select_related("workspace", "group")

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="درخت زنجیره")
    def tree(self, obj):
        return chain_tree_html(obj)


@admin.register(ChainNode)
class ChainNodeAdmin(ReadOnlyAdmin):
    """Every campaign's place in a group and a chain (roots, follow-ups, loose members), read-only: chains change
    on their pages and through their services."""

    list_display = ("name", "workspace", "group", "parent", "root", "chain_control", "created_jalali")
    list_filter = ("chain_control", "workspace")
    search_fields = ("name",)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("workspace", "group", "parent", "root")


@admin.register(ChainApprovalPackage)
class ChainApprovalPackageAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "workspace", "root", "status", "submitted_revision", "submitted_by", "created_jalali")
    list_filter = ("status", "workspace")
    search_fields = ("root__name", "reason")
    readonly_fields = (
        "workspace",
        "root",
        "submitted_revision",
        "status",
        "snapshot",
        "submitted_at",
        "submitted_by",
        "decided_at",
        "decided_by",
        "reason",
        "created_at",
        "updated_at",
    )
    exclude = ("items",)

    @admin.display(description="اقلام (snapshot)")
    def snapshot(self, obj):
        return format_html(
            '<pre dir="ltr" style="max-height:40em;overflow:auto">{}</pre>',
            json.dumps(obj.items, ensure_ascii=False, indent=2),
        )


from campaigns.chains.runs import admin as _runs_admin  # noqa: E402,F401  (runs, frozen audiences, conversions)
