// Herald: a device file goes up as the request's body itself, not inside a form, so the server
// reads it as it arrives and a file of any size imports (up to HERALD_MAX_IMPORT_BYTES). The
// answer is the devices page with the import's report, shown in place of this one. Without this
// script the form posts the file inside multipart/form-data, up to the body limit (1 MB).
(function () {
  "use strict";
  var form = document.querySelector("form[data-stream-import]");
  if (!form || !window.fetch) return;
  form.addEventListener("submit", function (event) {
    var input = form.querySelector("input[type=file]");
    var file = input && input.files && input.files[0];
    if (!file) return;  // the form posts, and the page asks for a file
    event.preventDefault();
    var button = form.querySelector("button[type=submit]");
    var label = button.textContent;
    button.disabled = true;
    button.textContent = form.getAttribute("data-busy");
    var ndjson = /\.(ndjson|jsonl)$/i.test(file.name);
    fetch(form.action, {
      method: "POST",
      body: file,
      credentials: "same-origin",
      headers: {
        "Content-Type": ndjson ? "application/x-ndjson" : "text/csv",
        "X-CSRF-Token": form.querySelector("input[name=csrf_token]").value
      }
    }).then(function (response) {
      return response.text();
    }).then(function (html) {
      document.open();
      document.write(html);
      document.close();
    }).catch(function () {
      button.disabled = false;
      button.textContent = label;
      var alert = form.querySelector("[data-import-failed]") || document.createElement("p");
      alert.setAttribute("data-import-failed", "");
      alert.setAttribute("role", "alert");
      alert.className = "field-error";
      alert.textContent = form.getAttribute("data-failed");
      form.appendChild(alert);
    });
  });
})();
