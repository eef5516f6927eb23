// Cases: search, filters with facet counts, chips, sort and cursor paging.
import { h, fill, query, ask, warningsBox, KINDS, kindByAPI, L, text, termSpan, link, go, vocabulary, caseLink, fmtNumber } from "./lib.js";
import { parseFilter, filterParams, apiFilter, chips, clone } from "./filter.js";
import { severityLabel } from "./lib.js";

const SORTS = ["DATE_DESC", "DATE_ASC", "ID_ASC", "ID_DESC", "RELEVANCE"];
const SORT_LABELS = {
  DATE_DESC: ["Newest first", "최근 사례부터"], DATE_ASC: ["Oldest first", "오래된 사례부터"],
  ID_ASC: ["Id, ascending", "번호 오름차순"], ID_DESC: ["Id, descending", "번호 내림차순"], RELEVANCE: ["Best match first", "검색어와 가까운 순"],
};
const CURSOR = /^[A-Za-z0-9+/=_-]{1,200}$/;
export const PAGE = 20;

const CASES = `query Cases($filter: CaseFilter, $sort: CaseSort, $first: Int, $after: String) {
  cases(filter: $filter, sort: $sort, first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges {
      node { id date severity title { en ko } organization { id en ko } rootCause { kind id en ko } }
      snippets { field language text highlights { start end } }
    }
    facets(top: 30) {
      rootCauses { term { kind id en ko } count } components { term { kind id en ko } count }
      symptoms { term { kind id en ko } count } contributing { term { kind id en ko } count }
      domains { term { kind id en ko } count } mechanisms { term { kind id en ko } count } orgs { term { kind id en ko } count }
    }
    wordForms { word forms }
  }
}`;

// The facet counts of one kind, for a selection whose terms of that kind
// include ids no case has (a misspelt root cause in the URL): counted
// without those ids, so that the panel still offers the other terms.
const facetOf = (k) => `query Facet($filter: CaseFilter) { cases(filter: $filter, first: 1) {
  facets(top: 30) { ${k.facet} { term { kind id en ko } count } } } }`;

// matchedAs says how the search's words were matched (the API's
// wordForms): "certificate (also certificates)", for each word with other
// forms found; empty when every word was found only as written.
export function matchedAs(wordForms) {
  const parts = [];
  for (const wf of wordForms || []) {
    const others = wf.forms.filter((x) => x !== wf.word);
    if (!others.length) continue;
    const asWritten = wf.forms.includes(wf.word);
    parts.push(h("span", { class: "word-form", lang: "en" }, wf.word, " ",
      asWritten ? L(`(also ${others.join(", ")})`, `(다른 형태: ${others.join(", ")})`)
        : L(`(as ${others.join(", ")})`, `(찾은 형태: ${others.join(", ")})`)));
  }
  return parts.flatMap((x, i) => (i ? [", ", x] : [x]));
}

// Suggested filters: the vocabulary terms the search text points to
// (suggest), above the cut-offs the server reads suggestions with
// (suggestCutoffs, asked in the same request; docs/suggest.md): per kind at
// most max terms of score ≥ min, each with the server's sure (within
// the kind's show cut-off: where such suggestions were right at least 80%
// of the time). A server without suggest (the query does not validate)
// hides the row, and it is not asked again.
let suggestSupported = true;

// A suggestion's tooltip: its confidence and what it means (calibrated, it
// is how often such a suggestion was right when tested; docs/suggest.md).
export function confidenceTitle(c) {
  const pct = Math.round(c * 100);
  return L(`confidence ${c.toFixed(2)}: suggestions like this were right about ${pct}% of the time when tested`,
    `확신도 ${c.toFixed(2)}: 시험에서 이런 제안은 약 ${pct}% 맞았습니다`);
}
const ST = "{ kind confidence score sure term { kind id en ko } }";
const SUGGEST = `query Suggest($text: String!) { suggest(text: $text) {
  rootCauses ${ST} components ${ST} symptoms ${ST} contributing ${ST} domains ${ST} mechanisms ${ST} }
  suggestCutoffs { kind min max } }`;
export async function suggestions(textValue) {
  if (!suggestSupported || !textValue.trim()) return [];
  try {
    const r = await query(SUGGEST, { text: textValue.slice(0, 10000) });
    const codes = r.errors.map((e) => e.extensions && e.extensions.code);
    if (codes.includes("GRAPHQL_VALIDATION_FAILED")) suggestSupported = false;
    const out = [];
    const sg = (r.data && r.data.suggest) || {};
    for (const c of (r.data && r.data.suggestCutoffs) || []) {
      const k = kindByAPI(c.kind);
      if (!k) continue;
      out.push(...(sg[k.facet] || []).filter((x) => x.score >= c.min).slice(0, c.max));
    }
    return out;
  } catch (e) {
    if (!e.down && e.errors && e.errors.some((x) => x.extensions && x.extensions.code === "GRAPHQL_VALIDATION_FAILED")) suggestSupported = false;
    return [];
  }
}

