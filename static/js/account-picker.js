// The browser campaign form's account picker: the list follows the platform (htmx), and nothing the person
// ticked may vanish. A tick made while the list was being fetched is carried into the new list; a ticked
// account the new list no longer holds (another platform) is named in a notice; a summary names every
// account that will be saved.
(function () {
  var SELECTOR = "input[type=checkbox][name=accounts], input[type=checkbox][name=spare_accounts]";
  var held = null;

  function ticked(root) {
    var out = [];
    root.querySelectorAll(SELECTOR).forEach(function (box) {
      if (box.checked) out.push({ name: box.name, value: box.value, label: box.dataset.label });
    });
    return out;
  }

  function say(id, text) {
    var el = document.getElementById(id);
    if (!el) return;
    el.textContent = text;
    el.hidden = !text;
  }

  function summarize() {
    var picker = document.getElementById("account-picker");
    if (!picker) return;
    var picked = ticked(picker);
    var main = picked.filter(function (t) { return t.name === "accounts"; }).map(function (t) { return t.label; });
    var spare = picked.filter(function (t) { return t.name === "spare_accounts"; }).map(function (t) { return t.label; });
    var fa = function (n) { return String(n).replace(/\d/g, function (d) { return "۰۱۲۳۴۵۶۷۸۹"[d]; }); };
    var text = main.length ? "اصلی (" + fa(main.length) + "): " + main.join("، ") : "هنوز حساب اصلی‌ای انتخاب نشده است.";
    if (spare.length) text += " · یدک (" + fa(spare.length) + "): " + spare.join("، ");
    say("account-summary", text);
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id === "account-picker") held = ticked(target);
  });
  document.addEventListener("htmx:afterSettle", function () {
    var picker = document.getElementById("account-picker");
    if (!picker || held === null) return;
    var dropped = [];
    held.forEach(function (t) {
      var box = picker.querySelector("input[name=" + t.name + "][value='" + t.value + "']");
      if (box && !box.disabled) box.checked = true;
      else dropped.push(t.label);
    });
    held = null;
    say("account-dropped", dropped.length ? "این حساب‌ها از سکوی دیگری‌اند و دیگر انتخاب نیستند: " + dropped.join("، ") : "");
    summarize();
  });
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches(SELECTOR)) summarize();
  });
  document.addEventListener("DOMContentLoaded", summarize);
})();
