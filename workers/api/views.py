"""Browser API: validate, call one service or selector, render. No business logic here."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response

from campaigns.api.serializers import CampaignOutput
from campaigns.platform.api.base import WorkspaceAPIView, takes_no_body
from campaigns.platform.api.schema import errors
from campaigns.platform.permissions import Perm
from workers import selectors
from workers.api.filters import AccountFilter, ActionConfigFilter, PlatformFilter, ProxyFilter, TaskFilter
from workers.api.serializers import (
    AccountInput,
    AccountOutput,
    AccountStatusInput,
    ActionConfigInput,
    ActionConfigOutput,
    BrowserCampaignUpdateInput,
    PlatformOutput,
    ProxyInput,
    ProxyOutput,
    StatisticsOutput,
    TaskOutput,
)
from workers.models import ActionConfig, BrowserAccount, BrowserTask, CampaignPlatform, Proxy
from workers.services import accounts, action_configs, campaigns, results


# --- accounts ---------------------------------------------------------------------
class AccountListApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_BROWSER
    filterset_class = AccountFilter
    serializer_class = AccountOutput
    queryset = BrowserAccount.objects.none()

    def scoped_queryset(self):
        return selectors.account_queryset(actor=self.actor)

    @extend_schema(operation_id="browser_accounts_list", responses={200: AccountOutput(many=True), **errors(400, 404)})
    def get(self, request):
        return self.paginated(self.filter_queryset(self.scoped_queryset()), AccountOutput)

    @extend_schema(
        operation_id="browser_accounts_create",
        description="Cookies are write-only: stored encrypted, never returned (`has_cookies` tells whether set).",
        request=AccountInput,
        responses={201: AccountOutput, **errors(400, 403, 404)},
    )
    def post(self, request):
        account = accounts.account_create(actor=self.actor, **self.body_input(AccountInput))
        return Response(AccountOutput(selectors.account_get(actor=self.actor, account_id=account.pk)).data, status=201)


class AccountDetailApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_BROWSER
    serializer_class = AccountOutput

    @extend_schema(operation_id="browser_accounts_retrieve", responses={200: AccountOutput, **errors(404)})
    def get(self, request, account_id: int):
        return Response(AccountOutput(selectors.account_get(actor=self.actor, account_id=account_id)).data)

    @extend_schema(
        operation_id="browser_accounts_update",
        description="Saving new cookies re-activates an expired session.",
        request=AccountInput(partial=True),
        responses={200: AccountOutput, **errors(400, 403, 404, 409)},
    )
    def patch(self, request, account_id: int):
        serializer = AccountInput(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        accounts.account_update(actor=self.actor, account_id=account_id, data=serializer.validated_data)
        return Response(AccountOutput(selectors.account_get(actor=self.actor, account_id=account_id)).data)

    @extend_schema(operation_id="browser_accounts_delete", responses={204: None, **errors(403, 404, 409)})
    @takes_no_body
    def delete(self, request, account_id: int):
        accounts.account_delete(actor=self.actor, account_id=account_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AccountStatusApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_BROWSER
    serializer_class = AccountOutput

    @extend_schema(
        operation_id="browser_accounts_status",
        request=AccountStatusInput,
        responses={200: AccountOutput, **errors(400, 403, 404, 409)},
    )
    def post(self, request, account_id: int):
        accounts.account_set_status(actor=self.actor, account_id=account_id, **self.body_input(AccountStatusInput))
        return Response(AccountOutput(selectors.account_get(actor=self.actor, account_id=account_id)).data)


# --- proxies ------------------------------------------------------------------------
class ProxyListApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_BROWSER
    filterset_class = ProxyFilter
    serializer_class = ProxyOutput
    queryset = Proxy.objects.none()

    def scoped_queryset(self):
        return selectors.proxy_queryset(actor=self.actor)

    @extend_schema(operation_id="browser_proxies_list", responses={200: ProxyOutput(many=True), **errors(400, 404)})
    def get(self, request):
        return self.paginated(self.filter_queryset(self.scoped_queryset()), ProxyOutput)

    @extend_schema(
        operation_id="browser_proxies_create",
        description="The password is write-only (stored encrypted). SOCKS5 with credentials is refused (Chromium).",
        request=ProxyInput,
        responses={201: ProxyOutput, **errors(400, 403)},
    )
    def post(self, request):
        proxy = accounts.proxy_create(actor=self.actor, **self.body_input(ProxyInput))
        return Response(
            ProxyOutput(selectors.proxy_get(actor=self.actor, proxy_id=proxy.pk), context={"actor": self.actor}).data,
            status=201,
        )


class ProxyDetailApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_BROWSER
    serializer_class = ProxyOutput

    @extend_schema(operation_id="browser_proxies_retrieve", responses={200: ProxyOutput, **errors(404)})
    def get(self, request, proxy_id: int):
        return Response(
            ProxyOutput(selectors.proxy_get(actor=self.actor, proxy_id=proxy_id), context={"actor": self.actor}).data
        )

    @extend_schema(
        operation_id="browser_proxies_update",
        request=ProxyInput(partial=True),
        responses={200: ProxyOutput, **errors(400, 403, 404)},
    )
    def patch(self, request, proxy_id: int):
        serializer = ProxyInput(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        accounts.proxy_update(actor=self.actor, proxy_id=proxy_id, data=serializer.validated_data)
        return Response(
            ProxyOutput(selectors.proxy_get(actor=self.actor, proxy_id=proxy_id), context={"actor": self.actor}).data
        )

    @extend_schema(operation_id="browser_proxies_delete", responses={204: None, **errors(403, 404, 409)})
    @takes_no_body
    def delete(self, request, proxy_id: int):
        accounts.proxy_delete(actor=self.actor, proxy_id=proxy_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ProxyResetApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_BROWSER
    serializer_class = ProxyOutput

    @extend_schema(
        operation_id="browser_proxies_reset",
        description="Back in rotation with a zero error score (after an admin checked it).",
        request=None,
        responses={200: ProxyOutput, **errors(403, 404)},
    )
    @takes_no_body
    def post(self, request, proxy_id: int):
        accounts.proxy_reset(actor=self.actor, proxy_id=proxy_id)
        return Response(
            ProxyOutput(selectors.proxy_get(actor=self.actor, proxy_id=proxy_id), context={"actor": self.actor}).data
        )


# --- action configs -------------------------------------------------------------------
class ActionConfigListApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_BROWSER
    filterset_class = ActionConfigFilter
    serializer_class = ActionConfigOutput
    queryset = ActionConfig.objects.none()

    def scoped_queryset(self):
        return selectors.action_config_queryset(actor=self.actor)

    @extend_schema(
        operation_id="browser_action_configs_list", responses={200: ActionConfigOutput(many=True), **errors(400, 404)}
    )
    def get(self, request):
        return self.paginated(self.filter_queryset(self.scoped_queryset()), ActionConfigOutput)

    @extend_schema(
        operation_id="browser_action_configs_create",
        request=ActionConfigInput,
        responses={201: ActionConfigOutput, **errors(400, 403, 409)},
    )
    def post(self, request):
        config = action_configs.action_config_create(actor=self.actor, **self.body_input(ActionConfigInput))
        return Response(ActionConfigOutput(config, context={"actor": self.actor}).data, status=201)


class ActionConfigDetailApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_BROWSER
    serializer_class = ActionConfigOutput

    @extend_schema(operation_id="browser_action_configs_retrieve", responses={200: ActionConfigOutput, **errors(404)})
    def get(self, request, config_id: int):
        config = selectors.action_config_get(actor=self.actor, config_id=config_id)
        return Response(ActionConfigOutput(config, context={"actor": self.actor}).data)

    @extend_schema(
        operation_id="browser_action_configs_update",
        request=ActionConfigInput(partial=True),
        responses={200: ActionConfigOutput, **errors(400, 403, 404, 409)},
    )
    def patch(self, request, config_id: int):
        serializer = ActionConfigInput(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        config = action_configs.action_config_update(
            actor=self.actor, config_id=config_id, data=serializer.validated_data
        )
        return Response(ActionConfigOutput(config, context={"actor": self.actor}).data)

    @extend_schema(operation_id="browser_action_configs_delete", responses={204: None, **errors(403, 404)})
    @takes_no_body
    def delete(self, request, config_id: int):
        action_configs.action_config_delete(actor=self.actor, config_id=config_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- tasks ----------------------------------------------------------------------------
class TaskListApi(WorkspaceAPIView):
    filterset_class = TaskFilter
    serializer_class = TaskOutput
    queryset = BrowserTask.objects.none()

    def scoped_queryset(self):
        return selectors.task_queryset(actor=self.actor)

    @extend_schema(operation_id="browser_tasks_list", responses={200: TaskOutput(many=True), **errors(400, 404)})
    def get(self, request):
        return self.paginated(self.filter_queryset(self.scoped_queryset()), TaskOutput)


class TaskDetailApi(WorkspaceAPIView):
    serializer_class = TaskOutput

    @extend_schema(operation_id="browser_tasks_retrieve", responses={200: TaskOutput, **errors(404)})
    def get(self, request, task_id: int):
        return Response(TaskOutput(selectors.task_get(actor=self.actor, task_id=task_id)).data)


class TaskScreenshotApi(WorkspaceAPIView):
    read_permission = Perm.VIEW_BROWSER_DETAILS  # not for viewers and operators

    @extend_schema(
        operation_id="browser_tasks_screenshot",
        description="The page as the worker saw it when the task failed (PNG). Owners, admins and managers only.",
        responses={(200, "image/png"): OpenApiTypes.BINARY, **errors(403, 404)},
    )
    def get(self, request, task_id: int):
        screenshot = selectors.task_screenshot(actor=self.actor, task_id=task_id)
        return HttpResponse(bytes(screenshot.png), content_type="image/png")


class TaskRetryApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = TaskOutput

    @extend_schema(
        operation_id="browser_tasks_retry",
        description="A FAILED task that was not replaced goes back to PENDING with a fresh attempt budget.",
        request=None,
        responses={200: TaskOutput, **errors(403, 404, 409)},
    )
    @takes_no_body
    def post(self, request, task_id: int):
        results.task_retry(actor=self.actor, task_id=task_id)
        return Response(TaskOutput(selectors.task_get(actor=self.actor, task_id=task_id)).data)


# --- platforms and statistics -------------------------------------------------------------
class PlatformListApi(WorkspaceAPIView):
    filterset_class = PlatformFilter
    serializer_class = PlatformOutput
    queryset = CampaignPlatform.objects.none()

    def scoped_queryset(self):
        return selectors.platform_queryset(actor=self.actor)

    @extend_schema(
        operation_id="browser_platforms_list",
        responses={200: PlatformOutput(many=True), **errors(400, 404)},
    )
    def get(self, request):
        return self.paginated(self.filter_queryset(self.scoped_queryset()), PlatformOutput)


class PlatformDetailApi(WorkspaceAPIView):
    serializer_class = PlatformOutput

    @extend_schema(operation_id="browser_platforms_retrieve", responses={200: PlatformOutput, **errors(404)})
    def get(self, request, platform_id: int):
        return Response(
            PlatformOutput(
                selectors.platform_get(actor=self.actor, platform_id=platform_id), context={"actor": self.actor}
            ).data
        )


class _PlatformTransitionApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = PlatformOutput
    transition = ""

    def post(self, request, platform_id: int):
        campaigns.platform_transition(actor=self.actor, platform_id=platform_id, transition=self.transition)
        return Response(
            PlatformOutput(
                selectors.platform_get(actor=self.actor, platform_id=platform_id), context={"actor": self.actor}
            ).data
        )


class PlatformPauseApi(_PlatformTransitionApi):
    transition = "pause"

    @extend_schema(
        operation_id="browser_platforms_pause",
        description="Stop dispatching this platform's tasks; tasks already with a worker finish.",
        request=None,
        responses={200: PlatformOutput, **errors(403, 404, 409)},
    )
    @takes_no_body
    def post(self, request, platform_id: int):
        return super().post(request, platform_id)


class PlatformResumeApi(_PlatformTransitionApi):
    transition = "resume"

    @extend_schema(
        operation_id="browser_platforms_resume",
        request=None,
        responses={200: PlatformOutput, **errors(403, 404, 409)},
    )
    @takes_no_body
    def post(self, request, platform_id: int):
        return super().post(request, platform_id)


class BrowserCampaignDetailApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = CampaignOutput

    @extend_schema(
        operation_id="browser_campaigns_update",
        description="Replace a draft's body (same rules as creation); anything but a draft → 409.",
        request=BrowserCampaignUpdateInput,
        responses={200: CampaignOutput, **errors(400, 403, 404, 409)},
    )
    def put(self, request, campaign_id: int):
        campaign = campaigns.browser_campaign_update(
            actor=self.actor, campaign_id=campaign_id, **self.body_input(BrowserCampaignUpdateInput)
        )
        return Response(CampaignOutput(campaign).data)


class CampaignStatisticsApi(WorkspaceAPIView):
    serializer_class = StatisticsOutput

    @extend_schema(
        operation_id="browser_campaign_statistics",
        description='Counters of a browser campaign ("87/100"); `?live=1` recounts now instead of the stored row.',
        parameters=[OpenApiParameter("live", bool, required=False)],
        responses={200: StatisticsOutput, **errors(404)},
    )
    def get(self, request, campaign_id: int):
        live = request.query_params.get("live") in {"1", "true", "yes"}
        return Response(
            StatisticsOutput(selectors.campaign_statistics(actor=self.actor, campaign_id=campaign_id, live=live)).data
        )
