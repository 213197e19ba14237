// Herald: the journey page, improved by script (it works the same without: see journey.mustache).
// Choosing a step's type shows that type's fields at once, by pressing the step's own "Show its
// fields" button for the author; and the selects that choose a later step by name follow the
// names as they are typed, so a step named a moment ago can be chosen without a round trip.
(function () {
  "use strict";
  var steps = Array.prototype.slice.call(document.querySelectorAll(".journey-step"));

  steps.forEach(function (step) {
    var select = step.querySelector("select[data-step-type]");
    var refresh = step.querySelector("button[data-refresh]");
    if (!select || !refresh) { return; }
    refresh.hidden = true;
    select.addEventListener("change", function () { refresh.click(); });
  });

  function nameOf(step) {
    var input = step.querySelector("input[data-step-name]");
    return input ? input.value.trim() : "";
  }

  // Each target select lists the steps after its own, keeping its first (blank) option and its choice.
  function sync() {
    steps.forEach(function (step, index) {
      var later = steps.slice(index + 1).map(nameOf).filter(function (name) { return name !== ""; });
      step.querySelectorAll("select[data-targets]").forEach(function (select) {
        var chosen = select.value;
        while (select.options.length > 1) { select.remove(1); }
        later.forEach(function (name) { select.add(new Option(name, name, false, name === chosen)); });
        if (chosen !== "" && later.indexOf(chosen) < 0) { select.add(new Option(chosen, chosen, false, true)); }
      });
    });
  }
  document.querySelectorAll("input[data-step-name]").forEach(function (input) { input.addEventListener("input", sync); });
})();
