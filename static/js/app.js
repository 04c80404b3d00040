// Staff pages: a table that scrolls sideways (narrow screens) can be focused and scrolled with the keyboard.
(function () {
  function markScrollable(root) {
    (root || document).querySelectorAll("table.table, table.week").forEach(function (table) {
      if (table.scrollWidth > table.clientWidth + 1) table.setAttribute("tabindex", "0");
      else table.removeAttribute("tabindex");
    });
  }
  document.addEventListener("DOMContentLoaded", function () { markScrollable(); });
  window.addEventListener("resize", function () { markScrollable(); });
  document.addEventListener("htmx:afterSettle", function () { markScrollable(); });
})();
