// The hosted verification page's only script (served from /l/assets/, allowed by the page's CSP as 'self').
// Progressive enhancement: every step also works as plain links and form posts without it.
//   - picking a photo or a file uploads it at once, with a progress bar (XMLHttpRequest upload events);
//   - refused uploads show their message in place, other outcomes load the next page the server names;
//   - a document still being checked is polled until it is done;
//   - the final page goes on to the business's redirect_url after a few seconds (the Continue button stays).
(function () {
  'use strict';
  document.documentElement.classList.add('js');

  function each(selector, fn) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), fn);
  }

  each('form.upload', function (form) {
    var inputs = form.querySelectorAll('input[type=file]');
    var box = form.querySelector('.progress');
    var bar = box.querySelector('progress');
    var text = box.querySelector('.progress-text');
    var error = form.querySelector('.upload-error');
    var busy = false;

    function setBusy(on) {
      busy = on;
      form.classList.toggle('busy', on);
      Array.prototype.forEach.call(inputs, function (i) { i.disabled = on; });
    }
    function fail(message) {
      setBusy(false);
      box.hidden = true;
      error.textContent = message || form.getAttribute('data-network-error');
      error.hidden = false;
      Array.prototype.forEach.call(inputs, function (i) { i.value = ''; });
    }
    function send(file) {
      if (busy) return;
      var data = new FormData();
      data.append('file', file, file.name);
      var xhr = new XMLHttpRequest();
      xhr.open('POST', form.action);
      xhr.setRequestHeader('Accept', 'application/json');
      xhr.upload.onprogress = function (e) {
        if (!e.lengthComputable) return;
        var percent = Math.round((e.loaded * 100) / e.total);
        bar.value = percent;
        text.textContent = form.getAttribute('data-uploading').replace('{percent}', String(percent));
      };
      xhr.upload.onload = function () {
        bar.value = 100;
        text.textContent = form.getAttribute('data-checking');
      };
      xhr.onload = function () {
        var body = null;
        try { body = JSON.parse(xhr.responseText); } catch (e) { body = null; }
        if (body && body.next) { window.location.assign(body.next); return; }
        fail(body && body.error && body.error.message);
      };
      xhr.onerror = function () { fail(); };
      error.hidden = true;
      bar.value = 0;
      text.textContent = form.getAttribute('data-uploading').replace('{percent}', '0');
      box.hidden = false;
      setBusy(true);
      xhr.send(data);
    }

    Array.prototype.forEach.call(inputs, function (input) {
      input.addEventListener('change', function () {
        if (input.files && input.files[0]) send(input.files[0]);
      });
    });
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      for (var i = 0; i < inputs.length; i++) {
        if (inputs[i].files && inputs[i].files[0]) { send(inputs[i].files[0]); return; }
      }
      fail(form.getAttribute('data-missing'));
    });
  });

  each('[data-poll]', function (el) {
    var url = el.getAttribute('data-poll');
    var timer = window.setInterval(function () {
      fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' })
        .then(function (r) { return r.json(); })
        .then(function (state) {
          if (!state.processing) { window.clearInterval(timer); window.location.reload(); }
        })
        .catch(function () { /* keep polling; the Refresh button is there too */ });
    }, 2000);
  });

  each('a[data-redirect]', function (a) {
    window.setTimeout(function () { window.location.assign(a.href); }, 5000);
  });
})();
