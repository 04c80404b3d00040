"""Admin helpers shared by every app: Jalali date columns and the workspace rules of the admin.

The admin is usable by staff, but a non-superuser only ever sees and edits the rows of the
workspaces where they are a member with a managing role (owner, admin, manager); superusers see all.

- ``WorkspaceScopedAdmin``: every changelist, change page, foreign-key / many-to-many choice,
  list filter and autocomplete is limited to those workspaces; writes need the admin's
  ``manage_perm`` in the row's workspace; the row's workspace cannot be moved after creation.
- ``ReadOnlyAdmin``: history and runtime rows (services write them).
- ``AppendOnlyMixin``: rows are never deleted (deactivate instead).
- ``SuperuserOnlyMixin``: models that belong to no workspace (users' tokens, periodic jobs, ...).
- ``lock_down_admin_site``: called once every admin module is loaded; wraps whatever another
  app registered so no admin page escapes these rules.
- ``NUMBER_FORMFIELDS``: every number input of an admin form (inlines too) is a left-to-right text input that
  reads Persian digits, as on the staff pages; ``lock_down_admin_site`` gives it to other apps' admins.
- ``show_admin_dates_in_jalali``: every date and date-time value the admin shows (list columns,
  read-only fields) in Jalali with Persian digits; ``JalaliDateFieldListFilter`` (every date filter)
  takes "this month" and "this year" in the Jalali calendar.
"""

import datetime as dt

import jdatetime
from django import forms
from django.contrib import admin
from django.contrib.admin import helpers, utils
from django.contrib.admin.templatetags import admin_list
from django.contrib.auth import get_user_model
from django.core.exceptions import FieldDoesNotExist, ImproperlyConfigured, PermissionDenied
from django.db import models
from django.forms.forms import NON_FIELD_ERRORS
from django.http import Http404
from django.utils import timezone
from django.utils.html import format_html

from campaigns.platform.choices import Role
from campaigns.platform.jalali import fa_digits, to_jalali
from campaigns.platform.models import Membership, Workspace
from campaigns.platform.pagination import CappedPaginator
from campaigns.platform.permissions import Perm, role_has
from campaigns.platform.phones import display_phone
from campaigns.platform.widgets import (
    JALALI_INPUT_ATTRS,
    DecimalNumberField,
    FloatNumberField,
    JalaliDateTimeField,
    NumberField,
    NumberInput,
)

# Roles that see a workspace in the admin. Operators and viewers use the pages (their own
# targets, no SMS logs or secrets there).
ADMIN_ROLES = (Role.OWNER, Role.ADMIN, Role.MANAGER)


def jalali_column(field: str, label: str):
    @admin.display(description=label, ordering=field)
    def column(self, obj):
        return fa_digits(to_jalali(getattr(obj, field), with_time=True))

    column.__name__ = f"{field}_jalali"
    return column


def phone_column(field: str, label: str):
    """A phone number as on the pages (docs/ui.md "Numbers"): Latin digits, isolated left-to-right."""

    @admin.display(description=label, ordering=field)
    def column(self, obj):
        shown = display_phone(getattr(obj, field))
        return format_html('<bdi dir="ltr" class="phone">{}</bdi>', shown) if shown else "—"

    column.__name__ = f"{field}_phone"
    return column


# Every date-time field of an admin form is typed and shown in Jalali (24-hour), with the date picker.
JALALI_FORMFIELDS = {
    models.DateTimeField: {"form_class": JalaliDateTimeField, "widget": forms.TextInput(attrs=JALALI_INPUT_ATTRS)}
}


# Every number of an admin form is typed like on the pages (docs/ui.md "Numbers"): a left-to-right text input with
# the numeric keypad that reads Persian, Arabic-Indic and Latin digits. Django's admin renders ``type=number``, which
# drops «۱۲۳» as a Persian keyboard types it (the field posts nothing). The value shown back is the stored one, in
# Latin digits; the classes keep the admin's widths of number inputs.
NUMBER_FORMFIELDS = {
    models.IntegerField: {"form_class": NumberField, "widget": NumberInput(attrs={"class": "vIntegerField"})},
    models.BigIntegerField: {"form_class": NumberField, "widget": NumberInput(attrs={"class": "vBigIntegerField"})},
    models.DecimalField: {"form_class": DecimalNumberField, "widget": NumberInput(attrs={"class": "vBigIntegerField"})},
    models.FloatField: {"form_class": FloatNumberField, "widget": NumberInput(attrs={"class": "vBigIntegerField"})},
}
ADMIN_FORMFIELDS = {**JALALI_FORMFIELDS, **NUMBER_FORMFIELDS}


