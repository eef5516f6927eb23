// Charts as plain SVG: vertical bars (per year) and horizontal bars (per
// term). Each chart is an image with a label and a data table beside it,
// so screen readers and keyboards get the numbers.
import { h, s, L, fmtNumber } from "./lib.js";

// columns: items [{label, value}] as vertical bars.
export function columns(items, { title, unit = "" }) {
  const W = 640, H = 200, pad = 28;
  const max = Math.max(1, ...items.map((x) => x.value));
  const bw = items.length ? (W - pad) / items.length : 0;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H + 30}`, class: "chart", role: "img", "aria-label": `${title}: ` + items.map((x) => `${x.label} ${x.value}${unit}`).join(", ") },
    s("line", { x1: pad, y1: H, x2: W, y2: H, class: "axis" }),
    s("text", { x: pad - 4, y: 12, "text-anchor": "end", class: "tick" }, fmtNumber(max)),
    s("text", { x: pad - 4, y: H, "text-anchor": "end", class: "tick" }, "0"),
    items.map((x, i) => {
      const bh = (x.value / max) * (H - 16);
      const every = Math.ceil(items.length / 16);
      return s("g", {},
        s("rect", { x: pad + i * bw + 1, y: H - bh, width: Math.max(1, bw - 2), height: bh, class: "bar" }, s("title", { text: `${x.label}: ${x.value}${unit}` })),
        i % every === 0 ? s("text", { x: pad + i * bw + bw / 2, y: H + 14, "text-anchor": "middle", class: "tick" }, x.label) : null);
    }));
  return figure(svg, items, title, unit);
}

// rows: items [{label (node or string), text (string), value, lo, hi}]
// as horizontal bars; lo/hi draw a range (e.g. p25–p75) over the bar.
export function rows(items, { title, unit = "", fmt = (v) => fmtNumber(v) }) {
  const max = Math.max(1e-9, ...items.map((x) => Math.max(x.value, x.hi || 0)));
  // A plain list: the label (often a link) and the value are text; only
  // the bar itself is hidden from assistive technology.
  const list = h("ol", { class: "hbars", "aria-label": title },
    items.map((x) => h("li", {},
      h("span", { class: "hlabel" }, x.label),
      h("span", { class: "htrack", "aria-hidden": "true" },
        h("span", { class: "hbar", style: { width: ((x.value / max) * 100).toFixed(2) + "%" } }),
        x.lo !== undefined && x.hi !== undefined ? h("span", { class: "hrange", style: { left: ((x.lo / max) * 100).toFixed(2) + "%", width: (((x.hi - x.lo) / max) * 100).toFixed(2) + "%" } }) : null),
      h("span", { class: "hval" }, fmt(x.value) + unit))));
  return figure(list, items, title, unit, fmt);
}

function figure(chart, items, title, unit, fmt = (v) => fmtNumber(v)) {
  return h("figure", { class: "chart-fig" }, chart,
    h("details", {}, h("summary", {}, L("Data table", "데이터 표")),
      h("table", {}, h("caption", {}, title),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, L("Item", "항목")), h("th", { scope: "col" }, L("Value", "값")))),
        h("tbody", {}, items.map((x) => h("tr", {}, h("th", { scope: "row" }, x.label instanceof Node ? x.label.cloneNode(true) : String(x.label)), h("td", {}, fmt(x.value) + unit)))))));
}
