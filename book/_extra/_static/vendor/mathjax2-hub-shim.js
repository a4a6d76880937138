/* The widget bundle (html-manager 1.0.x) typesets with the MathJax 2 call
   MathJax.Hub.Queue(["Typeset", MathJax.Hub, el]); the book loads MathJax 3, which has no Hub.
   Whenever window.MathJax is (re)assigned (Sphinx's config, then MathJax 3 itself), give it a
   Hub whose Queue hands the element to MathJax 3's typesetPromise. Written for this book. */
(function () {
  function queue(job) {
    var mj = window.__mathjax, el = job && job[2];
    if (mj && typeof mj.typesetPromise === "function") {
      mj.typesetPromise(el ? [el] : undefined).catch(function () {});
    }
  }
  function withHub(value) {
    if (value && typeof value === "object" && !value.Hub) {
      Object.defineProperty(value, "Hub", { value: { Queue: queue }, enumerable: false });
    }
    return value;
  }
  window.__mathjax = withHub(window.MathJax);
  Object.defineProperty(window, "MathJax", {
    configurable: true,
    get: function () { return window.__mathjax; },
    set: function (value) { window.__mathjax = withHub(value); },
  });
})();

