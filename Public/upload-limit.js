// Herald: an image over the composer's limit is refused beside its field as soon as it is chosen,
// before anything is uploaded, in the page's language and in the words the server uses after a
// post (`ImageUpload.tooLarge`). A form holding such an image does not post until it is replaced
// or removed. Without this script the server refuses it the same way, with the form kept.
(function () {
  "use strict";
  var body = document.body;
  var limit = Number(body.getAttribute("data-image-max-bytes")) || 0;
  if (!limit) { return; }
  var lang = document.documentElement.lang || "en";

  function figure(n, decimals) {
    if (lang === "en" && !decimals) { return String(n); }
    // Hindi pages write Devanagari digits, as the server does.
    return Number(n).toLocaleString(lang === "hi" ? "hi-u-nu-deva" : lang, { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  }
  function fill(form, values) {
    var text = form || "";
    values.forEach(function (value, i) { text = text.split("%" + (i + 1) + "$@").join(value); });
    return text.split("%@").join(values[0]);
  }
  // As `Localized.fileSize`: whole kilobytes under a megabyte, else megabytes to a tenth.
  function size(bytes) {
    var kilobytes = Math.floor((bytes + 512) / 1024);
    if (kilobytes < 1024) { return fill(body.getAttribute("data-size-kb"), [figure(kilobytes, 0)]); }
    var tenths = Math.floor((bytes * 10 + 524288) / 1048576);
    return fill(body.getAttribute("data-size-mb"), [tenths % 10 === 0 ? figure(tenths / 10, 0) : figure(tenths / 10, 1)]);
  }
  function tooLarge(input) {
    var file = input.files && input.files[0];
    return file && file.size > limit ? file : null;
  }

  // The error goes where the server puts its own (the field's .field-error), or in a new one.
  function show(input) {
    var file = tooLarge(input);
    var field = input.closest(".field") || input.parentNode;
    var error = field.querySelector("[data-size-error]");
    if (!file) {
      if (error) {
        error.remove();
        input.removeAttribute("aria-invalid");
        if (!field.querySelector(".field-error")) { field.classList.remove("invalid"); }
      }
      return false;
    }
    if (!error) {
      error = document.createElement("p");
      error.className = "field-error";
      error.setAttribute("data-size-error", "");
      error.id = (input.id || input.name) + "-size-error";
      field.appendChild(error);
      var described = (input.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
      if (described.indexOf(error.id) < 0) { described.push(error.id); }
      input.setAttribute("aria-describedby", described.join(" "));
    }
    error.textContent = fill(body.getAttribute("data-image-too-large"), [size(file.size), size(limit)]);
    field.classList.add("invalid");
    input.setAttribute("aria-invalid", "true");
    return true;
  }

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input instanceof HTMLInputElement && input.type === "file" && input.hasAttribute("data-image")) { show(input); }
  });
  // Every save of the form (Save, Save and review, a row added) waits for a smaller image.
  document.addEventListener("submit", function (event) {
    var refused = Array.prototype.filter.call(event.target.querySelectorAll("input[type=file][data-image]"), show);
    if (refused.length) {
      event.preventDefault();
      event.stopImmediatePropagation();
      refused[0].focus();
    }
  }, true);
})();
