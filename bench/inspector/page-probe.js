// Bench probe, loaded as its own <script nonce> file after the fake VS Code API and before the
// inspector bundle. Times what the inspector does with host messages, from inside the page:
// performance.now() when the message is dispatched, when a MutationObserver first sees the expected
// element, and after the next frame (a setTimeout after requestAnimationFrame: painted).
(function () {
  'use strict';

  function painted() {
    return new Promise(function (resolve) {
      requestAnimationFrame(function () {
        setTimeout(function () {
          resolve(performance.now());
        }, 0);
      });
    });
  }

  function waitUntil(predicate, timeoutMs, what) {
    return new Promise(function (resolve, reject) {
      if (predicate()) return resolve(performance.now());
      var observer = new MutationObserver(function () {
        if (predicate()) {
          observer.disconnect();
          clearTimeout(timer);
          resolve(performance.now());
        }
      });
      observer.observe(document.body, { childList: true, subtree: true, attributes: true, characterData: true });
      var timer = setTimeout(function () {
        observer.disconnect();
        reject(new Error('not seen within ' + timeoutMs + ' ms: ' + what));
      }, timeoutMs);
    });
  }

  window.__benchProbe = {
    /**
     * Dispatch the host's 'session' message; resolve when the first row is in the DOM and painted,
     * and then when the whole view (`completeSelectors`: the panels drawn after the first frame) is
     * in the DOM and painted.
     */
    firstRender: function (json, rowSelector, completeSelectors) {
      var message = JSON.parse(json);
      var seen = waitUntil(
        function () {
          return document.querySelector(rowSelector) !== null;
        },
        15000,
        rowSelector,
      );
      var complete = function () {
        return completeSelectors.every(function (sel) {
          return document.querySelector(sel) !== null;
        });
      };
      var t0 = performance.now();
      window.dispatchEvent(new MessageEvent('message', { data: message }));
      return seen.then(function (dom) {
        return painted().then(function (paint) {
          return waitUntil(complete, 15000, completeSelectors.join(', '))
            .then(painted)
            .then(function (whole) {
              return { firstRowMs: dom - t0, firstPaintMs: paint - t0, completePaintMs: whole - t0 };
            });
        });
      });
    },

    /**
     * A followed session grew: dispatch its next 'session' message (`count` rows); resolve when the
     * timeline says it holds them (`countSelector`) and that is painted.
     */
    grow: function (json, countSelector) {
      var message = JSON.parse(json);
      var seen = waitUntil(
        function () {
          return document.querySelector(countSelector) !== null;
        },
        15000,
        countSelector,
      );
      var t0 = performance.now();
      window.dispatchEvent(new MessageEvent('message', { data: message }));
      return seen.then(function (dom) {
        return painted().then(function (paint) {
          return { domMs: dom - t0, paintMs: paint - t0 };
        });
      });
    },

    /**
     * Click a strategy's preview button; the fake API answers with the precomputed plan on the next
     * task. Resolve when that plan's summary and split marker are in the DOM, and painted.
     */
    preview: function (strategy) {
      var bench = window.__bench;
      var button = document.querySelector('[data-strategy="' + strategy + '"] [data-action=preview]');
      if (!button) return Promise.reject(new Error('no preview button [data-strategy="' + strategy + '"] [data-action=preview]'));
      bench.answeredAt = null;
      // A no-op plan has no split to mark: its summary alone is the update.
      var noop = !!(bench.plans[strategy] && bench.plans[strategy].noop);
      var shown = waitUntil(
        function () {
          return (
            bench.answeredAt !== null &&
            document.querySelector('.plan-summary[data-request-id="' + bench.answeredRequestId + '"]') !== null &&
            (noop || document.querySelector('[data-marker="preview-split"]') !== null)
          );
        },
        10000,
        'the ' + strategy + ' plan (.plan-summary[data-request-id] and [data-marker="preview-split"])',
      );
      var t0 = performance.now();
      button.click();
      return shown.then(function (dom) {
        return painted().then(function (paint) {
          return { strategy: strategy, domMs: dom - bench.answeredAt, paintMs: paint - bench.answeredAt, clickToPaintMs: paint - t0 };
        });
      });
    },
  };
})();
