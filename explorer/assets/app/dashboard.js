// Dashboard: cases per year and per root cause, time to resolve by
// contributing factor, the strongest cause–component pairs by lift, root
// causes by year (a breakdown). Each chart has its own date range, in the
// URL as y, r, t, l, b = FROM..TO.
//
// Every count drills down: a year's bar, a root cause's row, a factor's or
// a pair's cases, a breakdown cell are links to the Cases screen with
// exactly that selection — the term(s) and the chart's date range,
// narrowed to the year where there is one — so the Cases screen counts
// the number the chart shows. Time to resolve shows n (the cases with a
// measured time) beside each median and marks a median of fewer than
// FEW cases.
import { h, fill, must, L, link, go, termSpan, termLabel, topicLink, validDate, fmtMinutes, fmtNumber } from "./lib.js";
import { columns, rows, casesText } from "./charts.js";

// FEW: a median of fewer measured cases is marked as too few to rely on
// (and ranked after the others).
const FEW = 3;

const TERM = "{ kind id en ko }";
const Q = `query Dashboard($y: CaseFilter, $r: CaseFilter, $t: CaseFilter, $l: CaseFilter, $b: CaseFilter) {
  y: stats(filter: $y) { cases perYear { year count } }
  r: stats(filter: $r) { cases perRootCause { term ${TERM} count } }
  t: stats(filter: $t) { timeToResolveByFactor { term ${TERM} distribution { cases measured median p25 p75 } } }
  l: cooccurrence(from: ROOT_CAUSE, to: COMPONENT, filter: $l, minCount: 2) { nodes { key id kind label } edges { source target count lift } }
  b: breakdown(rows: ROOT_CAUSE, columns: YEAR, filter: $b, top: 12) { total rows { key label count term ${TERM} } columns { key label count } cells { count } truncated }
  vocab: vocabulary(kind: ROOT_CAUSE) { kind id en ko }
  comps: vocabulary(kind: COMPONENT) { kind id en ko }
}`;

const CHARTS = [
  { key: "y", en: "Cases per year", ko: "연도별 사례" },
  { key: "r", en: "Cases per root cause", ko: "원인별 사례" },
  { key: "t", en: "Time to resolve by contributing factor (median, p25–p75, n measured)", ko: "기여 요인별 복구 시간 (중앙값, p25~p75, 측정된 n건)" },
  { key: "l", en: "Strongest cause–component pairs by lift (≥ 2 cases)", ko: "리프트가 가장 큰 원인–구성 요소 쌍 (2건 이상)" },
  { key: "b", en: "Root causes by year (the 12 most frequent)", ko: "연도별 원인 (가장 많은 12개)", wide: true },
];

// heatTable draws a breakdown as a table whose cells shade with their
// count: the numbers stay text, dark on light, for every reader.
function heatTable(b, termLink, title, cellLink) {
  const max = Math.max(1, ...b.cells.map((c) => c.count));
  const n = b.columns.length;
  return h("div", { class: "heat-wrap", tabindex: "0", role: "region", "aria-label": title },
    h("table", { class: "heat" }, h("caption", { class: "visually-hidden" }, title),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, L("Root cause", "원인")), b.columns.map((c) => h("th", { scope: "col" }, c.label)))),
      h("tbody", {}, b.rows.map((r, i) => h("tr", {},
        h("th", { scope: "row" }, r.term ? termLink("root_cause", r.term) : r.label),
        b.cells.slice(i * n, i * n + n).map((c, j) => {
          const u = c.count / max;
          const shade = `rgb(${Math.round(255 - 128 * u)},${Math.round(255 - 88 * u)},${Math.round(255 - 38 * u)})`;
          // An empty cell has nothing to open.
          return h("td", { style: { background: shade } }, c.count ? h("a", { href: cellLink(r, b.columns[j]), "data-nav": "", class: "drill",
            "aria-label": `${r.term ? termLabel(r.term) : r.label}, ${b.columns[j].label}: ${casesText(c.count)}` }, fmtNumber(c.count)) : "");
        }))))));
}

function parse(params, bad) {
  const ranges = {};
  for (const c of CHARTS) {
    const v = params.get(c.key);
    ranges[c.key] = { from: "", to: "" };
    if (!v) continue;
    const [from, to, extra] = v.split("..");
    if (extra !== undefined || to === undefined || (from && !validDate(from)) || (to && !validDate(to)) || (from && to && from > to)) {
      bad.push(c.key);
      continue;
    }
    ranges[c.key] = { from, to };
  }
  return ranges;
}

const rangeParam = (r) => (r.from || r.to ? `${r.from}..${r.to}` : "");
// casesURL: the Cases screen's URL for the cases of a chart's range r
// that have the terms (a URL parameter → one id each: rc, c, f), within
// the year y when given (the range and the year intersected).
function casesURL(r, terms = {}, y = "") {
  let { from, to } = r;
  if (y) {
    if (!from || from < `${y}-01-01`) from = `${y}-01-01`;
    if (!to || to > `${y}-12-31`) to = `${y}-12-31`;
  }
  return link("/", { ...terms, from, to });
}

const toFilter = (r) => (r.from || r.to ? { ...(r.from ? { dateFrom: r.from } : {}), ...(r.to ? { dateTo: r.to } : {}) } : null);

