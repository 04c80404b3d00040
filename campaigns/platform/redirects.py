"""``next=`` of a form post: followed only when it stays on this site (never an absolute or scheme-relative
address elsewhere, never ``javascript:``)."""

from django.utils.http import url_has_allowed_host_and_scheme


def local_next(request, fallback: str) -> str:
    """The posted ``next`` when it is a same-site address, else ``fallback`` (for ``redirect()``)."""
    target = request.POST.get("next") or ""
    host = request.get_host()
    if url_has_allowed_host_and_scheme(target, allowed_hosts={host}, require_https=request.is_secure()):
        return target
    return fallback
