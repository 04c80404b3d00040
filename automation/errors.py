"""Engine errors (subclasses of campaigns.errors.PlatformError)."""

from campaigns.errors import Conflict, ValidationFailed  # noqa: F401  (re-exported for engine code)
