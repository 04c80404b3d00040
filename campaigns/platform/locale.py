"""The UI language: Persian unless the user chose another one with the language switch.

Django's ``LocaleMiddleware`` follows the browser's ``Accept-Language``, which turns the admin into
an English, left-to-right screen around Persian model names for anyone whose browser prefers
English. Here only the language cookie written by ``set_language`` (the switch in the admin's
header) can pick another of ``LANGUAGES``; everything else gets ``LANGUAGE_CODE`` (``fa``). The API
(``/api/…``) follows ``Accept-Language`` instead: an integrator asking for ``en`` gets English messages.
"""

from django.conf import settings
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation.trans_real import parse_accept_lang_header


def chosen_language(request) -> str:
    choice = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    return choice if choice in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def api_language(request) -> str:
    """The API speaks what ``Accept-Language`` prefers of ``LANGUAGES`` (``en``: English messages), else
    ``LANGUAGE_CODE``; pages keep following the language switch only."""
    for code, _quality in parse_accept_lang_header(request.headers.get("Accept-Language", "")):
        base = code.split("-")[0]
        if base in dict(settings.LANGUAGES):
            return base
    return settings.LANGUAGE_CODE


class ChosenLanguageMiddleware(MiddlewareMixin):
    def process_request(self, request):
        api = request.path.startswith("/api/")
        translation.activate(api_language(request) if api else chosen_language(request))
        request.LANGUAGE_CODE = translation.get_language()

    def process_response(self, request, response):
        response.headers.setdefault("Content-Language", translation.get_language())
        return response
