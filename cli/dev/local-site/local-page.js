// The local page's one button: ask for notifications through the push-kit API, as a site's own button would.
/* global document, window */
document.getElementById('subscribe-button')?.addEventListener('click', function () {
  window.pushkit.push(['triggerOptIn']);
});
