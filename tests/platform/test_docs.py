"""The documents describe the code: a doc section naming a missing file or setting fails.

Reads ``README.md`` and ``docs/*.md``; every backticked repository file path (``sms/action/planning.py``,
``tests/chains/test_runs.py::test_x``, ``automation/engine/scheduler.py:run_tick``) must exist, and every
backticked UPPER_CASE name of a settings family (``AUTOMATION_…``, ``SMS_…``) must be a setting or an
environment variable that ``config/settings/`` (or an app's own settings module) reads — or a code or
constant the product defines.

The facts that drift are checked against the code: the defaults the README's configuration table (and any
"`NAME` (123)" in the docs) gives, the layer test's exceptions, the menu (docs/ui.md) and the pages table
(docs/architecture.md "Pages").
"""

import re
from importlib import import_module
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
TOP = {"automation", "campaigns", "sms", "workers", "config", "docs", "tests", "templates", "static"}
EXTENSIONS = {".py", ".md", ".html", ".txt", ".toml", ".json", ".yml", ".yaml", ".js", ".css", ".cfg"}
TOKEN = re.compile(r"`([^`\s]+)`")
UPPER = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _documents():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8").splitlines()


def app_settings() -> list[Path]:
    """The files of the installed apps' own settings modules (``AppConfig.settings_module``: ``sms/settings.py`` …)."""
    return [Path(import_module(name).__file__) for name in settings.APP_SETTINGS]


def _settings_names() -> tuple[set[str], set[str]]:
    paths = [ROOT / "config" / "env.py", *sorted((ROOT / "config" / "settings").glob("*.py")), *app_settings()]
    text = "\n".join(path.read_text(encoding="utf-8") for path in paths)
    defined = set(re.findall(r"^([A-Z][A-Z0-9_]+)\s*=", text, re.M)) | set(
        re.findall(r"[\"']([A-Z][A-Z0-9_]+)[\"']", text)
    )
    families = {name.split("_")[0] + "_" for name in defined if "_" in name}
    return defined, families


def _product_codes() -> set[str]:
    """The product's UPPER_CASE string literals (error codes) and module constants (documented bounds)."""
    found = set()
    for app in ("automation", "campaigns", "sms", "workers"):
        for path in (ROOT / app).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            found |= set(re.findall(r"[\"']([A-Z][A-Z0-9_]+)[\"']", text))
            found |= set(re.findall(r"^([A-Z][A-Z0-9_]+)\s*[:=]", text, re.M))
    return found


def _file_path(token: str) -> str | None:
    path = re.split(r"::|:(?=[A-Za-z_])", token)[0]
    if "/" not in path or path.split("/")[0] not in TOP or any(c in path for c in "*{<…"):
        return None
    return path if Path(path).suffix in EXTENSIONS else None


def test_named_files_exist():
    missing = [
        f"{doc}:{number} {path}"
        for doc, lines in _documents()
        for number, line in enumerate(lines, 1)
        for token in TOKEN.findall(line)
        if (path := _file_path(token)) and not (ROOT / path).exists()
    ]
    assert not missing, "documents name files that do not exist:\n" + "\n".join(missing)


def test_named_settings_exist():
    defined, families = _settings_names()
    known = defined | _product_codes()
    missing = [
        f"{doc}:{number} {name}"
        for doc, lines in _documents()
        for number, line in enumerate(lines, 1)
        for token in TOKEN.findall(line)
        if UPPER.fullmatch(name := token.split("=")[0])
        and any(name.startswith(family) for family in families)
        and name not in known
    ]
    assert not missing, "documents name settings that config/settings/ does not define:\n" + "\n".join(missing)


# --- facts that drift: a document states them, the code decides them ---------------------------------------------