class JalaliAdmin(admin.ModelAdmin):
    """ModelAdmin with ``created_jalali``/``updated_jalali`` columns available, Jalali date-time inputs and number
    inputs that take Persian digits."""

    formfield_overrides = ADMIN_FORMFIELDS

    created_jalali = jalali_column("created_at", "ایجاد")
    updated_jalali = jalali_column("updated_at", "به‌روزرسانی")
    list_per_page = 50


# --- dates of the whole admin in Jalali ----------------------------------------------------------------
def _display_for_field(value, field, empty_value_display, avoid_link=False):
    if value is not None and isinstance(field, models.DateField):  # DateTimeField too
        return fa_digits(to_jalali(value, with_time=isinstance(field, models.DateTimeField)))
    return utils.display_for_field(value, field, empty_value_display, avoid_link)


def show_admin_dates_in_jalali() -> None:
    """Django renders model dates (list columns, read-only fields) through ``display_for_field`` in the
    Gregorian calendar; the admin's changelist and read-only fields use this one instead."""
    admin_list.display_for_field = _display_for_field
    helpers.display_for_field = _display_for_field


class JalaliDateFieldListFilter(admin.DateFieldListFilter):
    """Django's date filter with "this month" and "this year" as the Jalali month and year of today."""

    def __init__(self, field, request, params, model, model_admin, field_path):
        super().__init__(field, request, params, model, model_admin, field_path)
        month = jdatetime.date.fromgregorian(date=timezone.localdate()).replace(day=1)
        next_month = (month + dt.timedelta(days=32)).replace(day=1)
        year = month.replace(month=1)

        def bounds(start, end) -> dict:
            since, until = start.togregorian(), end.togregorian()
            if isinstance(field, models.DateTimeField):
                since, until = (timezone.make_aware(dt.datetime.combine(d, dt.time.min)) for d in (since, until))
            return {self.lookup_kwarg_since: since, self.lookup_kwarg_until: until}

        links = list(self.links)
        links[3] = (links[3][0], bounds(month, next_month))
        links[4] = (links[4][0], bounds(year, year.replace(year=year.year + 1)))
        self.links = tuple(links)


admin.FieldListFilter.register(
    lambda field: isinstance(field, models.DateField), JalaliDateFieldListFilter, take_priority=True
)


RECENT_VALUES = 10_000


class RecentValuesFieldListFilter(admin.AllValuesFieldListFilter):
    """A filter on a free-text column offers the values of the newest ``RECENT_VALUES`` rows (read backwards by
    the primary key), not a ``DISTINCT`` over the whole table — that read every row of a ten-million-row
    history on each page. A value only older rows hold is still filtered by its address."""

    def __init__(self, field, request, params, model, model_admin, field_path):
        super().__init__(field, request, params, model, model_admin, field_path)
        recent = model_admin.get_queryset(request).order_by("-pk").values_list(field_path, flat=True)[:RECENT_VALUES]
        values = set(recent)
        self.lookup_choices = sorted((v for v in values if v is not None), key=str) + ([None] if None in values else [])


admin.FieldListFilter.register(
    lambda field: (
        not field.is_relation
        and not field.flatchoices
        and not isinstance(field, models.BooleanField | models.DateField)
    ),
    RecentValuesFieldListFilter,
    take_priority=True,
)


class ScopedRelatedFieldListFilter(admin.RelatedFieldListFilter):
    """A related filter lists the related rows this admin user may see (``scope_choices``): read from the related
    table (a few lists, campaigns, workspaces), never by a ``DISTINCT`` over the filtered table."""

    def field_choices(self, field, request, model_admin):
        ordering = self.field_admin_ordering(field, request, model_admin)
        related = scope_choices(request, field.remote_field.model._default_manager.all())
        if ordering:
            related = related.order_by(*ordering)
        return [(row.pk, str(row)) for row in related[:RECENT_VALUES]]


