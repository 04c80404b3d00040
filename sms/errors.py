"""SMS errors with stable codes and Persian messages."""

from campaigns.platform.errors import Conflict, ValidationFailed


class InvalidNumber(ValidationFailed):
    code = "INVALID_NUMBER"
    default_message = "شماره معتبر نیست."
    english = "The number is not valid."


class AlreadyBlacklisted(Conflict):
    code = "ALREADY_BLACKLISTED"
    default_message = "این شماره از قبل در لیست سیاه فعال است."
    english = "This number is already on the active blacklist."