ENV_READ = re.compile(
    r"""(?:environ\.get|env_bool|env_list|env_int|env_float|env_str)\(\s*["']([A-Z][A-Z0-9_]+)["']\s*,\s*"""
    r"""(?:["']([^"']*)["']|(-?\d+(?:\.\d+)?)|(True|False))\s*[,)]"""
)
NUMBER_WORDS = {"no": 0, "none": 0, "empty": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


def _paragraphs():
    for doc, lines in _documents():
        paragraph, start = [], 1
        for number, line in enumerate([*lines, ""], 1):
            if line.strip():
                if not paragraph:
                    start = number
                paragraph.append(line)
            elif paragraph:
                yield f"{doc}:{start}", " ".join(paragraph)
                paragraph = []


def _table(doc: str, header: str) -> list[list[str]]:
    """The rows of the table of ``doc`` whose header line starts with ``header`` (cells stripped)."""
    lines = (ROOT / doc).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def code_defaults() -> dict[str, str]:
    """Environment variable → the literal default ``config/`` or an app's own settings module reads it with
    (non-literal defaults left out)."""
    found = {}
    for path in [*sorted((ROOT / "config").rglob("*.py")), *app_settings()]:
        for name, text, number, flag in ENV_READ.findall(path.read_text(encoding="utf-8")):
            found[name] = text if text or not (number or flag) else number or flag
    return found


def _same_default(documented: str, code: str) -> bool:
    truth = {"0": "False", "off": "False", "false": "False", "1": "True", "on": "True", "true": "True"}
    if code in ("True", "False"):
        return truth.get(documented.lower()) == code
    if code in ("0", "1") and documented.lower() in ("off", "on"):
        return truth[documented.lower()] == truth[code]
    return documented.replace(",", "") == code


def documented_defaults() -> list[tuple[str, str, str]]:
    """(where, variable, default) stated by the README's configuration table and by "`NAME` (123)" in the docs."""
    stated = []
    for row in _table("README.md", "| variable |"):
        names, defaults = TOKEN.findall(row[0]), [d.strip() for d in row[1].split(" / ")]
        if len(names) == len(defaults):
            for name, default in zip(names, defaults, strict=True):
                literal = TOKEN.fullmatch(default)
                if literal:
                    stated.append(("README.md configuration", name, literal.group(1)))
    for where, text in _paragraphs():
        for name, number in re.findall(r"`([A-Z][A-Z0-9_]+)`\s*\((\d[\d,]*)(?:\s*s)?\)", text):
            stated.append((where, name, number))
    return stated


def test_documented_defaults_are_the_code_defaults():
    """A default a document gives for an environment variable is the one the settings read it with."""
    code = code_defaults()
    stated = documented_defaults()
    wrong = [
        f"{where}: {name} documented {default!r}, the settings read {code[name]!r}"
        for where, name, default in stated
        if name in code and not _same_default(default, code[name])
    ]
    assert not wrong, "documents state defaults the code does not have:\n" + "\n".join(wrong)
    assert len([1 for _, name, _ in stated if name in code]) >= 25  # the check reads the table


def test_the_default_check_sees_a_wrong_default():
    assert _same_default("60/min", "60/min") and _same_default("off", "False") and _same_default("20,000", "20000")
    assert not _same_default("61/min", "60/min") and not _same_default("1", "False")
    assert code_defaults()["THROTTLE_ANON"] == "60/min"


def test_layer_exceptions_as_documented():
    """A document on the layer test states as many exceptions as its ``KNOWN`` set holds."""
    from tests.platform.test_layers import KNOWN

    statements = [(where, text) for where, text in _paragraphs() if "`KNOWN`" in text and "test_layers" in text]
    assert statements, "no document states the layer exceptions"
    for where, text in statements:
        sentence = text[text.index("`KNOWN`") :][:200].lower()
        counts = {n for word, n in NUMBER_WORDS.items() if re.search(rf"\b{word}\b", sentence)}
        counts |= {int(d) for d in re.findall(r"\b(\d+)\b", sentence)}
        assert counts == {len(KNOWN)}, f"{where} states {sorted(counts)} layer exceptions, KNOWN holds {len(KNOWN)}"


def test_the_menu_as_documented():
    """docs/ui.md's menu table is the registered menu: order, group, entry and address, in that order."""
    from django.urls import reverse

    from campaigns.platform.navigation import MENU

    menu = [
        [str(group.order), group.label or "—", item.label, f"`{reverse(item.url_name)}`"]
        for group in sorted(MENU.values(), key=lambda g: g.order)
        for item in group.items
    ]
    assert _table("docs/ui.md", "| order | group | entry | address |") == menu


def test_the_page_list_as_documented():
    """Every address of the pages table is a page, and every menu link to a workspace page is in the table."""
    from django.urls import Resolver404, resolve, reverse

    from campaigns.platform.navigation import MENU
    from campaigns.platform.pages import page_permissions

    addresses = [a for row in _table("docs/architecture.md", "| area | address |") for a in TOKEN.findall(row[1])]
    assert len(addresses) >= 8
    missing = []
    for address in addresses:
        try:
            resolve(address)
        except Resolver404:
            missing.append(address)
    assert not missing, f"docs/architecture.md lists pages that do not exist: {missing}"
    for group in MENU.values():
        for item in group.items:
            url = reverse(item.url_name)
            if page_permissions(resolve(url).func) is not None and url != "/":
                assert any(url.startswith(a) for a in addresses if a != "/"), f"the pages table misses {url}"
