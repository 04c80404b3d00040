/* Workflow builder: open/close step dialogs, insert variables into a message, show the step just changed.
   Delegated listeners, so they keep working after htmx swaps the step list. */
(function () {
  document.addEventListener("click", function (event) {
    var opener = event.target.closest("[data-open]");
    if (opener) {
      var dialog = document.getElementById(opener.dataset.open);
      if (dialog && !dialog.open) { dialog.showModal(); }
      return;
    }
    var closer = event.target.closest("[data-close]");
    if (closer) { closer.closest("dialog").close(); return; }
    var variable = event.target.closest("[data-insert]");
    if (variable) {
      var field = document.getElementById(variable.dataset.into);
      var token = variable.dataset.insert;
      var start = field.selectionStart != null ? field.selectionStart : field.value.length;
      var end = field.selectionEnd != null ? field.selectionEnd : field.value.length;
      field.value = field.value.slice(0, start) + token + field.value.slice(end);
      field.focus();
      field.setSelectionRange(start + token.length, start + token.length);
      field.dispatchEvent(new Event("input", { bubbles: true }));
    }
  });
  // "Insert from template": the chosen SMS template's text goes in at the cursor (then the preview updates).
  document.addEventListener("change", function (event) {
    var picker = event.target.closest("[data-template-into]");
    if (!picker || !picker.value) { return; }
    var field = document.getElementById(picker.dataset.templateInto);
    var start = field.selectionStart != null ? field.selectionStart : field.value.length;
    var end = field.selectionEnd != null ? field.selectionEnd : field.value.length;
    field.value = field.value.slice(0, start) + picker.value + field.value.slice(end);
    picker.value = "";
    field.focus();
    field.dispatchEvent(new Event("input", { bubbles: true }));
  });
  // A step's own retry setting typed or chosen: the step no longer follows the workflow's default (nothing the
  // person set may be dropped on save).
  document.addEventListener("input", function (event) {
    var name = event.target.name || "";
    if (name.indexOf("retry_") !== 0 || name === "retry_inherit") { return; }
    var inherit = event.target.closest("[data-testid=retry-editor]");
    inherit = inherit && inherit.querySelector("input[name=retry_inherit]");
    if (inherit) { inherit.checked = false; }
  });
  function showStep(path, openEditor) {
    var step = document.getElementById("step-" + path);
    if (step) {
      step.scrollIntoView({ block: "center" });
      step.classList.add("just-changed");
    }
    var dialog = openEditor && document.getElementById("dlg-" + path);
    if (dialog && !dialog.open) { dialog.showModal(); }
  }
  document.body.addEventListener("builder:focus", function (event) { showStep(event.detail.value, false); });
  // A step just added opens its editor at once (it is incomplete until edited): the page or the swapped-in
  // step list names it in data-open-step.
  function openNamedStep() {
    var builder = document.getElementById("builder");
    if (builder && builder.dataset.openStep) {
      var path = builder.dataset.openStep;
      delete builder.dataset.openStep;
      showStep(path, true);
    }
  }
  document.addEventListener("DOMContentLoaded", openNamedStep);
  document.addEventListener("htmx:afterSettle", openNamedStep);
})();
