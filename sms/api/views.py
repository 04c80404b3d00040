"""SMS API: message preview, blacklist (list/add/deactivate/reactivate/import/export), templates, attempt log."""

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from campaigns.platform.api.base import WorkspaceAPIView, takes_no_body
from campaigns.platform.api.pagination import HistoryPagination
from campaigns.platform.api.schema import errors
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import get_scoped, scoped
from campaigns.selectors import target_get, target_queryset
from sms import channel, frequency_cap, services
from sms.action import SendSmsAction
from sms.api.serializers import (
    BlacklistImportInput,
    BlacklistImportOutput,
    BlacklistInput,
    BlacklistOutput,
    SmsAccountOutput,
    SmsAttemptOutput,
    SmsPreviewInput,
    SmsPreviewOutput,
    SmsProviderOutput,
    SmsSettingsInput,
    SmsSettingsOutput,
    SmsTemplateInput,
    SmsTemplateOutput,
)
from sms.exports import blacklist_csv
from sms.filters import BlacklistFilter, SmsAttemptFilter
from sms.models import BlacklistEntry, SmsAttempt, SmsProviderAccount, SmsTemplate
from sms.providers import PROVIDERS, credential_fields
from sms.retention import retention_days


class PreviewApi(WorkspaceAPIView):
    serializer_class = SmsPreviewOutput

    @extend_schema(
        operation_id="sms_preview", request=SmsPreviewInput, responses={200: SmsPreviewOutput, **errors(400, 404)}
    )
    def post(self, request):
        """Render a message for a sample target (the given one, else the newest) with its segment count.

        Only targets the caller may see: an operator previews with their own targets (another's is 404).
        """
        data = self.body_input(SmsPreviewInput)
        if data["target_id"]:
            target = target_get(actor=self.actor, target_id=data["target_id"])
        else:
            target = target_queryset(actor=self.actor).first()
        config = {"body": data["body"], "on_missing_variable": data["on_missing_variable"]}
        return Response(SendSmsAction().preview(config, target))


class BlacklistListApi(WorkspaceAPIView):
    read_permission = Perm.MANAGE_BLACKLIST
    write_permission = Perm.MANAGE_BLACKLIST
    serializer_class = BlacklistOutput
    queryset = BlacklistEntry.objects.none()

    filterset_class = BlacklistFilter

    def scoped_queryset(self):
        return scoped(BlacklistEntry, self.actor.workspace)

    @extend_schema(
        operation_id="sms_blacklist_list", responses={200: BlacklistOutput(many=True), **errors(400, 403, 404)}
    )
    def get(self, request):
        return self.paginated(self.filter_queryset(self.scoped_queryset()), BlacklistOutput)

    @extend_schema(
        operation_id="sms_blacklist_add",
        request=BlacklistInput,
        responses={201: BlacklistOutput, **errors(400, 403, 404, 409)},
    )
    def post(self, request):
        entry = services.blacklist_add(actor=self.actor, **self.body_input(BlacklistInput))
        return Response(BlacklistOutput(entry).data, status=status.HTTP_201_CREATED)


class BlacklistDetailApi(WorkspaceAPIView):
    read_permission = Perm.MANAGE_BLACKLIST
    write_permission = Perm.MANAGE_BLACKLIST
    serializer_class = BlacklistOutput

    @extend_schema(operation_id="sms_blacklist_retrieve", responses={200: BlacklistOutput, **errors(403, 404)})
    def get(self, request, entry_id: int):
        return Response(BlacklistOutput(get_scoped(BlacklistEntry, self.actor.workspace, entry_id)).data)

    @extend_schema(operation_id="sms_blacklist_deactivate", responses={200: BlacklistOutput, **errors(403, 404)})
    @takes_no_body
    def delete(self, request, entry_id: int):
        """Delete = deactivate (history kept)."""
        return Response(BlacklistOutput(services.blacklist_deactivate(actor=self.actor, entry_id=entry_id)).data)


class BlacklistReactivateApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_BLACKLIST
    serializer_class = BlacklistOutput

    @extend_schema(
        operation_id="sms_blacklist_reactivate", request=None, responses={200: BlacklistOutput, **errors(403, 404)}
    )
    @takes_no_body
    def post(self, request, entry_id: int):
        return Response(BlacklistOutput(services.blacklist_reactivate(actor=self.actor, entry_id=entry_id)).data)


class BlacklistImportApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_BLACKLIST
    serializer_class = BlacklistImportOutput

    @extend_schema(
        operation_id="sms_blacklist_import",
        request=BlacklistImportInput,
        responses={200: BlacklistImportOutput, **errors(400, 403, 404)},
    )
    def post(self, request):
        return Response(services.blacklist_import(actor=self.actor, **self.body_input(BlacklistImportInput)))


class BlacklistExportApi(WorkspaceAPIView):
    read_permission = Perm.MANAGE_BLACKLIST

    @extend_schema(
        operation_id="sms_blacklist_export",
        responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY), **errors(403, 404)},
    )
    def get(self, request):
        response = StreamingHttpResponse(
            blacklist_csv(scoped(BlacklistEntry, self.actor.workspace), workspace=self.actor.workspace),
            content_type="text/csv; charset=utf-8",
        )
        response["Content-Disposition"] = 'attachment; filename="blacklist.csv"'
        return response


class SmsTemplateListApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    serializer_class = SmsTemplateOutput
    queryset = SmsTemplate.objects.none()

    def scoped_queryset(self):
        return scoped(SmsTemplate, self.actor.workspace)

    @extend_schema(operation_id="sms_templates_list", responses={200: SmsTemplateOutput(many=True), **errors(400, 404)})
    def get(self, request):
        return self.paginated(self.scoped_queryset(), SmsTemplateOutput)

    @extend_schema(
        operation_id="sms_templates_create",
        request=SmsTemplateInput,
        responses={201: SmsTemplateOutput, **errors(400, 403, 404)},
    )
    def post(self, request):
        template = services.sms_template_create(actor=self.actor, **self.body_input(SmsTemplateInput))
        return Response(SmsTemplateOutput(template).data, status=status.HTTP_201_CREATED)


class SmsTemplateDetailApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    serializer_class = SmsTemplateOutput

    @extend_schema(operation_id="sms_templates_retrieve", responses={200: SmsTemplateOutput, **errors(404)})
    def get(self, request, template_id: int):
        return Response(SmsTemplateOutput(get_scoped(SmsTemplate, self.actor.workspace, template_id)).data)

    @extend_schema(
        operation_id="sms_templates_update",
        request=SmsTemplateInput,
        responses={200: SmsTemplateOutput, **errors(400, 403, 404)},
    )
    def patch(self, request, template_id: int):
        serializer = SmsTemplateInput(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        template = services.sms_template_update(
            actor=self.actor, template_id=template_id, data=serializer.validated_data
        )
        return Response(SmsTemplateOutput(template).data)

    @extend_schema(operation_id="sms_templates_delete", responses={204: None, **errors(403, 404)})
    @takes_no_body
    def delete(self, request, template_id: int):
        services.sms_template_delete(actor=self.actor, template_id=template_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SmsAttemptListApi(WorkspaceAPIView):
    read_permission = Perm.VIEW_SMS_LOGS
    serializer_class = SmsAttemptOutput
    queryset = SmsAttempt.objects.none()
    pagination_class = HistoryPagination
    keyset_time_field, keyset_descending = "request_at", True

    filterset_class = SmsAttemptFilter

    def scoped_queryset(self):
        return scoped(SmsAttempt, self.actor.workspace)

    @extend_schema(
        operation_id="sms_attempts_list", responses={200: SmsAttemptOutput(many=True), **errors(400, 403, 404)}
    )
    def get(self, request):
        return self.paginated(self.filter_queryset(self.scoped_queryset()), SmsAttemptOutput)


class SmsAttemptDetailApi(WorkspaceAPIView):
    read_permission = Perm.VIEW_SMS_LOGS
    serializer_class = SmsAttemptOutput

    @extend_schema(operation_id="sms_attempts_retrieve", responses={200: SmsAttemptOutput, **errors(403, 404)})
    def get(self, request, attempt_id: int):
        return Response(SmsAttemptOutput(get_scoped(SmsAttempt, self.actor.workspace, attempt_id)).data)


def _settings_payload(settings) -> dict:
    workspace = settings.workspace
    return {
        "enabled": settings.enabled,
        "primary_account_id": settings.primary_account_id,
        "fallback_account_id": settings.fallback_account_id,
        "opt_out_text": settings.opt_out_text,
        "paused_until": settings.paused_until,
        "pause_reason": settings.pause_reason,
        "channel_problem": channel.channel_problem(settings.workspace_id),
        "webhook_path": f"/api/webhooks/sms/generic/{settings.webhook_token}",
        "notifications_email": bool((workspace.settings or {}).get("notifications_email", False)),
        "sms_retention_days": retention_days(workspace),
        "frequency_cap_rules": frequency_cap.rules_value(frequency_cap.rules_of(settings)),
        "frequency_cap_per_day": next(
            (r.limit for r in frequency_cap.rules_of(settings) if r.period == frequency_cap.DAY), 0
        ),
        "quiet_fridays": settings.quiet_fridays,
        "quiet_days": settings.quiet_days or [],
        "accounts": SmsAccountOutput(
            SmsProviderAccount.objects.filter(workspace_id=settings.workspace_id).order_by("name", "id"), many=True
        ).data,
    }


class SmsSettingsApi(WorkspaceAPIView):
    read_permission = Perm.MANAGE_WORKSPACE
    write_permission = Perm.MANAGE_WORKSPACE
    serializer_class = SmsSettingsOutput

    @extend_schema(operation_id="sms_settings_retrieve", responses={200: SmsSettingsOutput, **errors(403, 404)})
    def get(self, request):
        return Response(_settings_payload(channel.sms_settings(self.actor.workspace.id)))

    @extend_schema(
        operation_id="sms_settings_update",
        request=SmsSettingsInput,
        responses={200: SmsSettingsOutput, **errors(400, 403, 404)},
        description="Change only the settings sent (accounts: this workspace's own), as the SMS settings page does.",
    )
    def patch(self, request):
        data = self.body_input(SmsSettingsInput)
        return Response(_settings_payload(services.sms_settings_update(actor=self.actor, data=dict(data))))


def _settings_action_view(name: str, action, *, description: str):
    """A bodiless action on the workspace's SMS settings (``action(actor=…)`` → the settings), answered with
    the settings."""

    class SmsSettingsActionApi(WorkspaceAPIView):
        write_permission = Perm.MANAGE_WORKSPACE
        serializer_class = SmsSettingsOutput

        @extend_schema(
            operation_id=f"sms_settings_{name}",
            request=None,
            responses={200: SmsSettingsOutput, **errors(403, 404)},
            description=description,
        )
        @takes_no_body
        def post(self, request):
            return Response(_settings_payload(action(actor=self.actor)))

    SmsSettingsActionApi.__name__ = f"SmsSettings{name.title().replace('_', '')}Api"
    return SmsSettingsActionApi


SmsCircuitResumeApi = _settings_action_view(
    "resume",
    services.circuit_resume,
    description='"Fixed, resume": closes the circuit breaker now (audited).',
)
SmsWebhookRotateApi = _settings_action_view(
    "rotate_webhook",
    services.webhook_token_rotate,
    description="New webhook address: the old token stops working at once (audited).",
)


class SmsProviderListApi(WorkspaceAPIView):
    serializer_class = SmsProviderOutput
    queryset = SmsProviderAccount.objects.none()  # the kinds an account may have (for the schema generator)
    pagination_class = None  # a short fixed list: a plain array, as the schema says

    @extend_schema(operation_id="sms_providers_list", responses={200: SmsProviderOutput(many=True), **errors(404)})
    def get(self, request):
        """The registered provider kinds: label, what they can be asked, the fields of their credentials."""
        return Response(
            [
                {
                    "kind": p.kind,
                    "label": p.label or p.kind,
                    "status_by_local_id": p.status_by_local_id,
                    "status_by_message_id": p.status_by_message_id,
                    "credential_fields": credential_fields(p.kind),
                }
                for p in PROVIDERS.values()
            ]
        )
