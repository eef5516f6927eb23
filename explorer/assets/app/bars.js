// Bars for scores: a similar case's score split by shared feature, and a
// legend of the kinds' colours. Plain HTML: widths are percentages set
// through the CSSOM, every bar has a text equivalent.
import { h, KINDS, kindByAPI, L, termLabel, termSpan } from "./lib.js";

export function kindLegend(withCase = false) {
  return h("ul", { class: "legend", "aria-label": L("Colours by kind", "종류별 색") },
    KINDS.map((k) => h("li", {}, h("span", { class: "swatch", "data-kind": k.url, "aria-hidden": "true" }), L(k.en, k.ko))),
    withCase ? h("li", {}, h("span", { class: "swatch", "data-kind": "case", "aria-hidden": "true" }), L("Case", "사례")) : null);
}

// scoreBar draws one match: a bar as long as its score, split into the
// shared features' contributions.
export function scoreBar(m) {
  const pct = (x) => (Math.max(0, Math.min(1, x)) * 100).toFixed(2) + "%";
  const describe = m.shared.map((f) => `${termLabel(f.term)} ${m.score > 0 ? Math.round((f.contribution / m.score) * 100) : 0}%`).join(", ");
  return h("div", { class: "score" },
    h("div", { class: "bar", role: "img", "aria-label": L(`Score ${m.score.toFixed(2)}: ${describe}`, `점수 ${m.score.toFixed(2)}: ${describe}`) },
      m.shared.map((f) => {
        const k = kindByAPI(f.kind);
        return h("span", { class: "seg", "data-kind": k ? k.url : "", style: { width: pct(f.contribution) }, title: `${L(k.en, k.ko)}: ${termLabel(f.term)} +${f.contribution.toFixed(3)}` });
      })),
    h("span", { class: "score-num" }, m.score.toFixed(2)),
    h("ul", { class: "shared" }, m.shared.map((f) => {
      const k = kindByAPI(f.kind);
      return h("li", { "data-kind": k ? k.url : "" }, termSpan(f.term), " ", h("span", { class: "count" }, `${m.score > 0 ? Math.round((f.contribution / m.score) * 100) : 0}%`));
    })));
}

export { KINDS };
