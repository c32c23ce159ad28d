// The example site's own script: its "notify me" button is the push-kit opt-in button. push.js wires the click
// itself (pushkit.optInButton), so the visitor's own click on it also reaches a visitor who opted out earlier.
window.pushkit = window.pushkit || [];
window.pushkit.push(['optInButton', document.getElementById('subscribe-button')]);
