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
  const share = (x) => `${m.score > 0 ? Math.round((x / m.score) * 100) : 0}%`;
  const kindLabel = (k) => (k ? L(k.en, k.ko) : "");
  // The text channel's part, when it counts, is a segment of its own: with
  // the shared features' it adds up to the score.
  const text = m.text && m.text.contribution > 0 ? m.text : null;
  const textLabel = L("text", "텍스트") + (text && text.words.length ? ` (${text.words.slice(0, 5).join(", ")})` : "");
  const describe = m.shared.map((f) => `${termLabel(f.term)} ${share(f.contribution)}`)
    .concat(text ? [`${textLabel} ${share(text.contribution)}`] : []).join(", ");
  return h("div", { class: "score" },
    h("div", { class: "bar", role: "img", "aria-label": L(`Score ${m.score.toFixed(2)}: ${describe}`, `점수 ${m.score.toFixed(2)}: ${describe}`) },
      m.shared.map((f) => {
        const k = kindByAPI(f.kind);
        return h("span", { class: "seg", "data-kind": k ? k.url : "", style: { width: pct(f.contribution) }, title: `${kindLabel(k)}: ${termLabel(f.term)} +${f.contribution.toFixed(3)}` });
      }),
      text ? h("span", { class: "seg", "data-kind": "text", style: { width: pct(text.contribution) }, title: `${textLabel} +${text.contribution.toFixed(3)}` }) : null),
    h("span", { class: "score-num" }, m.score.toFixed(2)),
    h("ul", { class: "shared" }, m.shared.map((f) => {
      const k = kindByAPI(f.kind);
      return h("li", { "data-kind": k ? k.url : "" }, termSpan(f.term), " ", h("span", { class: "count" }, share(f.contribution)));
    }).concat(text ? [h("li", { "data-kind": "text" }, textLabel, " ", h("span", { class: "count" }, share(text.contribution)))] : [])));
}

export { KINDS };
