"""Words a provider refused in a text (Melipayamak send code 7, "filtered word"), kept per account so the step
editor lints them and the launch check blocks a text carrying one before the provider refuses it halfway
(docs/sms.md "Filtered words").

The provider's answer names the word only sometimes (after a colon in its status text): named words are kept
(``filtered_words``, which staff may also edit on the account); the refused step's text as written — its template,
no person's values — is kept too (``filtered_templates``), so the same text is blocked although its word is not
known. Both lists are bounded.
"""

from __future__ import annotations

import re

from django.db import transaction

from sms.models import SmsProviderAccount

MAX_WORDS = 200
MAX_TEMPLATES = 50
MAX_WORD_LENGTH = 40
_FOLD = str.maketrans({"ي": "ی", "ك": "ک", "ى": "ی", "ة": "ه", "\u200c": " "})
_SPLIT = re.compile(r"[,،;؛\n]+")


def fold(text: str) -> str:
    """Text compared as the providers' filters read it: Arabic letters as Persian, case and spacing ignored."""
    return re.sub(r"\s+", " ", (text or "").translate(_FOLD)).strip().lower()


def clean_words(values) -> list[str]:
    """Staff's or a provider's words: trimmed, bounded, each once (compared folded), in order."""
    words: list[str] = []
    seen: set[str] = set()
    for value in values or []:
        for part in _SPLIT.split(str(value)):
            word = re.sub(r"\s+", " ", part).strip()[:MAX_WORD_LENGTH]  # kept as written (a ZWNJ stays)
            if word and fold(word) not in seen:
                seen.add(fold(word))
                words.append(word)
    return words[:MAX_WORDS]


def named_in_answer(message: str) -> list[str]:
    """The words a refusal's status text names after its last colon («…: word1، word2»); none otherwise."""
    if ":" not in (message or ""):
        return []
    return clean_words([message.rsplit(":", 1)[1]])


def found_in(text: str, account: SmsProviderAccount | None, *, template: str = "") -> list[str]:
    """The account's filtered words in ``text`` (and the refused text itself when ``template`` is one)."""
    if account is None:
        return []
    folded = fold(text)
    hits = [w for w in account.filtered_words or [] if fold(w) and fold(w) in folded]
    if template and fold(template) in (account.filtered_templates or []):
        hits.append("متن ردشده پیشین")
    return hits


def is_filtered_code(provider, code: str) -> bool:
    return provider is not None and str(code or "") in getattr(provider, "filtered_word_codes", ())


def remember_refusal(*, account_id: int, template: str, answer: str) -> None:
    """A send through the account was refused for a filtered word: keep the words it names and the text."""
    with transaction.atomic():
        account = SmsProviderAccount.objects.select_for_update().filter(pk=account_id).first()
        if account is None:
            return
        words = clean_words([*(account.filtered_words or []), *named_in_answer(answer)])
        templates = list(account.filtered_templates or [])
        folded = fold(template)
        if folded and folded not in templates:
            templates = [*templates, folded][-MAX_TEMPLATES:]
        if words != account.filtered_words or templates != account.filtered_templates:
            SmsProviderAccount.objects.filter(pk=account_id).update(filtered_words=words, filtered_templates=templates)
