"""The dependency direction between the apps, as declared in pyproject.toml ([tool.importlinter]).

automation imports no channel (sms, workers); sms and workers never import each other; campaigns imports
none of automation, sms, workers; the kernel (campaigns.platform, app label ``platform``) imports nothing
else of campaigns; the campaign core (every other module of campaigns) imports nothing of chains (campaigns.chains,
app label ``chains``); the product imports nothing of tests (the benchmarks, tests.bench, included). Model
relations and "app.Model" strings obey the same direction (migrations excluded).
"""

import ast
import importlib
import itertools
import pkgutil
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest
from django.apps import apps

BASE_DIR = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((BASE_DIR / "pyproject.toml").read_text())["tool"]["importlinter"]
CONTRACTS = {contract["id"]: contract for contract in CONFIG["contracts"]}

# The kernel is an app of its own: its models relate to none of the product apps.
KERNEL_APP = "platform"
PRODUCT_APPS = {"campaigns", "automation", "sms", "workers"}


def expand(module: str) -> list[str]:
    """A contract's module, with ``package.*`` read as every direct child of the package (as lint-imports does)."""
    if not module.endswith(".*"):
        return [module]
    package = importlib.import_module(module[:-2])
    return [f"{package.__name__}.{child.name}" for child in pkgutil.iter_modules(package.__path__)]


def overlap(one: str, other: str) -> bool:
    return in_package(one, other) or in_package(other, one)


def forbidden_pairs() -> list[tuple[str, str, bool]]:
    """(importer, imported, indirect imports count) for every contract."""
    pairs = []
    for contract in CONTRACTS.values():
        if contract["type"] == "forbidden":
            indirect = not contract.get("allow_indirect_imports", False)
            forbidden = [module for pattern in contract["forbidden_modules"] for module in expand(pattern)]
            sources = [module for pattern in contract["source_modules"] for module in expand(pattern)]
            for source, target in itertools.product(sources, forbidden):
                if not overlap(source, target):
                    pairs.append((source, target, indirect))
        elif contract["type"] == "independence":
            for one, other in itertools.permutations(contract["modules"], 2):
                pairs.append((one, other, True))
        else:  # pragma: no cover - a new contract type needs handling here
            raise AssertionError(f"unhandled contract type {contract['type']}")
    return pairs


def forbidden_apps() -> dict[str, set[str]]:
    """App label → the apps it must not depend on (the top-level contracts between product apps)."""
    result: dict[str, set[str]] = {KERNEL_APP: set(PRODUCT_APPS)}
    for importer, imported, _ in forbidden_pairs():
        if importer in PRODUCT_APPS and imported in PRODUCT_APPS:
            result.setdefault(importer, set()).add(imported)
    return result


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.fixture
def graph():
    return grimp.build_graph(*CONFIG["root_packages"], cache_dir=None)


def violations(graph) -> list[str]:
    found = []
    for importer, imported, indirect in forbidden_pairs():
        if indirect:
            chain = graph.find_shortest_chain(importer=importer, imported=imported, as_packages=True)
            if chain:
                found.append(f"{importer} ↛ {imported}: {' -> '.join(chain)}")
        else:
            for module in sorted(m for m in graph.modules if in_package(m, importer)):
                for target in sorted(graph.find_modules_directly_imported_by(module)):
                    if in_package(target, imported):
                        found.append(f"{importer} ↛ {imported}: {module} -> {target}")
    return found


def test_no_import_breaks_the_direction(graph):
    """Every contract holds, with no exception (a channel's demo and benchmark set-up live in its app)."""
    assert violations(graph) == []


def test_no_product_module_imports_the_benchmarks(graph):
    """The benchmarks (tests.bench) sit above every app: an added sms → tests.bench import is reported."""
    graph.add_import(importer="sms.services", imported="tests.bench.harness")
    try:
        assert any("sms.services -> tests.bench.harness" in line for line in violations(graph))
    finally:
        graph.remove_import(importer="sms.services", imported="tests.bench.harness")


def test_the_checker_sees_a_forbidden_import(graph):
    """The check above can fail: an added campaigns → workers import is reported."""
    graph.add_import(importer="campaigns.platform.tenancy", imported="workers.models")
    try:
        assert any("campaigns.platform.tenancy -> workers.models" in line for line in violations(graph))
    finally:
        graph.remove_import(importer="campaigns.platform.tenancy", imported="workers.models")


def test_lint_imports_passes():
    """What `make lint` runs in CI."""
    result = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache", "--no-logo"],
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if result.returncode != 0:
        pytest.fail(result.stdout + result.stderr)


def test_the_kernel_contract_is_one_rule():
    """The kernel imports no other module of campaigns, directly or not; a new product module is covered."""
    contract = CONTRACTS["kernel-below-product"]
    assert (contract["source_modules"], contract["forbidden_modules"]) == (["campaigns.platform"], ["campaigns.*"])
    assert not contract.get("allow_indirect_imports", False)
    assert ("campaigns.platform", "campaigns.selectors", True) in forbidden_pairs()
    assert not any(target == "campaigns.platform" for _, target, _ in forbidden_pairs())


