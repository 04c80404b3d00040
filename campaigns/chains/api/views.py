"""Chain and approval endpoints (/api/v1/campaign…, /api/v1/campaign-chain-approvals…)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response

from campaigns.approval_selectors import approver_ids
from campaigns.chains import selectors
from campaigns.chains.api.serializers import (
    AudienceCountInput,
    AudienceCountOutput,
    ChainCampaignCreateInput,
    ChainCampaignOutput,
    ChainCampaignUpdateInput,
    CloneInput,
    CloneOutput,
    ExpectedChainRevisionInput,
    OptionalChainRevisionInput,
    PackageDecisionInput,
    PackageOutput,
    PackageRejectInput,
    PreviewInput,
    PreviewOutput,
    RootPreviewInput,
    RootPreviewOutput,
    SubmitOutput,
)
from campaigns.chains.audience import audience_preview
from campaigns.chains.choices import PackageStatus
from campaigns.chains.node_models import ChainNode
from campaigns.chains.nodes import node_get
from campaigns.chains.preview import inheritance_preview, root_preview
from campaigns.chains.services import approval, chains
from campaigns.platform.api.base import WorkspaceAPIView
from campaigns.platform.api.schema import errors, launch_errors
from campaigns.platform.permissions import Perm


def _campaign_out(actor, campaign_id) -> dict:
    return ChainCampaignOutput(node_get(actor.workspace, campaign_id)).data


def _package_out(actor, package, warnings=None) -> dict:
    package.is_current = ChainNode.objects.filter(pk=package.root_id, approval_package_id=package.id).exists()
    package.warnings = warnings if warnings is not None else approval.package_warnings(actor, package)
    package.problems = approval.package_problems(actor, package)
    pending = package.status == PackageStatus.SUBMITTED
    package.approver_ids = (
        approver_ids(actor.workspace, submitter_id=package.submitted_by_id, bound_four_eyes=package.four_eyes)
        if pending
        else []
    )
    return PackageOutput(package).data


class ChainCampaignCreateApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS

    @extend_schema(
        operation_id="chain_campaign_create",
        description="Create a campaign with group/chain fields (a child needs parent_campaign_id, "
        "expected_chain_revision and inheritance; root/independent campaigns may carry `when` and `goal`).",
        request=ChainCampaignCreateInput,
        responses={201: ChainCampaignOutput, **errors(400, 403, 404, 409)},
    )
    def post(self, request):
        campaign = chains.chain_campaign_create(actor=self.actor, **self.body_input(ChainCampaignCreateInput))
        return Response(_campaign_out(self.actor, campaign.id), status=status.HTTP_201_CREATED)


class ChainCampaignDetailApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS

    @extend_schema(operation_id="chain_campaign_retrieve", responses={200: ChainCampaignOutput, **errors(404)})
    def get(self, request, campaign_id: int):
        return Response(_campaign_out(self.actor, campaign_id))

    @extend_schema(
        operation_id="chain_campaign_update",
        description="Edit chain config or change the source (re-parent). A change that makes other campaigns "
        "invalid answers 409 AFFECTED_CAMPAIGNS with `affected_campaigns`; repeat with accept_affected=true.",
        request=ChainCampaignUpdateInput,
        responses={200: ChainCampaignOutput, **errors(400, 403, 404, 409)},
    )
    def put(self, request, campaign_id: int):
        node_get(self.actor.workspace, campaign_id)
        serializer = ChainCampaignUpdateInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        control = {
            k: data.pop(k)
            for k in ("expected_chain_revision", "expected_target_chain_revision", "accept_affected")
            if k in data
        }
        data = {k: v for k, v in data.items() if k in serializer.initial_data}
        chains.chain_campaign_update(actor=self.actor, campaign_id=campaign_id, data=data, **control)
        return Response(_campaign_out(self.actor, campaign_id))

    @extend_schema(
        operation_id="chain_campaign_delete",
        request=OptionalChainRevisionInput,
        parameters=[OpenApiParameter("expected_chain_revision", int, required=False)],
        responses={204: None, **errors(400, 403, 404, 409)},
    )
    def delete(self, request, campaign_id: int):
        node_get(self.actor.workspace, campaign_id)
        given = self.body_or_query_input(OptionalChainRevisionInput)
        chains.chain_campaign_delete(
            actor=self.actor, campaign_id=campaign_id, expected_chain_revision=given.get("expected_chain_revision")
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChainCampaignCloneApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS

    @extend_schema(
        operation_id="chain_campaign_clone",
        request=CloneInput,
        responses={201: CloneOutput, **errors(400, 403, 404, 409)},
    )
    def post(self, request, campaign_id: int):
        node_get(self.actor.workspace, campaign_id)  # another workspace's campaign: 404 before the body
        copy, id_map = chains.chain_campaign_clone(
            actor=self.actor,
            campaign_id=campaign_id,
            campaign_group_id=self.body_input(CloneInput).get("campaign_group_id"),
        )
        body = {"campaign": _campaign_out(self.actor, copy.id), "id_map": {str(k): v for k, v in id_map.items()}}
        return Response(body, status=status.HTTP_201_CREATED)


class InheritancePreviewApi(WorkspaceAPIView):
    @extend_schema(
        operation_id="chain_inheritance_preview",
        request=PreviewInput,
        responses={200: PreviewOutput, **errors(400, 404)},
    )
    def post(self, request):
        result = inheritance_preview(actor=self.actor, **self.body_input(PreviewInput))
        return Response(PreviewOutput(result).data)


class RootPreviewApi(WorkspaceAPIView):
    @extend_schema(
        operation_id="chain_root_preview",
        description="A root's next run times for a schedule being typed (`when`, the chain campaign's format; "
        "nothing saved), each opening a period, in the workspace's time zone and calendar — what the root form "
        "shows. Schedule mistakes come back in `errors` by field.",
        request=RootPreviewInput,
        responses={200: RootPreviewOutput, **errors(400)},
    )
    def post(self, request):
        data = self.body_input(RootPreviewInput)
        result = root_preview(actor=self.actor, when=data.get("when"), count=data["runs"])
        return Response(RootPreviewOutput(result).data)


class AudienceCountApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS

    @extend_schema(
        operation_id="chain_audience_count",
        description="The live size of a root audience (a target list narrowed by the targets page's filters) "
        "before saving it: the same query a root run freezes.",
        request=AudienceCountInput,
        responses={200: AudienceCountOutput, **errors(400, 403)},
    )
    def post(self, request):
        return Response(
            AudienceCountOutput(audience_preview(actor=self.actor, **self.body_input(AudienceCountInput))).data
        )


class CampaignSubmitApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS

    @extend_schema(
        operation_id="campaign_submit",
        description="A chain member submits its whole chain as one package (expected_chain_revision required); "
        "a standalone campaign is submitted for single approval when the workspace requires approval.",
        request=OptionalChainRevisionInput,
        responses={200: SubmitOutput, **errors(400, 403, 404, 409)},
    )
    def post(self, request, campaign_id: int):
        node_get(self.actor.workspace, campaign_id)
        campaign, package = approval.campaign_submit(
            actor=self.actor,
            campaign_id=campaign_id,
            expected_chain_revision=self.body_input(OptionalChainRevisionInput).get("expected_chain_revision"),
        )
        return Response(
            {
                "campaign": _campaign_out(self.actor, campaign.id),
                "package": _package_out(self.actor, package) if package else None,
            }
        )


def _control_view(action: str):
    class ChainControlApi(WorkspaceAPIView):
        write_permission = Perm.MANAGE_CAMPAIGNS

        @extend_schema(
            operation_id=f"chain_{action}",
            request=ExpectedChainRevisionInput,
            responses={200: ChainCampaignOutput, **errors(400, 403, 404, 409)},
        )
        def post(self, request, campaign_id: int):
            node_get(self.actor.workspace, campaign_id)
            approval.chain_control_set(
                actor=self.actor, campaign_id=campaign_id, action=action, **self.body_input(ExpectedChainRevisionInput)
            )
            return Response(_campaign_out(self.actor, campaign_id))

    ChainControlApi.__name__ = f"Chain{action.title()}Api"
    return ChainControlApi


ChainPauseApi = _control_view("pause")
ChainResumeApi = _control_view("resume")
ChainStopApi = _control_view("stop")


class PackageDetailApi(WorkspaceAPIView):
    @extend_schema(operation_id="chain_approval_retrieve", responses={200: PackageOutput, **errors(404)})
    def get(self, request, package_id: int):
        return Response(_package_out(self.actor, selectors.package_get(actor=self.actor, package_id=package_id)))


def _decision_view(name: str, decide, input_serializer, permission: str, *, description: str = "", failures=errors):
    """A package decision: the package found in the workspace first (404), then ``decide`` → (package, warnings)."""

    class PackageDecisionApi(WorkspaceAPIView):
        write_permission = permission

        @extend_schema(
            operation_id=f"chain_approval_{name}",
            description=description or None,
            request=input_serializer,
            responses={200: PackageOutput, **failures(400, 403, 404, 409)},
        )
        def post(self, request, package_id: int):
            selectors.package_get(actor=self.actor, package_id=package_id)
            package, warnings = decide(actor=self.actor, package_id=package_id, **self.body_input(input_serializer))
            return Response(_package_out(self.actor, package, warnings))

    PackageDecisionApi.__name__ = f"Package{name.title()}Api"
    return PackageDecisionApi


PackageApproveApi = _decision_view(
    "approve",
    lambda **kw: approval.package_approve(**kw),
    PackageDecisionInput,
    Perm.APPROVE_CHAINS,
    description="Approve the package; refused while its launch check (`…/launch-check`) has blockers "
    "(409 LAUNCH_BLOCKED, details.blockers).",
    failures=launch_errors,
)
PackageRejectApi = _decision_view(
    "reject", lambda **kw: (approval.package_reject(**kw), []), PackageRejectInput, Perm.APPROVE_CHAINS
)
PackageWithdrawApi = _decision_view(
    "withdraw", lambda **kw: (approval.package_withdraw(**kw), []), PackageDecisionInput, Perm.MANAGE_CAMPAIGNS
)
