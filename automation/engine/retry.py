"""Retry strategies: fixed and exponential (doubling, min 1 min, max 24 h)."""

from typing import Any

from automation.choices import OnExhausted
from automation.engine.registry import RETRY_STRATEGIES, RetryStrategy

MIN_DELAY = 60
MAX_DELAY = 24 * 3600


def _clamp(seconds: float) -> int:
    return int(max(MIN_DELAY, min(MAX_DELAY, seconds)))


class FixedRetry(RetryStrategy):
    key = "fixed"
    label = "فاصله ثابت"

    def delay_seconds(self, retry_number: int, config: dict[str, Any]) -> int:
        return _clamp(config.get("interval_seconds", 900))


class ExponentialRetry(RetryStrategy):
    key = "exponential"
    label = "فاصله دوبرابرشونده"

    def delay_seconds(self, retry_number: int, config: dict[str, Any]) -> int:
        base = config.get("interval_seconds", 900)
        return _clamp(base * (2 ** max(0, retry_number - 1)))


def register_builtin_strategies() -> None:
    RETRY_STRATEGIES.register(FixedRetry.key, FixedRetry())
    RETRY_STRATEGIES.register(ExponentialRetry.key, ExponentialRetry())


def retry_config_errors(retry: Any) -> list[str]:
    if retry in (None, {}):
        return []
    if not isinstance(retry, dict):
        return ["تنظیمات تلاش دوباره نامعتبر است."]
    errors = []
    if retry.get("strategy", "fixed") not in RETRY_STRATEGIES:
        errors.append("راهبرد تلاش دوباره ناشناخته است.")
    attempts = retry.get("max_attempts", 0)
    if not isinstance(attempts, int) or not 0 <= attempts <= 10:
        errors.append("تعداد تلاش دوباره باید بین ۰ و ۱۰ باشد.")
    if retry.get("on_exhausted", OnExhausted.FAIL) not in OnExhausted.values:
        errors.append("رفتار پس از پایان تلاش‌ها نامعتبر است.")
    interval = retry.get("interval_seconds", 900)
    if not isinstance(interval, int) or interval < MIN_DELAY or interval > MAX_DELAY:
        errors.append("فاصله تلاش دوباره باید بین ۱ دقیقه و ۲۴ ساعت باشد.")
    return errors