def test_the_checker_sees_the_kernel_importing_the_product(graph):
    graph.add_import(importer="campaigns.platform.tenancy", imported="campaigns.choices")
    try:
        assert any("campaigns.platform.tenancy -> campaigns.choices" in line for line in violations(graph))
    finally:
        graph.remove_import(importer="campaigns.platform.tenancy", imported="campaigns.choices")


def test_the_core_contract_covers_every_core_module():
    """A new module of campaigns is held to it; chains itself (the forbidden package) is not a source."""
    contract = CONTRACTS["core-below-chains"]
    assert (contract["source_modules"], contract["forbidden_modules"]) == (["campaigns.*"], ["campaigns.chains"])
    assert not contract.get("allow_indirect_imports", False)
    sources = {importer for importer, imported, _ in forbidden_pairs() if imported == "campaigns.chains"}
    assert {"campaigns.models", "campaigns.services", "campaigns.selectors", "campaigns.platform"} <= sources
    assert "campaigns.chains" not in sources


def test_the_checker_sees_the_core_importing_chains(graph):
    graph.add_import(importer="campaigns.services.workspaces", imported="campaigns.chains.schedule")
    try:
        assert any("campaigns.services.workspaces -> campaigns.chains.schedule" in line for line in violations(graph))
    finally:
        graph.remove_import(importer="campaigns.services.workspaces", imported="campaigns.chains.schedule")


def test_the_browser_channel_reaches_approval_through_the_core(graph):
    """Approval, four eyes and the workspace settings are the core's: the browser channel imports no chains."""
    assert graph.find_shortest_chain(importer="workers", imported="campaigns.chains", as_packages=True) is None
    assert graph.direct_import_exists(importer="workers.views", imported="campaigns.services.approval")


def model_references(rules: dict[str, set[str]] | None = None) -> set[tuple[str, str]]:
    """(app.Model.field, related app.Model) for every relation that crosses apps against the direction."""
    rules = forbidden_apps() if rules is None else rules
    found = set()
    for model in apps.get_models(include_auto_created=True):
        banned = rules.get(model._meta.app_label, set())
        for field in model._meta.get_fields(include_hidden=True):
            if not field.is_relation or field.related_model is None or field.auto_created:
                continue
            if field.related_model._meta.app_label in banned:
                found.add((f"{model._meta.label}.{field.name}", field.related_model._meta.label))
    return found


def test_no_model_relation_breaks_the_direction():
    assert model_references() == set()


def test_the_relation_check_sees_a_relation():
    """The check above can fail: with the kernel forbidden to depend on auth, Membership.user is reported."""
    assert ("platform.Membership.user", "auth.User") in model_references({KERNEL_APP: {"auth"}})


def test_the_kernel_models_relate_to_no_product_app():
    """Every product model points at the kernel's Workspace; no kernel model points back."""
    assert forbidden_apps()[KERNEL_APP] == PRODUCT_APPS
    assert ("campaigns.Target.workspace", "platform.Workspace") in model_references({"campaigns": {KERNEL_APP}})


def string_model_references(folder: str, banned: set[str]) -> list[tuple[str, str]]:
    """(path:line, ``"other_app.Model"``) for lazy relations and apps.get_model strings; migrations excluded."""
    pattern = re.compile(rf"^({'|'.join(sorted(banned))})\.[A-Z]\w*$")
    found = []
    for path in sorted((BASE_DIR / folder).rglob("*.py")):
        relative = path.relative_to(BASE_DIR)
        if "migrations" in relative.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and pattern.match(node.value):
                found.append((f"{relative}:{node.lineno}", node.value))
    return sorted(found)


def app_folder(label: str) -> str:
    return str(Path(apps.get_app_config(label).path).relative_to(BASE_DIR))


def test_no_model_string_breaks_the_direction():
    found = [
        (where, value)
        for app, banned in forbidden_apps().items()
        for where, value in string_model_references(app_folder(app), banned)
    ]
    assert found == []


def test_the_string_scan_sees_a_reference(tmp_path, monkeypatch):
    """The scan above can fail: a lazy relation to another app's model is reported, migrations are not."""
    app = tmp_path / "campaigns"
    (app / "migrations").mkdir(parents=True)
    (app / "models.py").write_text('group = ForeignKey("sms.SmsAccount", on_delete=CASCADE)\n')
    (app / "migrations" / "0001_initial.py").write_text('to = "sms.SmsAccount"\n')
    monkeypatch.setattr(sys.modules[__name__], "BASE_DIR", tmp_path)
    assert string_model_references("campaigns", {"sms"}) == [("campaigns/models.py:1", "sms.SmsAccount")]