// snippet renders where the search matched: the text with its highlights
// as <mark> elements (text nodes only; offsets are UTF-16, as slice()).
function snippet(sn) {
  const parts = [];
  let at = 0;
  for (const hl of sn.highlights) {
    if (hl.start < at || hl.end > sn.text.length || hl.end <= hl.start) continue;
    parts.push(sn.text.slice(at, hl.start), h("mark", {}, sn.text.slice(hl.start, hl.end)));
    at = hl.end;
  }
  parts.push(sn.text.slice(at));
  return h("p", { class: "snippet", lang: sn.language === "ko" ? "ko" : "en" },
    h("span", { class: "snippet-field" }, sn.field === "title" ? L("title", "제목") : L("summary", "요약"), ": "), parts);
}

export function parseState(params, bad) {
  const f = parseFilter(params, bad);
  let sort = params.get("sort") || "DATE_DESC";
  if (!SORTS.includes(sort) || (sort === "RELEVANCE" && !f.q)) {
    bad.push("sort");
    sort = "DATE_DESC";
  }
  let after = params.get("after") || "";
  let back = (params.get("back") || "").split(",").filter(Boolean);
  if ((after && !CURSOR.test(after)) || !back.every((c) => c === "0" || CURSOR.test(c)) || back.length > 50) {
    bad.push("after");
    after = "";
    back = [];
  }
  return { f, sort, after, back };
}

function stateParams(st) {
  return { ...filterParams(st.f), sort: st.sort !== "DATE_DESC" ? st.sort : "", after: st.after, back: st.back };
}

