"""The SMS channel's part of a launch check (``SendSmsAction.launch_facts``): who of the audience the channel
will not reach and why, what the sends cost against the account's last known credit, how fast the account
may send, and what the provider would refuse halfway (docs/sms.md "Launch check"). Reads only.

Counts are bounded: every reason and the operators' shares are counted among the audience's sample
(``campaigns.platform.counts.AudienceSample``: 2,000 targets spread over its ids, read by id), with one indexed
lookup of their numbers per kept set (blacklist, operators' blocks, frequency counts at a rule's cap); exact for an
audience that small, else scaled to the audience and said as an estimate («حدود …»).
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from campaigns.models import Target
from campaigns.platform.bulk import texts_match
from campaigns.platform.counts import AudienceSample, shared_read
from sms import channel, filtered_words, frequency_cap, quiet_days, telecom_blocks
from sms.choices import BlacklistSource, CreditUnit, LineKind, Operator
from sms.lint import lint_text
from sms.models import BlacklistEntry, SmsProviderAccount, SmsSettings, credit_amount_text
from sms.operators import operator_of, part_price
from sms.providers import provider_for

OPT_OUT_SOURCES = (BlacklistSource.REPLY, BlacklistSource.OPT_OUT)

BLOCKER_MESSAGES = {
    "no_account": "حساب پیامک قابل استفاده‌ای برای این کمپین نیست (تنظیمات ← پیامک).",
    "credit_below_cost": "اعتبار حساب پیامک از هزینه برآوردی این ارسال کمتر است.",
    "opt_out_missing": "خط تبلیغاتی بدون سطر «{opt_out}» به چند شماره نمی‌فرستد (گام «{step}»).",
    "link_not_allowed": "این حساب اجازه ارسال پیوند ندارد و متن گام «{step}» پیوند دارد.",
    "filtered_word": "متن گام «{step}» کلمه‌ای از فهرست کلمه‌های فیلترشدهٔ حساب دارد ({words})؛ "
    "سرویس‌دهنده آن را رد می‌کند.",
}
# ``credit_below_cost`` of a credit counted in messages (Melipayamak), weighed against the parts the sends need.
CREDIT_BELOW_PARTS = "اعتبار حساب پیامک ({credit}) از شمار پیامک‌های لازم این ارسال ({parts}) کمتر است."
WARNING_MESSAGES = {
    "credit_unknown": "اعتبار حساب پیامک هنوز خوانده نشده است؛ هزینه با اعتبار سنجیده نشد.",
    "frequency_cap_high": "بیش از ۱۰٪ مخاطبان به سقف پیامک تبلیغاتی (روز، هفته یا ماه) رسیده‌اند؛ پیامشان {what}.",
}
CAP_SHARE = 0.10  # a cap that holds back more than this share of the audience is a warning
PROBE = 2_000  # a kept set of numbers (blacklist, blocks, at the cap) this small is driven from: counted exactly


@dataclass
class StepText:
    """One SMS step as the check reads it (title, parts of its text for a sample target, link, opt-out line)."""

    title: str
    parts: int
    has_link: bool
    has_opt_out: bool
    account: SmsProviderAccount | None
    filtered: list[str] = field(default_factory=list)  # the account's filtered words in the text


@dataclass
class SmsLaunchFacts:
    exclusions: dict[str, dict[str, Any]]
    steps: list[StepText]
    account: SmsProviderAccount | None
    operators: dict[str, int]
    operators_estimated: bool
    receivers: int
    messages: int
    cost: int
    parts: int = 0  # message parts of every send step (receivers × parts): what a credit in messages pays
    blockers: list[dict[str, str]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    quiet_day: Any = None  # ``date → bool`` when a step advertises and the workspace keeps quiet days
    # People of the audience at the cap whose steps wait: the start of the period that frees the last of them (the
    # finish estimate is not earlier).
    frees_at: datetime | None = None
    frequency_cap_on: bool = False  # some rule of the workspace's frequency cap is on (a campaign's priority counts)

    @property
    def rate_per_minute(self) -> int | None:
        """Messages per minute the account's limits allow (None: no limit); a request carries up to the
        provider's batch of receptors, each message part counts against messages per minute."""
        account = self.account
        if account is None:
            return None
        provider = provider_for(account.provider)
        parts = max(1, max((s.parts for s in self.steps), default=1))
        rates = []
        if account.max_messages_per_minute:
            rates.append(max(1, account.max_messages_per_minute // parts))
        if account.max_requests_per_second:
            rates.append(account.max_requests_per_second * 60 * (provider.batch_size if provider else 1))
        return min(rates) if rates else None

    def as_dict(self) -> dict[str, Any]:
        account = self.account
        return {
            "exclusions": self.exclusions,
            "messages": self.messages,
            "rate_per_minute": self.rate_per_minute,
            "blockers": self.blockers,
            "warnings": self.warnings,
            "quiet_day": self.quiet_day,
            "frees_at": self.frees_at,
            "frequency_cap_on": self.frequency_cap_on,
            "details": {
                "channel": "sms",
                "account": None
                if account is None
                else {
                    "id": account.id,
                    "name": account.name,
                    "provider": account.provider,
                    "line_kind": account.line_kind,
                    "links_allowed": account.links_allowed,
                    "credit": account.credit,
                    "credit_unit": account.credit_in,
                    "credit_text": account.credit_text,
                    "credit_checked_at": account.credit_checked_at,
                    "prices_checked_at": account.prices_checked_at,
                },
                "steps": [
                    {
                        "title": s.title,
                        "parts": s.parts,
                        "has_link": s.has_link,
                        "has_opt_out": s.has_opt_out,
                        "filtered_words": s.filtered,
                    }
                    for s in self.steps
                ],
                "operators": [
                    {
                        "operator": op,
                        "label": Operator(op).label,
                        "receivers": n,
                        **_priced(account, op),
                    }
                    for op, n in self.operators.items()
                ],
                "operators_estimated": self.operators_estimated,
                "cost": self.cost,
                "parts": self.parts,
            },
        }


def _priced(account: SmsProviderAccount | None, operator: str) -> dict[str, Any]:
    """An operator's price of one part and where it comes from (``provider`` / ``typed``; docs/sms.md)."""
    if account is None:
        return {"price": 0, "price_source": "typed"}
    price, source = part_price(account, operator)
    return {"price": price, "price_source": source}


def reason_filters(
    workspace_id: int, *, advertising: bool, frequency: tuple[list, date, bool, str] | None = None
) -> dict[str, Callable[[QuerySet], QuerySet]]:
    """Per reason, the filter of a target queryset to those it keeps from a message — disjoint, in the order a
    send meets them: no mobile, blacklisted (staff, imports, …), opted out by keyword, blocked by the operators for
    advertising (advertising lines only), already at the frequency cap of some rule today (advertising lines, a cap
    set: ``frequency`` = (rules, day, the steps skip, the campaign's priority)). The counts and the list of people
    behind a count use them."""
    entries = BlacklistEntry.objects.filter(workspace_id=workspace_id, channel="sms", is_active=True)
    listed = entries.values("value")
    opt_out = entries.filter(source__in=OPT_OUT_SOURCES).values("value")
    other = entries.exclude(source__in=OPT_OUT_SOURCES).values("value")
    blocked = telecom_blocks.blocked_values(workspace_id)
    filters: dict[str, Callable[[QuerySet], QuerySet]] = {
        "no_mobile": lambda qs: qs.filter(Q(mobile__isnull=True) | Q(mobile="")),
        "blacklisted": lambda qs: qs.filter(mobile__in=other),
        "opt_out": lambda qs: qs.filter(mobile__in=opt_out),
    }
    if advertising:
        filters["telecom_blocked"] = lambda qs: qs.filter(mobile__in=blocked).exclude(mobile__in=listed)
        if frequency is not None:
            rules, day, _, priority = frequency
            at_cap = frequency_cap.capped_values(workspace_id, day=day, rules=rules, priority=priority)
            filters["frequency_cap"] = lambda qs: (
                qs.filter(mobile__in=at_cap).exclude(mobile__in=listed).exclude(mobile__in=blocked)
            )
    return filters


def _looked_up(workspace_id: int, numbers: list[str], *, advertising: bool, frequency) -> dict[str, Any]:
    """What the workspace keeps about ``numbers`` (sorted), one indexed query each (their blacklist entries, the
    operators' blocks, the frequency counts at a rule's cap); shared by a package's members."""

    def read() -> dict[str, Any]:
        found: dict[str, Any] = {"listed": {}, "blocked": set(), "at_cap": set()}
        if not numbers:
            return found
        entries = BlacklistEntry.objects.filter(workspace_id=workspace_id, channel="sms", is_active=True)
        found["listed"] = dict(entries.filter(texts_match("value", numbers)).order_by().values_list("value", "source"))
        if advertising:
            found["blocked"] = telecom_blocks.blocked_numbers(workspace_id, numbers)
            if frequency is not None:
                rules, day, _, priority = frequency
                at_cap = frequency_cap.capped_values(workspace_id, day=day, rules=rules, priority=priority)
                found["at_cap"] = set(
                    at_cap.filter(texts_match("phone", numbers)).order_by().values_list("phone", flat=True)
                )
        return found

    key = ("sms-lookups", workspace_id, advertising, repr(frequency) if frequency else None, tuple(numbers))
    return shared_read(key, read)


def _reason_of(mobile: str | None, found: dict[str, Any]) -> str | None:
    """The first reason (``reason_filters``' order) that keeps a message from ``mobile``, or None: it is sent."""
    if not mobile:
        return "no_mobile"
    source = found["listed"].get(mobile)
    if source is not None:
        return "opt_out" if source in OPT_OUT_SOURCES else "blacklisted"
    if mobile in found["blocked"]:
        return "telecom_blocked"
    if mobile in found["at_cap"]:
        return "frequency_cap"
    return None


def _kept_small(workspace_id: int, *, advertising: bool, frequency) -> dict[str, list[str]]:
    """Per reason whose kept set of numbers holds at most ``PROBE`` (a LIMIT read each: the workspace's
    blacklist, its operators' blocks, the numbers at a rule's cap), those numbers; a larger set is left out."""

    def read() -> dict[str, list[str]]:
        sets = {
            "listed": BlacklistEntry.objects.filter(workspace_id=workspace_id, channel="sms", is_active=True).values(
                "value"
            )
        }
        if advertising:
            sets["blocked"] = telecom_blocks.blocked_values(workspace_id)
            if frequency is not None:
                rules, day, _, priority = frequency
                sets["at_cap"] = frequency_cap.capped_values(workspace_id, day=day, rules=rules, priority=priority)
        small = {}
        for name, numbers in sets.items():
            head = list(numbers.order_by().values_list(numbers.query.values_select[0], flat=True)[: PROBE + 1])
            if len(head) <= PROBE:
                small[name] = head
        return small

    return shared_read(("sms-small", workspace_id, advertising, repr(frequency)), read)


def _probed_holders(
    workspace_id: int, people: AudienceSample, *, advertising: bool, frequency
) -> tuple[list[str], dict[int, str]]:
    """The reasons whose kept set is small (``_kept_small``) and the audience's targets holding one of those sets'
    numbers, each given its first reason as a send would (``id → reason``): driven from the small side — the
    targets holding the numbers (the live targets' unique ``(workspace, mobile)`` index), those of them in the
    audience (``people.members``, one indexed probe)."""
    small = _kept_small(workspace_id, advertising=advertising, frequency=frequency)
    reasons = {"listed": ("blacklisted", "opt_out"), "blocked": ("telecom_blocked",), "at_cap": ("frequency_cap",)}
    exact = [r for name, names in reasons.items() if name in small for r in names]
    numbers = sorted({n for values in small.values() for n in values if n})
    if not exact or people.members is None:
        return [], {}
    holders = Target.objects.filter(workspace_id=workspace_id, deleted_at__isnull=True)
    holders = dict(holders.filter(texts_match("mobile", numbers)).values_list("id", "mobile")) if numbers else {}
    inside = people.members(sorted(holders))
    found = _looked_up(workspace_id, numbers, advertising=advertising, frequency=frequency)
    return exact, {pk: _reason_of(holders[pk], found) for pk in inside}


def _probed(workspace_id: int, people: AudienceSample, *, advertising: bool, frequency) -> dict[str, int]:
    """The exact count of each reason whose kept set is small (``_probed_holders``)."""
    exact, holders = _probed_holders(workspace_id, people, advertising=advertising, frequency=frequency)
    counts = dict.fromkeys(exact, 0)
    for reason in holders.values():
        if reason in counts:
            counts[reason] += 1
    return counts


def _exclusions(
    workspace_id: int,
    people: AudienceSample,
    *,
    advertising: bool,
    frequency: tuple[list, date, bool, str] | None = None,
) -> tuple[dict, dict[str, int], list[str]]:
    """The count of each reason among the audience's sample (``counts.AudienceSample``: exact for the whole
    audience, else scaled and said as an estimate), the operators of the numbers that are sent to (a number at
    the frequency cap is among them: it is sent, later or never, as its step says), and the sample's numbers at
    the cap."""
    numbers = sorted({mobile for _, mobile in people.rows if mobile})
    found = _looked_up(workspace_id, numbers, advertising=advertising, frequency=frequency)

    def tally() -> tuple[dict[str, int], dict[str, int], list[str]]:
        reasons = dict.fromkeys(["no_mobile", "blacklisted", "opt_out", "telecom_blocked"], 0)
        if frequency is not None:
            reasons["frequency_cap"] = 0
        operators = dict.fromkeys(Operator.values, 0)
        at_cap = []
        for _, mobile in people.rows:
            reason = _reason_of(mobile, found)
            if reason is not None:
                reasons[reason] += 1
            if reason == "frequency_cap":
                at_cap.append(mobile)
            if reason in (None, "frequency_cap"):
                operators[operator_of(mobile)] += 1
        return reasons, operators, at_cap

    # the same rows and lookups give the same tally: once for a package's members
    reasons, operators, at_cap = shared_read(("sms-tally", id(people.rows), id(found)), tally)
    counts = {reason: people.counted(n) for reason, n in reasons.items()}
    if not people.complete:  # a reason whose kept set is small is counted exactly from that side
        for reason, n in _probed(workspace_id, people, advertising=advertising, frequency=frequency).items():
            if reason in counts:
                counts[reason] = {"count": n, "capped": False, "estimated": False}
    if "frequency_cap" in counts:  # waiting for the next period still sends (not subtracted); skipping does not
        counts["frequency_cap"]["subtracted"] = frequency[2]
    return counts, dict(operators), list(at_cap)


def _promotion(settings: SmsSettings, configs: list[dict[str, Any]], now: datetime, tz: str, priority: str):
    """The steps' accounts, whether one advertises, and the frequency cap that applies (or None)."""
    accounts = [channel.pick_account(settings, config.get("provider") or None) for config in configs]
    advertising = any(telecom_blocks.is_advertising(a) for a in accounts)
    frequency = None
    rules = frequency_cap.rules_of(settings)
    if advertising and rules:
        day = now.astimezone(zoneinfo.ZoneInfo(tz)).date()
        skips = any(
            c.get("on_frequency_cap") == frequency_cap.SKIP
            for c, a in zip(configs, accounts, strict=True)
            if telecom_blocks.is_advertising(a)
        )
        frequency = (rules, day, skips, priority)
    return accounts, advertising, frequency


def _settings(workspace_id: int) -> SmsSettings:
    # Read, never created (a dry run writes nothing); once for a package's members.
    def read() -> SmsSettings:
        rows = SmsSettings.objects.select_related("primary_account", "fallback_account")
        return rows.filter(workspace_id=workspace_id).first() or SmsSettings(workspace_id=workspace_id)

    return shared_read(("sms-settings", workspace_id), read)


def excluded(
    workspace,
    *,
    reason: str,
    configs: list[dict[str, Any]],
    subjects: QuerySet,
    people: AudienceSample,
    now: datetime,
    tz: str,
    priority: str = frequency_cap.NORMAL,
) -> tuple[QuerySet, bool] | None:
    """The targets the SMS steps ``configs`` will not reach for ``reason`` (the people behind a launch check's
    count) and whether they are exact: a reason counted from its small side (a sample of a larger audience,
    ``_probed_holders``) is listed the same way, whole; else ``reason_filters``' filter of ``subjects`` (the
    audience, or its sample). None for a reason this channel does not answer."""
    _, advertising, frequency = _promotion(_settings(workspace.id), configs, now, tz, priority)
    found = reason_filters(workspace.id, advertising=advertising, frequency=frequency).get(reason)
    if found is None:
        return None
    if not people.complete:
        exact, holders = _probed_holders(workspace.id, people, advertising=advertising, frequency=frequency)
        if reason in exact:
            return Target.objects.filter(pk__in=[pk for pk, r in holders.items() if r == reason]), True
    return found(subjects), people.complete


def launch_facts(
    workspace,
    *,
    configs: list[dict[str, Any]],
    people: AudienceSample,
    audience: int,
    sample_text,
    now: datetime | None = None,
    tz: str = "Asia/Tehran",
    priority: str = frequency_cap.NORMAL,
) -> SmsLaunchFacts:
    """The SMS channel's facts for the SMS steps ``configs`` of a campaign whose audience (``audience`` targets)
    is looked at through ``people`` (its sample, ``counts.audience_sample``); ``sample_text(config)`` renders a
    step's text for a sample target."""
    settings = _settings(workspace.id)
    now = now or timezone.now()
    accounts, advertising, frequency = _promotion(settings, configs, now, tz, priority)
    steps: list[StepText] = []
    for config, account in zip(configs, accounts, strict=True):
        text = sample_text(config)
        lint = lint_text(text, append_opt_out=bool(config.get("append_opt_out")), opt_out_text=settings.opt_out_text)
        step = StepText(config.get("title") or "ارسال پیامک", lint.parts, lint.has_link, lint.has_opt_out, account)
        step.filtered = filtered_words.found_in(text, account, template=config.get("body") or "")
        steps.append(step)
    account = accounts[0] if accounts else settings.primary_account
    exclusions, shares, capped = _exclusions(workspace.id, people, advertising=advertising, frequency=frequency)
    receivers = max(0, audience - sum(e["count"] for e in exclusions.values() if e.get("subtracted", True)))
    operators, estimated = people.scaled(shares, receivers), not people.complete
    cost = 0
    # What the steps take of their accounts' credit, per credit unit: rials (the cost) or message parts.
    needs = dict.fromkeys(CreditUnit.values, 0)
    for step in steps:
        if step.account is None:
            continue
        step_cost = sum(n * step.parts * part_price(step.account, operator)[0] for operator, n in operators.items())
        cost += step_cost
        unit = step.account.credit_in
        needs[unit] += receivers * step.parts if unit == CreditUnit.MESSAGE else step_cost
    facts = SmsLaunchFacts(
        exclusions=exclusions,
        steps=steps,
        account=account,
        operators=operators,
        operators_estimated=estimated,
        receivers=receivers,
        messages=receivers * len(steps),
        cost=cost,
        parts=receivers * sum(s.parts for s in steps if s.account is not None),
        frequency_cap_on=bool(frequency_cap.rules_of(settings)),
    )
    problem = shared_read(("sms-problem", workspace.id), lambda: channel.channel_problem(workspace.id))
    if problem or any(a is None or not a.is_active for a in accounts):
        facts.blockers.append({"code": "no_account", "message": BLOCKER_MESSAGES["no_account"]})
    credited = {a.pk: a for a in accounts if a is not None}
    if any(a.credit is None for a in credited.values()):
        facts.warnings.append({"code": "credit_unknown", "message": WARNING_MESSAGES["credit_unknown"]})
    else:  # like with like: rials against the cost, messages against the parts (docs/sms.md "Credit")
        for unit, need in needs.items():
            have = sum(a.credit for a in credited.values() if a.credit_in == unit)
            if need <= have:
                continue
            message = BLOCKER_MESSAGES["credit_below_cost"]
            if unit == CreditUnit.MESSAGE:
                message = CREDIT_BELOW_PARTS.format(
                    credit=credit_amount_text(have, unit), parts=credit_amount_text(need, unit)
                )
            facts.blockers.append({"code": "credit_below_cost", "message": message})
            break
    for step in steps:
        if step.account is None:
            continue
        if step.account.line_kind == LineKind.ADVERTISING and receivers > 1 and not step.has_opt_out:
            message = BLOCKER_MESSAGES["opt_out_missing"].format(
                opt_out=settings.opt_out_text or "لغو۱۱", step=step.title
            )
            facts.blockers.append({"code": "opt_out_missing", "message": message})
        if step.has_link and not step.account.links_allowed:
            message = BLOCKER_MESSAGES["link_not_allowed"].format(step=step.title)
            facts.blockers.append({"code": "link_not_allowed", "message": message})
        if step.filtered:
            message = BLOCKER_MESSAGES["filtered_word"].format(step=step.title, words="، ".join(step.filtered))
            facts.blockers.append({"code": "filtered_word", "message": message})
    at_cap = exclusions.get("frequency_cap")
    if at_cap and audience and at_cap["count"] > CAP_SHARE * audience:
        what = "فرستاده نمی‌شود" if at_cap["subtracted"] else "به آغاز دورهٔ بعد می‌افتد"
        facts.warnings.append(
            {"code": "frequency_cap_high", "message": WARNING_MESSAGES["frequency_cap_high"].format(what=what)}
        )
    if advertising and (settings.quiet_fridays or settings.quiet_days):
        facts.quiet_day = quiet_days.quiet_test(settings)
    if at_cap and at_cap["count"] and not at_cap["subtracted"]:
        facts.frees_at = _frees_at(workspace.id, capped, frequency, tz)
    if frequency is not None and receivers:  # several waiting promotional steps a person: spread over periods
        waiting = sum(
            1
            for c, a in zip(configs, accounts, strict=True)
            if telecom_blocks.is_advertising(a) and c.get("on_frequency_cap") != frequency_cap.SKIP
        )
        rules, day, _, priority = frequency
        spread = frequency_cap.spread_day(rules, day, waiting, priority) if waiting > 1 else None
        if spread is not None:
            at = _midnight(spread, tz)
            facts.frees_at = max(facts.frees_at, at) if facts.frees_at else at
    return facts


def _midnight(day: date, tz: str) -> datetime:
    return datetime.combine(day, time.min).replace(tzinfo=zoneinfo.ZoneInfo(tz)).astimezone(UTC)


def _frees_at(workspace_id: int, phones: list[str], frequency: tuple[list, date, bool, str], tz: str) -> datetime:
    """The start (workspace midnight) of the period after the longest rule some of ``phones`` (the sample's numbers
    at the cap) stand at the cap of: one indexed probe per rule."""
    rules, day, _, priority = frequency
    periods = frequency_cap.capped_periods(workspace_id, phones, day=day, rules=rules, priority=priority)
    return _midnight(frequency_cap.wait_until_day(periods, day), tz)


LINT_MESSAGES = {
    "opt_out_missing": "خط تبلیغاتی است: بدون سطر «{opt_out}» ارسال به چند شماره پذیرفته نمی‌شود؛ "
    "«متن لغو اشتراک» را بزنید.",
    "link_not_allowed": "این حساب اجازه ارسال پیوند ندارد؛ پیوند را بردارید یا از سرویس‌دهنده مجوز بگیرید.",
    "link": "متن پیوند دارد؛ برخی خط‌ها پیوند را نمی‌پذیرند.",
    "filtered_word": "متن کلمه‌ای از فهرست کلمه‌های فیلترشدهٔ این حساب دارد و سرویس‌دهنده آن را رد می‌کند: {words}",
}


def text_lint(config: dict[str, Any], text: str, *, workspace_id: int | None) -> dict[str, Any]:
    """The step editor's live lint of a text as it will go: parts (the opt-out line included when appended), the
    opt-out line an advertising line needs, a link on an account not allowed links (``sms.lint``)."""
    settings = None
    if workspace_id is not None:
        settings = SmsSettings.objects.select_related("primary_account").filter(workspace_id=workspace_id).first()
    opt_out_text = settings.opt_out_text if settings is not None else "لغو۱۱"
    account = channel.pick_account(settings, config.get("provider") or None) if settings is not None else None
    lint = lint_text(text, append_opt_out=bool(config.get("append_opt_out")), opt_out_text=opt_out_text)
    problems = []
    if account is not None and account.line_kind == LineKind.ADVERTISING and not lint.has_opt_out:
        problems.append(
            {
                "code": "opt_out_missing",
                "message": LINT_MESSAGES["opt_out_missing"].format(opt_out=opt_out_text or "لغو۱۱"),
            }
        )
    if lint.has_link:
        code = "link_not_allowed" if account is not None and not account.links_allowed else "link"
        problems.append({"code": code, "message": LINT_MESSAGES[code]})
    filtered = filtered_words.found_in(text, account, template=config.get("body") or "")
    if filtered:
        message = LINT_MESSAGES["filtered_word"].format(words="، ".join(filtered))
        problems.append({"code": "filtered_word", "message": message})
    return {
        **lint.as_dict(),
        "line_kind": account.line_kind if account is not None else "",
        "problems": problems,
    }
