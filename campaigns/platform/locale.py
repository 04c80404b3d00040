"""The UI language: Persian unless the user chose another one with the language switch.

Django's ``LocaleMiddleware`` follows the browser's ``Accept-Language``, which turns the admin into
an English, left-to-right screen around Persian model names for anyone whose browser prefers
English. Here only the language cookie written by ``set_language`` (the switch in the admin's
header) can pick another of ``LANGUAGES``; everything else gets ``LANGUAGE_CODE`` (``fa``).
"""

from django.conf import settings
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin


def chosen_language(request) -> str:
    choice = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    return choice if choice in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


class ChosenLanguageMiddleware(MiddlewareMixin):
    def process_request(self, request):
        translation.activate(chosen_language(request))
        request.LANGUAGE_CODE = translation.get_language()

    def process_response(self, request, response):
        response.headers.setdefault("Content-Language", translation.get_language())
        return response
