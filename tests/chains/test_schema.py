"""Every groups/chains/approval endpoint is in the OpenAPI schema with its error responses."""

import pytest
from drf_spectacular.generators import SchemaGenerator

EXPECTED = {
    ("/api/v1/campaign-groups", "get"): {"400"},
    ("/api/v1/campaign-groups", "post"): {"400", "403", "409"},
    ("/api/v1/campaign-groups/{group_id}", "put"): {"400", "404", "409"},
    ("/api/v1/campaign-groups/{group_id}", "delete"): {"404", "409"},
    ("/api/v1/campaign-groups/{group_id}/campaigns", "post"): {"400", "404", "409"},
    ("/api/v1/campaign-groups/{group_id}/campaigns/{campaign_id}", "delete"): {"404", "409"},
    ("/api/v1/campaign-groups/{group_id}/campaigns/{campaign_id}/move", "post"): {"400", "404", "409"},
    ("/api/v1/campaign-groups/{group_id}/campaign-tree", "get"): {"404"},
    ("/api/v1/campaign-groups/{group_id}/inheritance-sources", "get"): {"404"},
    ("/api/v1/campaign", "post"): {"400", "409"},
    ("/api/v1/campaign/{campaign_id}", "put"): {"400", "404", "409"},
    ("/api/v1/campaign/{campaign_id}", "delete"): {"404", "409"},
    ("/api/v1/campaign/{campaign_id}/clone", "post"): {"400", "404"},
    ("/api/v1/campaign/inheritance/preview", "post"): {"400", "404"},
    ("/api/v1/campaign/{campaign_id}/submit", "post"): {"400", "404", "409"},
    ("/api/v1/campaign/{campaign_id}/approve", "post"): {"403", "404", "409"},
    ("/api/v1/campaign/{campaign_id}/reject", "post"): {"403", "404", "409"},
    ("/api/v1/campaign/{campaign_id}/chain/pause", "post"): {"404", "409"},
    ("/api/v1/campaign/{campaign_id}/chain/resume", "post"): {"404", "409"},
    ("/api/v1/campaign/{campaign_id}/chain/stop", "post"): {"404", "409"},
    ("/api/v1/campaign-chain-approvals/{package_id}", "get"): {"404"},
    ("/api/v1/campaign-chain-approvals/{package_id}/approve", "post"): {"403", "404", "409"},
    ("/api/v1/campaign-chain-approvals/{package_id}/reject", "post"): {"403", "404", "409"},
    ("/api/v1/campaign-chain-approvals/{package_id}/withdraw", "post"): {"404", "409"},
}


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


@pytest.mark.parametrize(("path", "method"), sorted(EXPECTED))
def test_endpoint_documented_with_errors(schema, path, method):
    operation = schema["paths"][path][method]
    assert EXPECTED[(path, method)] <= set(operation["responses"])
    assert any(code.startswith("2") for code in operation["responses"])