# --- which workspaces a request may use ------------------------------------------------------------------
def _memberships(request) -> list[tuple[int, str]]:
    cached = getattr(request, "_admin_memberships", None)
    if cached is None:
        user = request.user
        cached = (
            list(Membership.objects.filter(user=user).values_list("workspace_id", "role"))
            if user.is_authenticated and user.is_active
            else []
        )
        request._admin_memberships = cached
    return cached


def admin_workspace_ids(request, perm: str | None = None) -> set[int] | None:
    """Workspaces the user sees in the admin (with ``perm``: may write there); ``None`` = all (superuser)."""
    if request.user.is_active and request.user.is_superuser:
        return None
    return {ws for ws, role in _memberships(request) if role in ADMIN_ROLES and (perm is None or role_has(role, perm))}


def _workspace_filter(model, ids: set[int]) -> dict | None:
    """The lookup that limits ``model`` to ``ids`` (``None`` when the model belongs to no workspace)."""
    if model is Workspace:
        return {"pk__in": ids}
    try:
        model._meta.get_field("workspace")
    except FieldDoesNotExist:
        return None
    return {"workspace_id__in": ids}


def scope_choices(request, queryset):
    """Limit a choice queryset (FK, M2M, autocomplete) to what the request may see."""
    ids = admin_workspace_ids(request)
    if ids is None:
        return queryset
    model = queryset.model
    if model is get_user_model():
        return queryset.filter(memberships__workspace_id__in=ids).distinct()
    lookup = _workspace_filter(model, ids)
    if lookup is None:
        return queryset.none()  # rows of no workspace are never a choice for staff
    return queryset.filter(**lookup)


class _ModelErrorsOnForm:
    """``Model.clean()`` may name a field that is read-only in this form: show it on the form instead of a 500."""

    def _update_errors(self, errors):
        if hasattr(errors, "error_dict"):
            for field in list(errors.error_dict):
                if field != NON_FIELD_ERRORS and field not in self.fields:
                    errors.error_dict.setdefault(NON_FIELD_ERRORS, []).extend(errors.error_dict.pop(field))
        super()._update_errors(errors)


class _OutOfScopeIsNotFound:
    """An object outside the scoped queryset answers 404, never the admin's redirect that names its id."""

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            raise Http404("not found")
        return obj