export async function render(ctx) {
  const bad = [];
  const ranges = parse(ctx.params, bad);
  const params = (rs) => Object.fromEntries(CHARTS.map((c) => [c.key, rangeParam(rs[c.key])]));
  ctx.clean(link("/dashboard", params(ranges)), bad);
  const d = await must(Q, Object.fromEntries(CHARTS.map((c) => [c.key, toFilter(ranges[c.key])])));
  if (!ctx.alive()) return;
  document.title = L("Dashboard", "대시보드") + " · ilgraph";
  const termLink = (kind, t) => h("a", { href: topicLink(kind, t.id), "data-nav": "" }, termSpan(t));

  const perYear = d.y.perYear.slice().sort((a, b) => a.year - b.year);
  const years = [];
  if (perYear.length) for (let y = perYear[0].year; y <= perYear[perYear.length - 1].year; y++) years.push({ label: String(y), value: (perYear.find((x) => x.year === y) || { count: 0 }).count });
  const labels = new Map([...d.vocab, ...d.comps].map((t) => [t.kind.toLowerCase() + ":" + t.id, t]));
  const nodeTerm = (key, node) => labels.get(key) || { id: node.id, en: node.label };
  const nodes = new Map(d.l.nodes.map((n) => [n.key, n]));
  const pairs = d.l.edges.slice().sort((a, b) => b.lift - a.lift || b.count - a.count).slice(0, 15);
  // Medians of at least FEW measured cases first, then the marked ones.
  const few = (x) => x.distribution.measured < FEW;
  const factors = d.t.timeToResolveByFactor.filter((x) => x.distribution.measured > 0 && x.distribution.median !== null)
    .sort((a, b) => few(a) - few(b) || b.distribution.median - a.distribution.median).slice(0, 15);

  const charts = {
    y: years.length ? columns(years.map((x) => ({ ...x, href: casesURL(ranges.y, {}, x.label) })), { title: L("Cases per year", "연도별 사례") }) : null,
    r: d.r.perRootCause.length ? rows(d.r.perRootCause.slice(0, 20).map((x) => ({ label: termLink("root_cause", x.term), text: x.term.en, value: x.count,
      href: casesURL(ranges.r, { rc: x.term.id }) })), { title: L("Cases per root cause", "원인별 사례") }) : null,
    t: factors.length ? rows(factors.map((x) => {
      const ds = x.distribution;
      return { label: termLink("contributing", x.term), text: x.term.en, value: ds.median, lo: ds.p25, hi: ds.p75, few: few(x),
        note: few(x) ? L(`(n=${ds.measured}, too few to rely on)`, `(n=${ds.measured}, 믿기에는 너무 적음)`) : `(n=${ds.measured})`,
        cases: { href: casesURL(ranges.t, { f: x.term.id }), count: ds.cases } };
    }), { title: L("Median time to resolve by factor", "기여 요인별 복구 시간 중앙값"), fmt: fmtMinutes, wide: true }) : null,
    l: pairs.length ? rows(pairs.map((e) => {
      const a = nodes.get(e.source), b = nodes.get(e.target);
      const ta = nodeTerm(e.source, a), tb = nodeTerm(e.target, b);
      return { label: h("span", {}, termLink("root_cause", ta), " → ", termLink("component", tb)), text: `${ta.en} → ${tb.en}`, value: e.lift,
        cases: { href: casesURL(ranges.l, { rc: a.id, c: b.id }), count: e.count } };
    }), { title: L("Lift", "리프트"), fmt: (v) => v.toFixed(2) + "×", wide: true }) : null,
    b: d.b.rows.length && d.b.columns.length ? heatTable(d.b, termLink, L("Root causes by year", "연도별 원인"), (row, col) => casesURL(ranges.b, { rc: row.key }, col.key)) : null,
  };

  const cards = CHARTS.map((c) => {
    const from = h("input", { type: "date", id: `${c.key}-from`, value: ranges[c.key].from });
    const to = h("input", { type: "date", id: `${c.key}-to`, value: ranges[c.key].to });
    const form = h("form", { class: "chart-dates", onsubmit: (ev) => {
      ev.preventDefault();
      const rs = { ...ranges, [c.key]: { from: from.value, to: to.value } };
      if (rs[c.key].from && rs[c.key].to && rs[c.key].from > rs[c.key].to) rs[c.key] = { from: to.value, to: from.value };
      go(link("/dashboard", params(rs)));
    } },
    h("label", { for: `${c.key}-from` }, L("From", "부터")), from, h("label", { for: `${c.key}-to` }, L("To", "까지")), to,
    h("button", { type: "submit" }, L("Apply", "적용")));
    return h("section", { class: c.wide ? "card wide" : "card", "aria-labelledby": `h-${c.key}` }, h("h2", { id: `h-${c.key}` }, L(c.en, c.ko)), form,
      charts[c.key] || h("p", {}, L("No data in this range.", "이 기간에는 자료가 없습니다.")));
  });
  fill(ctx.main, h("h1", {}, L("Dashboard", "대시보드")),
    h("p", { class: "meta" }, h("a", { href: casesURL(ranges.y), "data-nav": "", class: "drill" }, casesText(d.y.cases)), L(" in the first chart's range", " (첫 차트 기간)")),
    h("div", { class: "cards" }, cards));
}
