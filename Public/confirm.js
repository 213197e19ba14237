// Herald: irreversible actions ask first. A form with data-confirm="…" shows that question in a
// dialog before it posts, and posts with confirmed=yes only when the author agrees. Without this
// script the server asks the same question on a page of its own.
(function () {
  "use strict";
  function ask(form) {
    var dialog = document.createElement("dialog");
    dialog.className = "confirm-dialog";
    var text = document.createElement("p");
    text.textContent = form.getAttribute("data-confirm");
    var buttons = document.createElement("div");
    buttons.className = "action-buttons";
    var yes = document.createElement("button");
    yes.type = "button";
    yes.className = "button " + (form.hasAttribute("data-confirm-safe") ? "primary" : "danger-solid");
    // The words come from the page, in its language (`data-confirm-yes`/`-no` on <body>).
    yes.textContent = form.getAttribute("data-confirm-label") || document.body.getAttribute("data-confirm-yes") || "Yes";
    var no = document.createElement("button");
    no.type = "button";
    no.className = "button secondary";
    no.textContent = document.body.getAttribute("data-confirm-no") || "No, go back";
    buttons.appendChild(yes);
    buttons.appendChild(no);
    dialog.appendChild(text);
    dialog.appendChild(buttons);
    document.body.appendChild(dialog);
    no.addEventListener("click", function () { dialog.close(); });
    dialog.addEventListener("close", function () { dialog.remove(); });
    yes.addEventListener("click", function () {
      var confirmed = document.createElement("input");
      confirmed.type = "hidden";
      confirmed.name = "confirmed";
      confirmed.value = "yes";
      form.appendChild(confirmed);
      dialog.close();
      form.submit();
    });
    dialog.showModal();
    no.focus();
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute("data-confirm") || form.querySelector("input[name=confirmed]")) { return; }
    event.preventDefault();
    ask(form);
  });
})();
