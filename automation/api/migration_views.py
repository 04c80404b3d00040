"""Live edits over the API: dry run, commit and progress of moving executions to a new version."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from automation.api.migration_serializers import (
    MigrationCommitInput,
    MigrationPreviewOutput,
    MigrationVersionsInput,
    VersionMigrationOutput,
)
from automation.models import VersionMigration
from automation.services import version_migrations
from campaigns.platform.api.base import WorkspaceAPIView
from campaigns.platform.api.schema import errors
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import get_scoped


class MigrationPreviewApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    serializer_class = MigrationPreviewOutput

    @extend_schema(
        operation_id="workflows_migrations_preview",
        request=MigrationVersionsInput,
        responses={200: MigrationPreviewOutput, **errors(400, 403, 404, 409)},
        description="Dry run: the step diff, per old node the live executions standing there and the default "
        "choice (move to the node that kept its key, else stay), and whether only SMS texts changed. Writes nothing.",
    )
    def post(self, request, workflow_id: int):
        preview = version_migrations.version_migration_preview(
            actor=self.actor, workflow_id=workflow_id, **self.body_input(MigrationVersionsInput)
        )
        return Response(MigrationPreviewOutput(preview).data)


class MigrationCommitApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = VersionMigrationOutput

    @extend_schema(
        operation_id="workflows_migrations_commit",
        request=MigrationCommitInput,
        responses={200: VersionMigrationOutput, **errors(400, 403, 404, 409)},
        description="Move the old version's live executions as planned (stay / move / exit per old node). The "
        "same plan again answers the same migration and moves nobody twice. ≤ 300 move at once (`done`); more in "
        "the background (`running`, poll `processed`/`total`). 409 STALE_VERSION when `to_version_id` is no longer "
        "the published version.",
    )
    def post(self, request, workflow_id: int):
        migration = version_migrations.version_migration_commit(
            actor=self.actor, workflow_id=workflow_id, **self.body_input(MigrationCommitInput)
        )
        return Response(VersionMigrationOutput(migration).data)


class MigrationDetailApi(WorkspaceAPIView):
    serializer_class = VersionMigrationOutput

    @extend_schema(operation_id="workflow_migrations_retrieve", responses={200: VersionMigrationOutput, **errors(404)})
    def get(self, request, migration_id):
        """A migration and its progress (`processed` of `total`, `result`)."""
        migration = get_scoped(VersionMigration, self.actor.workspace, migration_id)
        return Response(VersionMigrationOutput(migration).data)
