"""Engine reads; every query starts from ``campaigns.tenancy.scoped``."""

from campaigns.models import Workspace
from campaigns.tenancy import scoped

from .models import Workflow


def workflow_count(*, workspace: Workspace) -> int:
    return scoped(Workflow, workspace).count()
