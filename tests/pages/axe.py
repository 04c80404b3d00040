"""axe-core 4 (vendored under tests/pages/vendor/axe-core, never from a CDN) run in a Playwright page."""

from pathlib import Path

AXE_JS = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = {"critical", "serious"}
# Best-practice rules (moderate or minor impact) the pages pass: any violation of these fails too.
ENFORCED_RULES = [
    "landmark-banner-is-top-level",
    "landmark-complementary-is-top-level",
    "landmark-contentinfo-is-top-level",
    "landmark-main-is-top-level",
    "landmark-no-duplicate-banner",
    "landmark-no-duplicate-contentinfo",
    "landmark-no-duplicate-main",
    "landmark-one-main",
    "landmark-unique",
    "heading-order",
    "empty-table-header",
    "page-has-heading-one",
    "region",
]
RUN = """([tags, rules]) => axe.run(document, {
    runOnly: {type: 'tag', values: tags},
    rules: Object.fromEntries(rules.map(rule => [rule, {enabled: true}])),
    resultTypes: ['violations'],
})"""


def axe_violations(page) -> list[dict]:
    """The page's WCAG 2.1 A/AA violations of impact critical or serious, and any of ``ENFORCED_RULES``."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    result = page.evaluate(RUN, [WCAG_TAGS, ENFORCED_RULES])
    return [
        {
            "rule": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [(n["target"], n.get("failureSummary", "")[:200]) for n in v["nodes"][:5]],
        }
        for v in result["violations"]
        if v["impact"] in BLOCKING or v["id"] in ENFORCED_RULES
    ]
