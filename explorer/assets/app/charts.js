// Charts as plain SVG: vertical bars (per year) and horizontal bars (per
// term). Each chart is an image with a label and a data table beside it,
// so screen readers and keyboards get the numbers. An item with an href is
// a link (the dashboard's drill-down to the Cases screen): the bar, the
// value and the data table's cell all open it.
import { h, s, L, fmtNumber } from "./lib.js";

// columns: items [{label, value, href}] as vertical bars; a bar with an
// href is an SVG link, focusable and named by its label and value.
export function columns(items, { title, unit = "" }) {
  const W = 640, H = 200, pad = 28;
  const max = Math.max(1, ...items.map((x) => x.value));
  const bw = items.length ? (W - pad) / items.length : 0;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H + 30}`, class: "chart", role: hasLinks(items) ? "group" : "img", "aria-label": `${title}: ` + items.map((x) => `${x.label} ${x.value}${unit}`).join(", ") },
    s("line", { x1: pad, y1: H, x2: W, y2: H, class: "axis" }),
    s("text", { x: pad - 4, y: 12, "text-anchor": "end", class: "tick" }, fmtNumber(max)),
    s("text", { x: pad - 4, y: H, "text-anchor": "end", class: "tick" }, "0"),
    items.map((x, i) => {
      const bh = (x.value / max) * (H - 16);
      const every = Math.ceil(items.length / 16);
      const bar = s("rect", { x: pad + i * bw + 1, y: H - bh, width: Math.max(1, bw - 2), height: bh, class: "bar" }, s("title", { text: `${x.label}: ${x.value}${unit}` }));
      return s("g", {},
        x.href && x.value ? s("a", { href: x.href, "data-nav": "", class: "bar-link", "aria-label": `${x.label}: ${x.value}${unit}` },
          // The whole column height is the target, not only the bar.
          s("rect", { x: pad + i * bw, y: 0, width: bw, height: H, class: "bar-hit" }), bar) : bar,
        i % every === 0 ? s("text", { x: pad + i * bw + bw / 2, y: H + 14, "text-anchor": "middle", class: "tick" }, x.label) : null);
    }));
  return figure(svg, items, title, unit);
}

// hasLinks: whether any item is a link (the SVG is then a group of links,
// not an image, whose children assistive technology would not see).
const hasLinks = (items) => items.some((x) => x.href);

// rows: items [{label (node or string), text (string), value, lo, hi,
// href, cases, note, few}] as horizontal bars; lo/hi draw a range (e.g.
// p25–p75) over the bar. href makes the value a link; cases {href, count}
// adds a link to count cases after it (when the value is not a count);
// note is text after the value; few marks a value resting on too few
// cases (a paler bar, no range).
export function rows(items, { title, unit = "", fmt = (v) => fmtNumber(v), wide = false }) {
  const max = Math.max(1e-9, ...items.map((x) => Math.max(x.value, x.hi || 0)));
  // A plain list: the label (often a link) and the value are text; only
  // the bar itself is hidden from assistive technology.
  const list = h("ol", { class: wide ? "hbars wide-val" : "hbars", "aria-label": title },
    items.map((x) => h("li", { class: x.few ? "few" : null },
      h("span", { class: "hlabel" }, x.label),
      h("span", { class: "htrack", "aria-hidden": "true" },
        h("span", { class: "hbar", style: { width: ((x.value / max) * 100).toFixed(2) + "%" } }),
        !x.few && x.lo !== undefined && x.hi !== undefined ? h("span", { class: "hrange", style: { left: ((x.lo / max) * 100).toFixed(2) + "%", width: (((x.hi - x.lo) / max) * 100).toFixed(2) + "%" } }) : null),
      h("span", { class: "hval" }, valueNodes(x, fmt, unit)))));
  return figure(list, items, title, unit, fmt);
}

// casesText: "3 cases", the text of a drill-down link to cases.
export const casesText = (n) => L(`${fmtNumber(n)} ${n === 1 ? "case" : "cases"}`, `${fmtNumber(n)}건`);

// valueNodes: an item's value as text or a link, with its note and its
// link to cases (fresh nodes at each call).
function valueNodes(x, fmt, unit) {
  const v = fmt(x.value) + unit;
  return [
    x.href ? h("a", { href: x.href, "data-nav": "", class: "drill" }, v) : v,
    x.note ? h("span", { class: x.few ? "note few" : "note" }, " ", x.note) : null,
    x.cases ? [" · ", h("a", { href: x.cases.href, "data-nav": "", class: "drill" }, casesText(x.cases.count))] : null,
  ];
}

function figure(chart, items, title, unit, fmt = (v) => fmtNumber(v)) {
  return h("figure", { class: "chart-fig" }, chart,
    h("details", {}, h("summary", {}, L("Data table", "데이터 표")),
      h("table", {}, h("caption", {}, title),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, L("Item", "항목")), h("th", { scope: "col" }, L("Value", "값")))),
        h("tbody", {}, items.map((x) => h("tr", {}, h("th", { scope: "row" }, x.label instanceof Node ? x.label.cloneNode(true) : String(x.label)), h("td", {}, valueNodes(x, fmt, unit))))))));
}