export async function render(ctx) {
  const bad = [];
  const st = parseState(ctx.params, bad);
  ctx.clean(link("/", stateParams(st)), bad);
  let invalid = "";
  const [vocab, res] = await Promise.all([
    vocabulary(),
    ask(CASES, { filter: apiFilter(st.f), sort: st.sort, first: PAGE, after: st.after || null }).catch((e) => {
      // A request the API refuses (INVALID: a stale cursor; LIMIT: a
      // search over its word or length bound): keep the screen, with the
      // controls to change it.
      if (e.down || (e.code !== "INVALID" && e.code !== "LIMIT")) throw e;
      invalid = e.message;
      return { data: { cases: { totalCount: 0, edges: [], pageInfo: { hasNextPage: false }, facets: {} } }, warnings: [] };
    }),
  ]);
  if (!ctx.alive()) return;
  const conn = res.data.cases;
  // A kind whose selected ids include one no term has (a typo in the URL):
  // its panel counts the selection without those ids.
  const unknownIn = (k) => st.f.terms[k.param].filter((id) => !vocab.byKey.has(k.api + ":" + id));
  const typoFacets = {};
  await Promise.all(KINDS.filter((k) => unknownIn(k).length).map(async (k) => {
    const f = clone(st.f);
    f.terms[k.param] = f.terms[k.param].filter((id) => !unknownIn(k).includes(id));
    const r = await ask(facetOf(k), { filter: apiFilter(f) }).catch(() => null);
    if (r) typoFacets[k.param] = r.data.cases.facets[k.facet] || [];
  }));
  if (!ctx.alive()) return;
  // "Did you mean": each suggestion for a term the API could not resolve
  // is a link to this screen with the suggestion instead.
  const fixTerm = (w, sg) => {
    const k = KINDS.find((x) => w.field === "filter." + x.filter || (w.field || "").startsWith("filter." + x.filter + "."));
    if (!k || !st.f.terms[k.param].includes(w.value)) return null;
    const f = clone(st.f);
    f.terms[k.param] = [...new Set(f.terms[k.param].map((id) => (id === w.value ? sg : id)))];
    return link("/", stateParams(fresh(f)));
  };
  document.title = L("Cases", "사례") + " · ilgraph";
  const nav = (nst) => go(link("/", stateParams(nst)));
  const fresh = (f) => ({ f, sort: f.q ? st.sort : st.sort === "RELEVANCE" ? "DATE_DESC" : st.sort, after: "", back: [] });

  // Search
  const input = h("input", { type: "search", id: "q", name: "q", value: st.f.q, maxlength: "500", autocomplete: "off" });
  const tmSel = h("select", { id: "tm" }, [["", L("all of them", "모두")], ["any", L("any of them", "하나라도")], ["phrase", L("as a phrase", "구절로")]]
    .map(([v, t]) => h("option", { value: v, selected: v === st.f.tm }, t)));
  const tfSel = h("select", { id: "tf" }, [["", L("titles and summaries", "제목과 요약")], ["titles", L("titles only", "제목만")]]
    .map(([v, t]) => h("option", { value: v, selected: v === st.f.tf }, t)));
  const form = h("form", { class: "search", role: "search", onsubmit: (ev) => {
    ev.preventDefault();
    const f = clone(st.f);
    f.q = input.value.trim();
    f.tm = f.q ? tmSel.value : "";
    f.tf = f.q ? tfSel.value : "";
    nav({ ...fresh(f), sort: f.q && st.sort === "DATE_DESC" && !st.f.q ? "RELEVANCE" : fresh(f).sort });
  } },
  h("label", { for: "q" }, L("Search titles and summaries, in English or Korean", "제목과 요약 검색 (영어, 한국어)")),
  h("div", { class: "row" }, input, h("button", { type: "submit" }, L("Search", "검색"))),
  h("div", { class: "row small-controls" },
    h("label", { for: "tm" }, L("Words", "단어")), " ", tmSel, " ",
    h("label", { for: "tf" }, L("In", "범위")), " ", tfSel));

  const suggestBox = h("div", { class: "suggest", hidden: true });
  if (st.f.q) {
    suggestions(st.f.q).then((all) => {
      // Only the sure ones are offered as filters.
      const list = all.filter((x) => x.sure);
      if (!ctx.alive() || !list.length) return;
      const items = [];
      for (const sg of list) {
        const t = sg.term;
        const k = KINDS.find((x) => x.api === (sg.kind || t.kind));
        if (!k || st.f.terms[k.param].includes(t.id)) continue;
        items.push(h("li", {}, h("button", { type: "button", class: "chip add", "data-term": `${k.url}:${t.id}`, title: confidenceTitle(sg.confidence), onclick: () => {
          const f = clone(st.f);
          f.terms[k.param].push(t.id);
          nav(fresh(f));
        } }, "+ ", L(k.en, k.ko), ": ", termSpan(t))));
      }
      if (!items.length) return;
      suggestBox.replaceChildren(h("h2", {}, L("Suggested filters", "추천 필터")), h("ul", {}, items));
      suggestBox.hidden = false;
    });
  }

  // Facets
  const facetBoxes = KINDS.map((k) => {
    const counts = typoFacets[k.param] || conn.facets[k.facet] || [];
    const selected = st.f.terms[k.param];
    const rows = counts.map((tc) => ({ t: tc.term, count: tc.count }));
    for (const id of selected) {
      if (!rows.some((r) => r.t.id === id)) rows.unshift({ t: vocab.byKey.get(k.api + ":" + id) || { kind: k.api, id, en: id }, count: 0 });
    }
    if (!rows.length) return null;
    const toggle = (id, on) => {
      const f = clone(st.f);
      f.terms[k.param] = on ? [...f.terms[k.param], id] : f.terms[k.param].filter((x) => x !== id);
      nav(fresh(f));
    };
    const list = h("ul", { class: "facet-list" }, rows.map((r, i) => {
      const id = `fc-${k.param}-${i}`;
      return h("li", {},
        h("input", { type: "checkbox", id, checked: selected.includes(r.t.id), onchange: (ev) => toggle(r.t.id, ev.target.checked) }),
        h("label", { for: id }, termSpan(r.t), " ", h("span", { class: "count" }, `(${r.count})`)));
    }));
    let modeCtl = null;
    if (!k.anyOnly) {
      const name = `mode-${k.param}`;
      const setMode = (m) => { const f = clone(st.f); f.mode[k.param] = m; nav(fresh(f)); };
      modeCtl = h("div", { class: "mode", role: "radiogroup", "aria-label": L(`How ${k.en.toLowerCase()} filters combine`, `${k.ko} 필터 결합 방식`) },
        h("input", { type: "radio", name, id: name + "-any", checked: st.f.mode[k.param] !== "all", onchange: () => setMode("any") }),
        h("label", { for: name + "-any" }, L("any of", "하나라도")),
        h("input", { type: "radio", name, id: name + "-all", checked: st.f.mode[k.param] === "all", onchange: () => setMode("all") }),
        h("label", { for: name + "-all" }, L("all of", "모두")));
    }
    return h("fieldset", { class: "facet" }, h("legend", {}, L(k.en, k.ko)), modeCtl, list);
  });

  const from = h("input", { type: "date", id: "from", value: st.f.from });
  const to = h("input", { type: "date", id: "to", value: st.f.to });
  const dates = h("form", { class: "dates", onsubmit: (ev) => {
    ev.preventDefault();
    const f = clone(st.f);
    f.from = from.value;
    f.to = to.value;
    nav(fresh(f));
  } }, h("fieldset", {}, h("legend", {}, L("Incident date", "사고 날짜")),
    h("label", { for: "from" }, L("From", "부터")), from, h("label", { for: "to" }, L("To", "까지")), to,
    h("button", { type: "submit" }, L("Apply dates", "날짜 적용"))));

  const sortSel = h("select", { id: "sort", onchange: (ev) => nav({ ...st, sort: ev.target.value, after: "", back: [] }) },
    SORTS.filter((x) => x !== "RELEVANCE" || st.f.q).map((x) => h("option", { value: x, selected: x === st.sort }, L(...SORT_LABELS[x]))));

  // Results
  const start = st.back.length * PAGE + 1;
  const end = st.back.length * PAGE + conn.edges.length;
  const count = h("p", { class: "result-count", id: "result-count", role: invalid ? "alert" : null },
    invalid ? [L("The API refused this search: ", "API 가 이 검색을 받지 않았습니다: "), h("span", { lang: "en" }, invalid)] : conn.totalCount === 0 ? L("No cases match.", "맞는 사례가 없습니다.")
      : matchedAs(conn.wordForms).length
        ? L([`${fmtNumber(conn.totalCount)} cases matching `, matchedAs(conn.wordForms), ` · showing ${start}–${end}`],
          [`사례 ${fmtNumber(conn.totalCount)}건 · 검색어 `, matchedAs(conn.wordForms), ` · ${start}~${end}번째`])
        : L(`${fmtNumber(conn.totalCount)} cases · showing ${start}–${end}`, `사례 ${fmtNumber(conn.totalCount)}건 · ${start}~${end}번째`));
  const list = h("ol", { class: "case-list", start: String(start) }, conn.edges.map((e) => h("li", {}, caseCard(e.node, e.snippets))));
  const pager = h("nav", { class: "pager", "aria-label": L("Pages", "페이지") },
    st.back.length ? h("a", { href: link("/", stateParams({ ...st, after: st.back[st.back.length - 1] === "0" ? "" : st.back[st.back.length - 1], back: st.back.slice(0, -1) })), "data-nav": "", rel: "prev" }, L("← Previous page", "← 이전 페이지")) : null,
    conn.pageInfo.hasNextPage ? h("a", { href: link("/", stateParams({ ...st, after: conn.pageInfo.endCursor, back: [...st.back, st.after || "0"] })), "data-nav": "", rel: "next" }, L("Next page →", "다음 페이지 →")) : null);

  fill(ctx.main, 
    h("h1", {}, L("Cases", "사례")),
    form, suggestBox, warningsBox(res.warnings, res.details, fixTerm),
    chips(st.f, vocab, "/", st.sort !== "DATE_DESC" && (st.sort !== "RELEVANCE") ? { sort: st.sort } : {}),
    h("div", { class: "with-aside" },
      h("aside", { "aria-label": L("Filters", "필터") }, h("h2", {}, L("Filters", "필터")), dates, facetBoxes),
      h("section", { class: "results", "aria-labelledby": "result-count" },
        h("div", { class: "results-head" }, count, h("div", {}, h("label", { for: "sort" }, L("Sort", "정렬")), " ", sortSel),
          h("a", { href: link("/graph", filterParams(st.f)), "data-nav": "" }, L("Show as a graph", "그래프로 보기"))),
        list, pager)));
}

export function caseCard(c, snippets = []) {
  const shown = snippets.filter((sn) => sn.field !== "title" || snippets.length === 1).slice(0, 2);
  return h("article", { class: "case-card" },
    h("h3", {}, h("a", { href: caseLink(c.id), "data-nav": "" }, h("span", { class: "case-id" }, c.id), " ", text(c.title))),
    h("p", { class: "meta" }, h("time", { datetime: c.date }, c.date), " · ", termSpan(c.organization),
      c.rootCause ? [" · ", L("root cause ", "원인 "), termSpan(c.rootCause)] : null,
      c.severity ? [" · ", L("severity ", "심각도 "), severityLabel(c.severity)] : null),
    shown.map(snippet));
}

