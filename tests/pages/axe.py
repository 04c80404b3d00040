"""axe-core 4 (vendored under tests/pages/vendor/axe-core, never from a CDN) run in a Playwright page."""

from pathlib import Path

AXE_JS = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = {"critical", "serious"}


def axe_violations(page) -> list[dict]:
    """The page's WCAG 2.1 A/AA violations of impact critical or serious, one dict per rule."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})",
        WCAG_TAGS,
    )
    return [
        {
            "rule": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [(n["target"], n.get("failureSummary", "")[:200]) for n in v["nodes"][:5]],
        }
        for v in result["violations"]
        if v["impact"] in BLOCKING
    ]
