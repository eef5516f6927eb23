// Topic: one term — description, cases over the years, co-occurring terms
// of each kind, and its cases.
import { h, fill, query, english, KINDS, kindByURL, L, termSpan, termLabel, link, topicLink, NotFound, validID } from "./lib.js";
import { columns } from "./charts.js";
import { caseCard } from "./cases.js";
import { filterParams, parseFilter } from "./filter.js";

const TERM = "{ kind id en ko }";
const Q = `query Topic($kind: Kind!, $id: ID!, $after: String) {
  term(kind: $kind, id: $id) {
    kind id en ko description caseCount
    years: cases(first: 1) { facets(top: 1) { years { year count } } }
    list: cases(first: 20, after: $after) {
      totalCount pageInfo { hasNextPage endCursor }
      nodes { id date severity title { en ko } organization ${TERM} rootCause ${TERM} }
    }
    ${KINDS.map((k) => `${k.url}: cooccurring(kind: ${k.api}, first: 10) { term ${TERM} count }`).join("\n    ")}
  }
}`;

export async function render(ctx) {
  const [kindURL, id] = ctx.args;
  const k = kindByURL(kindURL);
  if (!k || !validID(id)) throw new NotFound(L(`There is no topic “${kindURL}/${id}”.`, `“${kindURL}/${id}” 주제는 없습니다.`));
  const bad = [];
  const after = ctx.params.get("after") || "";
  if (after && !/^[A-Za-z0-9+/=_-]{1,200}$/.test(after)) {
    bad.push("after");
    ctx.clean(link(`/topic/${k.url}/${encodeURIComponent(id)}`), bad);
  }
  const r = await query(Q, { kind: k.api, id, after: bad.length ? null : after || null });
  if (!ctx.alive()) return;
  const t = r.data.term;
  if (!t) throw new NotFound(L(`There is no ${k.en.toLowerCase()} “${id}”.`, `${k.ko} “${id}” 은(는) 없습니다.`));
  if (r.errors.length) throw new Error(r.errors[0].message);
  document.title = `${termLabel(t)} · ilgraph`;
  const years = t.years.facets.years.slice().sort((a, b) => a.year - b.year);
  const filled = [];
  if (years.length) for (let y = years[0].year; y <= years[years.length - 1].year; y++) filled.push({ label: String(y), value: (years.find((x) => x.year === y) || { count: 0 }).count });
  const filter = parseFilter(new URLSearchParams(), []);
  filter.terms[k.param] = [t.id];
  const co = KINDS.filter((o) => (t[o.url] || []).some((x) => !(x.term.kind === t.kind && x.term.id === t.id))).map((o) =>
    h("section", { class: "co" }, h("h3", {}, L(o.en, o.ko)),
      h("ul", {}, t[o.url].filter((x) => !(x.term.kind === t.kind && x.term.id === t.id)).map((x) =>
        h("li", {}, h("a", { href: topicLink(o.url, x.term.id), "data-nav": "" }, termSpan(x.term)), " ", h("span", { class: "count" }, `(${x.count})`))))));
  fill(ctx.main, 
    h("p", { class: "crumbs" }, h("a", { href: link("/"), "data-nav": "" }, L("Cases", "사례")), " › ", L(k.en, k.ko)),
    h("h1", {}, termSpan(t), t.ko && t.en !== termLabel(t) ? h("span", { class: "alt", lang: "en" }, " · " + t.en) : null),
    h("p", { class: "meta" }, L(k.en, k.ko), " · ", h("code", {}, t.id), " · ", L(`${t.caseCount} cases`, `사례 ${t.caseCount}건`)),
    t.description ? english(t.description, "p", { class: "description" }) : null,
    h("p", {}, h("a", { href: link("/", filterParams(filter)), "data-nav": "" }, L("Filter the case list by it", "이 분류로 사례 목록 거르기")),
      " · ", h("a", { href: link("/graph", { x: `${k.url}:${t.id}` }), "data-nav": "" }, L("Its neighbourhood as a graph", "주변 그래프"))),
    h("section", { class: "field" }, h("h2", {}, L("Cases per year", "연도별 사례")),
      filled.length ? columns(filled, { title: L("Cases per year", "연도별 사례") }) : h("p", {}, L("No cases.", "사례가 없습니다."))),
    h("section", { class: "field" }, h("h2", {}, L("Goes with", "함께 나오는 분류")), co.length ? h("div", { class: "co-grid" }, co) : h("p", {}, "–")),
    h("section", { class: "field" }, h("h2", {}, L("Its cases", "사례"), " ", h("span", { class: "count" }, `(${t.list.totalCount})`)),
      h("ol", { class: "case-list" }, t.list.nodes.map((c) => h("li", {}, caseCard(c)))),
      h("nav", { class: "pager", "aria-label": L("Pages", "페이지") },
        after ? h("a", { href: link(`/topic/${k.url}/${encodeURIComponent(t.id)}`), "data-nav": "" }, L("← First page", "← 첫 페이지")) : null,
        t.list.pageInfo.hasNextPage ? h("a", { href: link(`/topic/${k.url}/${encodeURIComponent(t.id)}`, { after: t.list.pageInfo.endCursor }), "data-nav": "" }, L("Next page →", "다음 페이지 →")) : null)));
}
