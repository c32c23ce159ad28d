// The example site's own script: a button that asks for notifications through the push-kit API.
document.getElementById('subscribe-button')?.addEventListener('click', function () {
  window.pushkit.push(['triggerOptIn']);
});
