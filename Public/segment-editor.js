// The segment editor with script: the property name only for a property row, the registry's values
// suggested for the chosen attribute, and the reach counted as the rule changes (the "Count devices"
// button does the same without script).
(function () {
  "use strict";
  var form = document.querySelector("[data-segment-editor]");
  if (!form) { return; }
  var reach = form.querySelector("[data-live-reach]");

  function fitRow(row) {
    var field = row.querySelector("[data-condition-field]").value;
    var name = row.querySelector("[data-condition-name]");
    var value = row.querySelector("[data-condition-value]");
    name.hidden = field !== "" && field !== "property";
    var list = document.getElementById("segment-values-" + field);
    if (list) { value.setAttribute("list", list.id); } else { value.removeAttribute("list"); }
  }

  var timer = null;
  var asked = 0;
  function count() {
    var data = new FormData(form);
    data.delete("action");
    var request = ++asked;
    fetch("/segment-editor/reach", { method: "POST", body: data, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (answer) {
        if (!answer || request !== asked || !reach) { return; }
        reach.textContent = answer.text;
        reach.hidden = answer.text === "";
      })
      .catch(function () { /* the last count stays; "Count devices" still counts */ });
  }
  function changed(event) {
    var row = event.target.closest("[data-condition-row]");
    if (row) { fitRow(row); }
    clearTimeout(timer);
    timer = setTimeout(count, 300);
  }

  form.querySelectorAll("[data-condition-row]").forEach(fitRow);
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
})();
