// Test stand-in for the API VS Code gives a webview, loaded as its own <script nonce> file before
// the bundle (never inline: the page's CSP forbids inline script). It records everything the page
// posts, persists setState in sessionStorage (so a reload restores, as VS Code does when a view is
// hidden and shown again), and watches for what an XSS payload would try: extra acquireVsCodeApi
// calls, window.postMessage / parent.postMessage, window.open, CSP violations.
(function () {
  'use strict';
  var KEY = 'fake-vscode-state';
  var params = new URLSearchParams(location.search);
  var theme = params.get('theme') || 'dark';
  var test = {
    posted: [],
    rootTextAtReady: null,
    stateWrites: 0,
    acquired: 0,
    unexpectedPostMessage: [],
    opened: [],
    csp: [],
    deliver: function (msg) {
      window.dispatchEvent(new MessageEvent('message', { data: msg, origin: location.origin }));
    },
    deliverAll: function (msgs) {
      for (var i = 0; i < msgs.length; i++) test.deliver(msgs[i]);
    },
    savedState: function () {
      return state;
    },
    // The harness is done with this page: drop its state and whatever it saves on the way out (the
    // chat view flushes its state on pagehide), so the next page starts empty, as a new view does.
    forgetState: function () {
      forgotten = true;
      state = undefined;
      sessionStorage.removeItem(KEY);
    },
  };
  Object.defineProperty(window, '__vscodeTest', { value: test, writable: false, configurable: false });

  var state;
  var forgotten = false;
  try {
    var raw = sessionStorage.getItem(KEY);
    state = raw ? JSON.parse(raw) : undefined;
  } catch (e) {
    state = undefined;
  }

  var api = Object.freeze({
    postMessage: function (msg) {
      var copy = JSON.parse(JSON.stringify(msg));
      if (copy && copy.type === 'ready') {
        var root = document.getElementById('root');
        test.rootTextAtReady = root ? root.textContent : null;
      }
      test.posted.push(copy);
    },
    getState: function () {
      return state === undefined ? undefined : JSON.parse(JSON.stringify(state));
    },
    setState: function (s) {
      if (forgotten) return;
      state = JSON.parse(JSON.stringify(s));
      test.stateWrites++;
      sessionStorage.setItem(KEY, JSON.stringify(state));
    },
  });

  Object.defineProperty(window, 'acquireVsCodeApi', {
    value: function () {
      test.acquired++;
      if (test.acquired > 1) throw new Error('An instance of the VS Code API has already been acquired');
      return api;
    },
    writable: false,
    configurable: false,
  });

  // In a real webview the host's messages come from the parent frame; here the test delivers them
  // with dispatchEvent, so any call to postMessage is someone else's doing.
  var recordPost = function (msg) {
    try {
      test.unexpectedPostMessage.push(JSON.stringify(msg));
    } catch (e) {
      test.unexpectedPostMessage.push(String(msg));
    }
  };
  window.postMessage = recordPost;
  window.open = function (url) {
    test.opened.push(String(url));
    return null;
  };

  document.addEventListener('securitypolicyviolation', function (e) {
    test.csp.push({
      directive: e.violatedDirective,
      blockedURI: e.blockedURI,
      sourceFile: e.sourceFile,
      line: e.lineNumber,
      sample: e.sample,
    });
  });

  // VS Code puts the theme kind on <body>.
  document.addEventListener('DOMContentLoaded', function () {
    document.body.classList.add(theme === 'light' ? 'vscode-light' : theme === 'hc' ? 'vscode-high-contrast' : 'vscode-dark');
  });
})();
