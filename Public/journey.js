// Herald: the journey page. Choosing a step's type shows that type's fields at once, by pressing
// the step's own "Show its fields" button for the author (the page works the same without this
// script: the author presses it). The form is posted as typed, nothing is saved by it.
(function () {
  "use strict";
  document.querySelectorAll("select[data-step-type]").forEach(function (select) {
    var step = select.closest(".journey-step");
    var refresh = step && step.querySelector("button[data-refresh]");
    if (!refresh) { return; }
    refresh.hidden = true;
    select.addEventListener("change", function () { refresh.click(); });
  });
})();