class WorkspaceScopedAdmin(_OutOfScopeIsNotFound, JalaliAdmin):
    """Every queryset, choice and object permission limited to the user's workspaces (superusers: all)."""

    #: the role permission needed (in the row's workspace) to add, change or delete
    manage_perm: str = Perm.MANAGE_WORKSPACE
    #: the role permission needed to see the rows at all (``None``: any admin role)
    view_perm: str | None = None
    #: path to the row's workspace for models without their own ``workspace`` field (e.g. "snapshot__workspace")
    workspace_lookup: str | None = None

    def _row_workspace_id(self, obj) -> int | None:
        if isinstance(obj, Workspace):
            return obj.pk
        if self.workspace_lookup:
            *path, last = self.workspace_lookup.split("__")
            for name in path:
                obj = getattr(obj, name, None)
            return getattr(obj, f"{last}_id", None)
        return getattr(obj, "workspace_id", None)

    def _scope_filter(self, ids: set[int]) -> dict:
        if self.workspace_lookup:
            return {f"{self.workspace_lookup}_id__in": ids}
        lookup = _workspace_filter(self.model, ids)
        if lookup is None:
            raise ImproperlyConfigured(f"{type(self).__name__}: {self.model.__name__} needs workspace_lookup")
        return lookup

    def _allowed(self, request, obj, perm: str | None) -> bool:
        ids = admin_workspace_ids(request, perm)
        if ids is None:
            return True
        if obj is None:
            return bool(ids)
        return self._row_workspace_id(obj) in ids

    # queryset and objects: another workspace's row is "not found" (404), never 403
    def get_queryset(self, request):
        qs = super().get_queryset(request)
        ids = admin_workspace_ids(request, self.view_perm)
        if ids is None:
            return qs
        return qs.filter(**self._scope_filter(ids))

    def has_module_permission(self, request):
        return super().has_module_permission(request) and self._allowed(request, None, self.view_perm)

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) and self._allowed(request, obj, self.view_perm)

    def has_add_permission(self, request):
        return super().has_add_permission(request) and self._allowed(request, None, self.manage_perm)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and self._allowed(request, obj, self.manage_perm)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and self._allowed(request, obj, self.manage_perm)

    # choices: only rows of the user's workspaces; the workspace itself only where they may write
    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        formfield = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if formfield is not None and hasattr(formfield, "queryset"):
            if db_field.related_model is Workspace:
                ids = admin_workspace_ids(request, self.manage_perm)
                if ids is not None:
                    formfield.queryset = formfield.queryset.filter(pk__in=ids)
            else:
                formfield.queryset = scope_choices(request, formfield.queryset)
        return formfield

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        formfield = super().formfield_for_manytomany(db_field, request, **kwargs)
        if formfield is not None and hasattr(formfield, "queryset"):
            formfield.queryset = scope_choices(request, formfield.queryset)
        return formfield

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        return type(form.__name__, (_ModelErrorsOnForm, form), {})

    def get_readonly_fields(self, request, obj=None):
        readonly = list(super().get_readonly_fields(request, obj))
        if obj is not None and self.model is not Workspace and "workspace" not in readonly:
            if _workspace_filter(self.model, set()) is not None:
                readonly.append("workspace")  # a row never moves to another workspace
        return readonly

    def get_list_filter(self, request):
        """Related filters list only values of visible rows (the plain filter lists every workspace)."""
        result = []
        for entry in super().get_list_filter(request):
            if isinstance(entry, str) and "__" not in entry:
                try:
                    field = self.model._meta.get_field(entry)
                except FieldDoesNotExist:
                    field = None
                if field is not None and field.is_relation:
                    entry = (entry, ScopedRelatedFieldListFilter)
            result.append(entry)
        return result

    def save_model(self, request, obj, form, change):
        ids = admin_workspace_ids(request, self.manage_perm)
        if ids is not None and self._row_workspace_id(obj) not in ids:
            raise PermissionDenied
        super().save_model(request, obj, form, change)


class WorkspaceScopedInline:
    """Mixin for inlines: related choices limited like the parent admin's, number inputs that take Persian digits."""

    formfield_overrides = NUMBER_FORMFIELDS

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        formfield = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if formfield is not None and hasattr(formfield, "queryset") and db_field.related_model is not Workspace:
            formfield.queryset = scope_choices(request, formfield.queryset)
        return formfield


