// A small Jalali (Solar Hijri) date picker for the staff pages: keyboard accessible, right-to-left.
//
// <input data-jalali-picker="iso">    the input keeps the ISO date the server reads ("2026-12-01") and is
//                                     hidden; a text input next to it shows and accepts the Jalali date.
// <input data-jalali-picker="jalali"> the input itself holds "1405/09/10" or "1405/09/10 09:30" (24-hour);
//                                     picking a day keeps the time that was typed.
// Keys in the calendar: arrows move a day / a week (left is the next day in RTL), Page Up / Page Down a
// month, Home / End the week's first / last day, Enter or Space picks, Escape closes.
// Calendar arithmetic: the jalaali-js algorithm (Borkowski), in Julian day numbers.
(function () {
  "use strict";
  var BREAKS = [-61, 9, 38, 199, 426, 686, 756, 818, 1111, 1181, 1210, 1635, 2060, 2097, 2192, 2262, 2324, 2394, 2456, 3178];
  var MONTHS = ["فروردین", "اردیبهشت", "خرداد", "تیر", "مرداد", "شهریور", "مهر", "آبان", "آذر", "دی", "بهمن", "اسفند"];
  var WEEKDAYS = [["ش", "شنبه"], ["ی", "یکشنبه"], ["د", "دوشنبه"], ["س", "سه‌شنبه"], ["چ", "چهارشنبه"], ["پ", "پنجشنبه"], ["ج", "جمعه"]];
  var FA = "۰۱۲۳۴۵۶۷۸۹";

  function div(a, b) { return ~~(a / b); }
  function fa(n) { return String(n).replace(/[0-9]/g, function (d) { return FA[d]; }); }
  function latin(s) { return String(s || "").replace(/[۰-۹]/g, function (d) { return FA.indexOf(d); }).replace(/[٠-٩]/g, function (d) { return d.charCodeAt(0) - 0x660; }); }
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function jalCal(jy) {
    var gy = jy + 621, leapJ = -14, jp = BREAKS[0], jm, jump = 0, n, i;
    for (i = 1; i < BREAKS.length; i++) {
      jm = BREAKS[i]; jump = jm - jp;
      if (jy < jm) break;
      leapJ += div(jump, 33) * 8 + div(jump % 33, 4); jp = jm;
    }
    n = jy - jp;
    leapJ += div(n, 33) * 8 + div((n % 33) + 3, 4);
    if (jump % 33 === 4 && jump - n === 4) leapJ += 1;
    var leapG = div(gy, 4) - div((div(gy, 100) + 1) * 3, 4) - 150;
    if (jump - n < 6) n = n - jump + div(jump + 4, 33) * 33;
    var leap = (((n + 1) % 33) - 1) % 4;
    if (leap === -1) leap = 4;
    return { leap: leap, gy: gy, march: 20 + leapJ - leapG };
  }
  function g2d(gy, gm, gd) {
    var d = div((gy + div(gm - 8, 6) + 100100) * 1461, 4) + div(153 * ((gm + 9) % 12) + 2, 5) + gd - 34840408;
    return d - div(div(gy + 100100 + div(gm - 8, 6), 100) * 3, 4) + 752;
  }
  function d2g(jdn) {
    var j = 4 * jdn + 139361631;
    j = j + div(div(4 * jdn + 183187720, 146097) * 3, 4) * 4 - 3908;
    var i = div(j % 1461, 4) * 5 + 308, gm = (div(i, 153) % 12) + 1;
    return [div(j, 1461) - 100100 + div(8 - gm, 6), gm, div(i % 153, 5) + 1];
  }
  function j2d(jy, jm, jd) { var r = jalCal(jy); return g2d(r.gy, 3, r.march) + (jm - 1) * 31 - div(jm, 7) * (jm - 7) + jd - 1; }
  function d2j(jdn) {
    var gy = d2g(jdn)[0], jy = gy - 621, r = jalCal(jy), k = jdn - g2d(gy, 3, r.march);
    if (k >= 0) {
      if (k <= 185) return [jy, 1 + div(k, 31), (k % 31) + 1];
      k -= 186;
    } else { jy -= 1; k += 179; if (r.leap === 1) k += 1; }
    return [jy, 7 + div(k, 30), (k % 30) + 1];
  }
  function monthDays(jy, jm) { return jm <= 6 ? 31 : jm <= 11 ? 30 : (jalCal(jy).leap === 0 ? 30 : 29); }
  function today() { var t = new Date(); return g2d(t.getFullYear(), t.getMonth() + 1, t.getDate()); }
  function parseJalali(text) {  // "1405/09/10[ 09:30]" (any digits) -> [jdn, " 09:30"] or null
    var m = /^\s*(\d{4})[\/-](\d{1,2})[\/-](\d{1,2})(\s+\d{1,2}:\d{2})?\s*$/.exec(latin(text));
    if (!m) return null;
    var jy = +m[1], jm = +m[2], jd = +m[3];
    if (jm < 1 || jm > 12 || jd < 1 || jd > monthDays(jy, jm)) return null;
    return [j2d(jy, jm, jd), m[4] || ""];
  }
  function parseIso(text) {
    var m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text || "");
    return m ? g2d(+m[1], +m[2], +m[3]) : null;
  }
  function jalaliText(jdn, digits) { var j = d2j(jdn), s = j[0] + "/" + pad(j[1]) + "/" + pad(j[2]); return digits ? fa(s) : s; }
  function isoText(jdn) { var g = d2g(jdn); return g[0] + "-" + pad(g[1]) + "-" + pad(g[2]); }

  var ICON = '<svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="2"><rect x="3" y="5" width="18" height="16" rx="2"/><path d="M3 10h18M8 3v4M16 3v4"/></svg>';

  function enhance(input) {
    if (input.dataset.jalaliReady) return;
    input.dataset.jalaliReady = "1";
    var iso = input.dataset.jalaliPicker === "iso";
    var text = input;
    var label = input.getAttribute("aria-label") || (input.labels && input.labels[0] ? input.labels[0].textContent.trim() : "تاریخ");
    if (iso) {
      text = document.createElement("input");
      text.type = "text";
      text.id = input.id;
      input.removeAttribute("id");
      input.type = "hidden";
      text.setAttribute("dir", "ltr");
      text.setAttribute("inputmode", "numeric");
      text.setAttribute("placeholder", "۱۴۰۵/۰۱/۳۱");
      text.setAttribute("autocomplete", "off");
      text.className = "jalali-text";
      var start = parseIso(input.value);
      text.value = start ? jalaliText(start, true) : "";
      input.parentNode.insertBefore(text, input);
      text.addEventListener("change", function () {
        var parsed = parseJalali(text.value);
        input.value = parsed ? isoText(parsed[0]) : "";
        text.setAttribute("aria-invalid", text.value && !parsed ? "true" : "false");
      });
    }
    var wrap = document.createElement("span");
    wrap.className = "jp-wrap";
    text.parentNode.insertBefore(wrap, text);
    wrap.appendChild(text);
    var open = document.createElement("button");
    open.type = "button";
    open.className = "jp-open";
    open.innerHTML = ICON;
    open.setAttribute("aria-label", "انتخاب از تقویم: " + label);
    open.setAttribute("aria-haspopup", "dialog");
    open.setAttribute("aria-expanded", "false");
    wrap.appendChild(open);
    var panel = null, focused = null;

    function current() { var p = parseJalali(text.value); return p ? p[0] : (iso && parseIso(input.value)) || today(); }
    function close(refocus) {
      if (!panel) return;
      panel.remove(); panel = null; open.setAttribute("aria-expanded", "false");
      if (refocus) open.focus();
    }
    function pick(jdn) {
      if (iso) { text.value = jalaliText(jdn, true); input.value = isoText(jdn); }
      else { var p = parseJalali(text.value); text.value = jalaliText(jdn, false) + (p ? p[1] : ""); }
      text.dispatchEvent(new Event("input", { bubbles: true }));
      text.dispatchEvent(new Event("change", { bubbles: true }));
      close(true);
    }
    function render() {
      var j = d2j(focused), first = j2d(j[0], j[1], 1), days = monthDays(j[0], j[1]);
      var selected = parseJalali(text.value), chosen = selected ? selected[0] : null;
      var html = '<div class="jp-head"><button type="button" class="jp-prev" aria-label="ماه قبل">›</button>' +
        '<span class="jp-title" aria-live="polite">' + MONTHS[j[1] - 1] + " " + fa(j[0]) + "</span>" +
        '<button type="button" class="jp-next" aria-label="ماه بعد">‹</button></div><table class="jp-grid" role="grid"><thead><tr>';
      WEEKDAYS.forEach(function (w) { html += '<th scope="col" abbr="' + w[1] + '">' + w[0] + "</th>"; });
      html += "</tr></thead><tbody><tr>";
      var lead = (first + 2) % 7, cell = 0, d;
      for (d = 0; d < lead; d++, cell++) html += "<td></td>";
      for (d = 1; d <= days; d++, cell++) {
        if (cell && cell % 7 === 0) html += "</tr><tr>";
        var jdn = first + d - 1;
        html += '<td><button type="button" data-jdn="' + jdn + '" tabindex="' + (jdn === focused ? 0 : -1) + '"' +
          (jdn === chosen ? ' aria-pressed="true"' : "") + (jdn === today() ? ' class="jp-today"' : "") +
          ' aria-label="' + fa(d) + " " + MONTHS[j[1] - 1] + " " + fa(j[0]) + '">' + fa(d) + "</button></td>";
      }
      html += "</tr></tbody></table>";
      panel.innerHTML = html;
      panel.querySelector('[data-jdn="' + focused + '"]').focus();
    }
    function move(jdn) { focused = jdn; render(); }
    function shiftMonth(delta) {
      var j = d2j(focused), m = j[1] + delta, y = j[0];
      if (m < 1) { m = 12; y -= 1; } else if (m > 12) { m = 1; y += 1; }
      move(j2d(y, m, Math.min(j[2], monthDays(y, m))));
    }
    open.addEventListener("click", function () {
      if (panel) { close(true); return; }
      panel = document.createElement("div");
      panel.className = "jp";
      panel.setAttribute("role", "dialog");
      panel.setAttribute("aria-label", "تقویم: " + label);
      wrap.appendChild(panel);
      open.setAttribute("aria-expanded", "true");
      focused = current();
      render();
      panel.addEventListener("click", function (e) {
        var b = e.target.closest("button");
        if (!b) return;
        if (b.dataset.jdn) pick(+b.dataset.jdn);
        else shiftMonth(b.classList.contains("jp-next") ? 1 : -1);
      });
      panel.addEventListener("keydown", function (e) {
        var keys = { ArrowLeft: 1, ArrowRight: -1, ArrowDown: 7, ArrowUp: -7 };
        var weekday = (focused + 2) % 7;
        if (e.key in keys && e.target.dataset.jdn) move(focused + keys[e.key]);
        else if (e.key === "PageDown") shiftMonth(1);
        else if (e.key === "PageUp") shiftMonth(-1);
        else if (e.key === "Home" && e.target.dataset.jdn) move(focused - weekday);
        else if (e.key === "End" && e.target.dataset.jdn) move(focused + 6 - weekday);
        else if (e.key === "Escape") close(true);
        else return;
        e.preventDefault();
      });
    });
    document.addEventListener("click", function (e) { if (panel && !wrap.contains(e.target)) close(false); });
  }
  function enhanceAll(root) { (root || document).querySelectorAll("input[data-jalali-picker]").forEach(enhance); }
  document.addEventListener("DOMContentLoaded", function () { enhanceAll(); });
  document.addEventListener("htmx:afterSettle", function (e) { enhanceAll(e.target); });
  window.jalaliPicker = { toJalali: function (y, m, d) { return d2j(g2d(y, m, d)); }, toGregorian: function (y, m, d) { return d2g(j2d(y, m, d)); } };
})();
