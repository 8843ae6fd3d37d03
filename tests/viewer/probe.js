// What a person sees of <mutation-test-report-app>: text read through its shadow roots, clicks as a user makes them.
// Loaded by tests/viewer/page.html; tests/test_report_viewer.py calls window.probe over the DevTools protocol.
"use strict";

(() => {
  const app = () => document.querySelector("mutation-test-report-app");

  // Every element matching `selector` under `root`, inside every shadow root too.
  function deep(selector, root = document) {
    const found = [...root.querySelectorAll(selector)];
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) found.push(...deep(selector, el.shadowRoot));
    }
    return found;
  }

  // Rendered and visible (an element with display: contents, a slot for one, has no box of its own).
  function shown(el) {
    if (getComputedStyle(el).display === "contents") return !el.parentElement || shown(el.parentElement);
    return el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
  }

  // The rendered text of `node` (the composed tree: shadow roots and slotted content), whitespace collapsed.
  function visibleText(node) {
    const parts = [];
    const walk = (n) => {
      if (n.nodeType === Node.TEXT_NODE) {
        if (n.parentElement && shown(n.parentElement)) parts.push(n.data);
        return;
      }
      if (n.nodeType === Node.ELEMENT_NODE) {
        if (["style", "script", "title", "template"].includes(n.localName) || !shown(n)) return;
        if (n.localName === "slot") return n.assignedNodes({ flatten: true }).forEach(walk);
      }
      (n.shadowRoot ?? n).childNodes.forEach(walk);
    };
    walk(node);
    return parts.join("").replace(/\s+/g, " ").trim();
  }

  // Resolves with fn()'s first truthy value, polled; rejects naming `what` after `ms`.
  function until(what, fn, ms = 10000) {
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const poll = () => {
        let value;
        try {
          value = fn();
        } catch {
          value = undefined;
        }
        if (value) return resolve(value);
        if (performance.now() - start > ms) return reject(new Error(`timed out waiting for ${what}`));
        setTimeout(poll, 50);
      };
      poll();
    });
  }

  const settle = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))));

  function click(el) {
    el.dispatchEvent(new MouseEvent("click", { bubbles: true, composed: true, cancelable: true, view: window }));
  }

  // Opens a drawer's detail ("More") so that its full list is on screen.
  async function openDrawer(host) {
    const drawer = await until("the drawer", () => deep("mte-drawer", host.shadowRoot)[0]);
    await until("the drawer to open", () => drawer.getAttribute("mode") !== "closed");
    const more = deep("[data-testId=btnReadMoreToggle]", drawer.shadowRoot)[0];
    if (more && drawer.getAttribute("mode") !== "open") click(more);
    await settle();
    return visibleText(host);
  }

  // A drawer's list as shown: each item's tooltip (killed or covered) and text.
  const items = (host) =>
    deep("li", host.shadowRoot)
      .filter(shown)
      .map((li) => ({ title: li.title, text: visibleText(li) }));

  async function go(hash, ready) {
    location.hash = hash;
    await until(`the view ${hash}`, ready);
    await settle();
  }

  // The metrics table's rows, each the visible text of its cells (a row's name first).
  function metricsRows() {
    const table = deep("mte-metrics-table")[0];
    return deep("tbody tr", table.shadowRoot).map((tr) => [...tr.children].map((td) => visibleText(td)));
  }

  window.probe = {
    deep,
    visibleText,
    async ready() {
      await until("the app to render", () => deep("mte-metrics-table").length && metricsRows().length);
      return { rows: metricsRows(), errors: window.pageErrors };
    },
    // The file view (route #mutant/<file>): its state filter's labels, every mutant shown once every status is
    // switched on, and the code's lines.
    async fileView(file) {
      await go(`#mutant/${file}`, () => deep("mte-file")[0]?.shadowRoot?.querySelector("tr.line"));
      const view = deep("mte-file")[0];
      const shadow = view.shadowRoot;
      const filter = deep("mte-state-filter", shadow)[0].shadowRoot;
      for (const box of deep("input[type=checkbox]", filter)) {
        if (!box.checked) box.click();
      }
      await settle();
      return {
        rows: metricsRows(),
        filters: deep("label", filter).filter(shown).map((l) => visibleText(l)),
        dots: deep("svg.mutant-dot", shadow)
          .filter(shown)
          .map((d) => ({ id: d.dataset.mutantId, status: [...d.classList].find((c) => /^[A-Z]/.test(c)) })),
      };
    },
    // Opens one mutant in the file view: the diff's removed and added lines, and the mutant's drawer.
    async openMutant(file, id) {
      await this.fileView(file);
      const shadow = deep("mte-file")[0].shadowRoot;
      const dot = deep("svg.mutant-dot", shadow).find((d) => d.dataset.mutantId === id);
      if (!dot) return { missing: id };
      click(dot);
      await until("the diff", () => shadow.querySelector("tr.diff-new"));
      const rows = (cls) => [...shadow.querySelectorAll(`tr.${cls}`)].filter(shown).map((tr) => visibleText(tr.querySelector("td.code")));
      const host = deep("mte-drawer-mutant")[0];
      const drawer = await openDrawer(host);
      return { old: rows("diff-old"), new: rows("diff-new"), drawer, items: items(host) };
    },
    // The test view's root: each test file's row and link.
    async testFiles() {
      await go("#test", () => deep("mte-test-view").length && metricsRows().length);
      const table = deep("mte-metrics-table")[0];
      return deep("tbody tr a", table.shadowRoot).map((a) => ({ text: visibleText(a), href: new URL(a.href).hash }));
    },
    // A test file's view (route #test/<file>): its tests as listed; opening the one shown as `name` shows its drawer.
    async openTest(href, name) {
      await go(href, () => deep("mte-test-file")[0]?.shadowRoot?.querySelector("[data-test-id]"));
      const shadow = deep("mte-test-file")[0].shadowRoot;
      // a file with its source shows each test as a dot on its line (its name in the dot's tooltip), else as a button
      const label = (el) => (el.querySelector("title")?.textContent ?? visibleText(el)).trim();
      const buttons = deep("[data-test-id]", shadow).filter((el) => el.matches("button, svg") && shown(el));
      const listed = buttons.map(label);
      const button = buttons.find((b) => label(b).split(/\s+/).includes(name));
      if (!button) return { listed, missing: name };
      click(button);
      const host = deep("mte-drawer-test")[0];
      const drawer = await openDrawer(host);
      return { listed, drawer, items: items(host) };
    },
  };
})();
