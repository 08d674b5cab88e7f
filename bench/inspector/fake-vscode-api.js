// Bench stand-in for the API VS Code gives a webview. Loaded as its own <script nonce> file before
// the inspector bundle (the page's CSP forbids inline script). It records what the page posts, and
// plays an instant extension host for previews: a 'preview' post is answered on the next task with
// the plan the bench precomputed for that strategy (window.__bench.plans), so the time from the
// answer to the highlight is the webview's own work.
(function () {
  'use strict';
  var bench = {
    posted: [],
    readyAt: null,
    plans: {},
    answeredAt: null,
    answeredRequestId: null,
    deliver: function (message) {
      window.dispatchEvent(new MessageEvent('message', { data: message }));
    },
  };
  window.__bench = bench;
  var state;
  var api = Object.freeze({
    postMessage: function (message) {
      var copy = JSON.parse(JSON.stringify(message));
      bench.posted.push(copy);
      if (copy && copy.type === 'ready' && bench.readyAt === null) bench.readyAt = performance.now();
      if (copy && copy.type === 'preview' && bench.plans[copy.strategy]) {
        var plan = Object.assign({}, bench.plans[copy.strategy], { requestId: copy.requestId });
        setTimeout(function () {
          bench.answeredRequestId = copy.requestId;
          bench.answeredAt = performance.now();
          bench.deliver({ type: 'plan', plan: plan });
        }, 0);
      }
    },
    getState: function () {
      return state === undefined ? undefined : JSON.parse(JSON.stringify(state));
    },
    setState: function (s) {
      state = JSON.parse(JSON.stringify(s));
    },
  });
  var acquired = 0;
  window.acquireVsCodeApi = function () {
    acquired++;
    if (acquired > 1) throw new Error('An instance of the VS Code API has already been acquired');
    return api;
  };
  document.body.classList.add('vscode-dark');
  document.body.setAttribute('data-vscode-theme-kind', 'vscode-dark');
})();
