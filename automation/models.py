"""Workflow engine models. The engine issue adds versions, nodes, edges and executions."""

from django.conf import settings
from django.db import models

from campaigns.models import TimeStamped, Workspace, WorkspaceQuerySet


class Workflow(TimeStamped):
    """A named journey graph; its versions hold the nodes and edges."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="workflows")
    name = models.CharField("نام", max_length=200)
    description = models.TextField("توضیحات", blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    deleted_at = models.DateTimeField("حذف", null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "گردش‌کار"
        verbose_name_plural = "گردش‌کارها"

    def __str__(self) -> str:
        return self.name
