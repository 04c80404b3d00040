// Narrow screens: the menu folds behind its «منو» button (CSS shows the button only there).
(function () {
  document.addEventListener("DOMContentLoaded", function () {
    var bar = document.querySelector(".topbar"), button = bar && bar.querySelector(".menu-toggle");
    if (!button) return;
    bar.classList.add("foldable");
    button.addEventListener("click", function () {
      var open = bar.classList.toggle("menu-open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
  });
})();

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