class ServiceMadeMixin:
    """Rows that services create and never delete: the admin may change them (what its form allows), no more."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class NoWritesMixin(ServiceMadeMixin):
    """Shown, never added, changed or deleted here: history and runtime rows change only through services."""

    def has_change_permission(self, request, obj=None):
        return False


class ReadOnlyAdmin(NoWritesMixin, WorkspaceScopedAdmin):
    """History and runtime rows change only through services."""


class AppendOnlyMixin:
    """Rows are kept for the record: never deleted from the admin (deactivate instead)."""

    def has_delete_permission(self, request, obj=None):
        return False

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


class SuperuserOnlyMixin:
    """Models that belong to no workspace: only superusers see them."""

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_superuser and super().has_module_permission(request)

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser and super().has_view_permission(request, obj)

    def has_add_permission(self, request, *args):
        return request.user.is_active and request.user.is_superuser and super().has_add_permission(request, *args)

    def has_change_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser and super().has_delete_permission(request, obj)


class ScopedUserAdminMixin(_OutOfScopeIsNotFound):
    """Users: superusers manage them; other staff only see (read-only) the members of their workspaces."""

    def get_queryset(self, request):
        return scope_choices(request, super().get_queryset(request))

    def has_module_permission(self, request):
        return super().has_module_permission(request) and (
            request.user.is_superuser or bool(admin_workspace_ids(request))
        )

    def has_add_permission(self, request, *args):
        return request.user.is_superuser and super().has_add_permission(request, *args)

    def has_change_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_delete_permission(request, obj)


def lock_down_admin_site(site: admin.AdminSite) -> None:
    """Wrap every registered admin that does not apply the workspace rules itself; every list gets the capped pager.

    Users get ``ScopedUserAdminMixin``; anything else of no workspace (groups, periodic jobs,
    heartbeats, tokens) becomes superuser-only. Project models with a workspace must use
    ``WorkspaceScopedAdmin`` (a test checks it). Every admin and inline, another app's too, types its numbers
    with ``NUMBER_FORMFIELDS``.
    """
    user_model = get_user_model()
    for model, model_admin in list(site._registry.items()):
        cls = type(model_admin)
        if issubclass(cls, (WorkspaceScopedAdmin, SuperuserOnlyMixin, ScopedUserAdminMixin)):
            continue
        mixin = ScopedUserAdminMixin if model is user_model else SuperuserOnlyMixin
        site.unregister(model)
        site.register(model, type(cls.__name__, (mixin, cls), {"__module__": cls.__module__}))
    # Every list counts like the pages (``CappedPaginator``): at most 10,000 rows, "بیش از ۱۰٬۰۰۰" past it, and no
    # second count of the unfiltered table — Django's admin counted every row of a ten-million-row history twice
    # per page (and "show counts" once per filter value). The pager, the search's result line and "select all" say
    # so (templates/admin/pagination.html, search_form.html, actions.html).
    for model_admin in site._registry.values():
        # numbers typed in Persian digits on every form and inline, another app's too (``NUMBER_FORMFIELDS``)
        model_admin.formfield_overrides = {**model_admin.formfield_overrides, **NUMBER_FORMFIELDS}
        model_admin.inlines = [_with_number_inputs(inline) for inline in model_admin.inlines]
        model_admin.paginator = CappedPaginator
        model_admin.show_full_result_count = False
        model_admin.show_facets = admin.ShowFacets.NEVER  # "show counts" counted every filter value over the table
        if model_admin.list_select_related is False:
            # The references the list shows, joined one level: Django's default joins every reference of every
            # reference (sixteen tables for an event) and then sorts the history instead of reading its index.
            model_admin.list_select_related = _shown_references(model_admin)


def _with_number_inputs(inline: type) -> type:
    """An inline whose number inputs take Persian digits (``NUMBER_FORMFIELDS``)."""
    if issubclass(inline, WorkspaceScopedInline):
        return inline
    overrides = {**inline.formfield_overrides, **NUMBER_FORMFIELDS}
    return type(inline.__name__, (inline,), {"formfield_overrides": overrides, "__module__": inline.__module__})


def _shown_references(model_admin) -> tuple[str, ...]:
    shown = set(model_admin.list_display)
    return tuple(f.name for f in model_admin.model._meta.concrete_fields if f.is_relation and f.name in shown)


# --- admin actions call the services --------------------------------------------------------------------
def admin_actor(request, workspace: Workspace):
    """The admin user acting in ``workspace``: their membership (a superuser without one acts as owner)."""
    from campaigns.platform.tenancy import Actor

    membership = Membership.objects.filter(user=request.user, workspace=workspace).first()
    if membership is None and request.user.is_superuser:
        membership = Membership(user=request.user, workspace=workspace, role=Role.OWNER)
    if membership is None:
        raise PermissionDenied
    return Actor(user=request.user, workspace=workspace, membership=membership)


def run_service_action(modeladmin, request, queryset, call, done: str) -> None:
    """Call ``call(actor, obj)`` for each selected row through its service; every refusal (validation,
    permission, conflicting state) becomes an error message naming the row, never a 500."""
    from django.contrib import messages

    from campaigns.platform.errors import PlatformError

    succeeded = 0
    for obj in queryset.select_related("workspace"):
        try:
            call(admin_actor(request, obj.workspace), obj)
        except PermissionDenied:
            modeladmin.message_user(request, f"«{obj}»: اجازه این کار را ندارید.", messages.ERROR)
        except PlatformError as exc:
            details = exc.details if isinstance(exc.details, dict) else {}
            items = [item for value in details.values() for item in (value if isinstance(value, list) else [value])]
            extra = "؛ ".join(str(item.get("message", item)) if isinstance(item, dict) else str(item) for item in items)
            modeladmin.message_user(request, f"«{obj}»: {exc.message}{' — ' + extra if extra else ''}", messages.ERROR)
        else:
            succeeded += 1
    if succeeded:
        modeladmin.message_user(request, done.format(count=fa_digits(succeeded)), messages.SUCCESS)
