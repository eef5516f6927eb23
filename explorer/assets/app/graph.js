// Graph: the selection as a co-occurrence graph between two kinds (edge
// width = cases with both, colour = lift), plus neighbourhoods expanded on
// demand and the connections between two cases. URL: a, b (kinds), min,
// the case filter (filter.js), x (expanded nodes, kind:id, comma-separated),
// p1, p2 (two case ids to connect). The filter applies to everything drawn:
// the co-occurrence edges, the cases an expanded term adds, and the cases
// an edge lists.
import { h, fill, ask, warningsBox, KINDS, kindByURL, L, link, go, vocabulary, CASE_ID, validID, termLabel, state, fmtNumber } from "./lib.js";
import { parseFilter, filterParams, apiFilter, chips, clone, isEmpty } from "./filter.js";
import { kindLegend } from "./bars.js";
import { loadCytoscape, draw, liftColour } from "./draw.js";

const NODE = "{ key kind id label count }";
const EDGE = "{ source target type count lift support }";
const CASES = "{ totalCount nodes { id title { en ko } } }";
// The relationship from a case to a term of each kind, as the API's
// drawings name it (graph/model.go).
const REL = { root_cause: "HAS_ROOT_CAUSE", component: "HAS_COMPONENT", symptom: "HAS_SYMPTOM", contributing: "HAS_FACTOR",
  domain: "IN_DOMAIN", mechanism: "HAS_MECHANISM", org: "AT_ORG" };
// PAGE is how many cases a term's expansion or an edge's list shows at
// most: one page of the API's cases (first ≤ 100).
const PAGE = 100;

// narrow adds terms ([kind URL, id] pairs) to a selection: the cases it
// selects that have every one of them. api is the API's CaseFilter for
// that; url the Cases screen's filter, or null when its URL cannot say it
// (any of several terms of a kind, and another term of the same kind).
// empty: no case can match (another root cause than the one selected).
function narrow(f, terms) {
  const per = {};
  for (const k of KINDS) {
    const ids = f.terms[k.param] || [];
    per[k.param] = k.anyOnly || f.mode[k.param] !== "all" ? { any: [...ids], all: [] } : { any: [], all: [...ids] };
  }
  let empty = false;
  for (const [kindURL, id] of terms) {
    const k = kindByURL(kindURL), m = per[k.param];
    if (k.anyOnly) {
      if (m.any.length && !m.any.includes(id)) empty = true;
      m.any = [id];
      continue;
    }
    if (m.any.includes(id)) m.any = []; // (… or id or …) and id = id
    if (!m.all.includes(id)) m.all.push(id);
  }
  const api = apiFilter({ ...clone(f), terms: Object.fromEntries(KINDS.map((k) => [k.param, []])) });
  const url = clone(f);
  let expressible = true;
  for (const k of KINDS) {
    const m = per[k.param];
    if (!k.anyOnly && m.any.length === 1 && m.all.length) {
      if (!m.all.includes(m.any[0])) m.all.push(m.any[0]);
      m.any = [];
    }
    if (k.anyOnly) { if (m.any.length) api[k.filter] = m.any; } else if (m.any.length || m.all.length) {
      api[k.filter] = { ...(m.any.length ? { anyOf: m.any } : {}), ...(m.all.length ? { allOf: m.all } : {}) };
    }
    if (m.any.length && m.all.length) expressible = false;
    url.terms[k.param] = m.all.length ? m.all : m.any;
    if (!k.anyOnly) url.mode[k.param] = url.terms[k.param].length > 1 && m.all.length ? "all" : "any";
  }
  return { api, url: expressible && !empty ? url : null, empty };
}

// shortTitle: a case's title in the screen's language, cut to fit a label.
function shortTitle(t, max = 30) {
  const s = (state.lang === "ko" && t.ko ? t.ko : t.en || "").trim();
  return s.length > max ? s.slice(0, max - 1).trimEnd() + "…" : s;
}

const fmtLift = (x) => (x === null || x === undefined ? "–" : x >= 10 ? x.toFixed(0) : x.toFixed(2)) + "×";

function parse(params, bad) {
  const f = parseFilter(params, bad);
  let a = params.get("a") || "root_cause", b = params.get("b") || "component";
  if (!kindByURL(a) || !kindByURL(b)) { bad.push("a", "b"); a = "root_cause"; b = "component"; }
  let min = 1;
  if (params.get("min") !== null) {
    const n = Number(params.get("min"));
    if (Number.isInteger(n) && n >= 1 && n <= 1000) min = n; else bad.push("min");
  }
  const x = [];
  for (const item of (params.get("x") || "").split(",").filter(Boolean)) {
    const [kind, id, extra] = item.split(":");
    if (extra !== undefined || !(kind === "case" ? CASE_ID.test(id || "") : kindByURL(kind) && validID(id || "")) || x.length >= 10) { bad.push("x"); continue; }
    if (!x.includes(item)) x.push(item);
  }
  let p1 = params.get("p1") || "", p2 = params.get("p2") || "";
  if ((p1 && !CASE_ID.test(p1)) || (p2 && !CASE_ID.test(p2))) { bad.push("p1", "p2"); p1 = p2 = ""; }
  return { f, a, b, min, x, p1, p2 };
}

const params = (st) => ({ ...filterParams(st.f), a: st.a !== "root_cause" ? st.a : "", b: st.b !== "component" ? st.b : "", min: st.min !== 1 ? st.min : "", x: st.x, p1: st.p1, p2: st.p2 });

function buildQuery(st) {
  const vars = { from: kindByURL(st.a).api, to: kindByURL(st.b).api, filter: apiFilter(st.f), min: st.min };
  const decl = ["$from: Kind!", "$to: Kind!", "$filter: CaseFilter", "$min: Int"];
  const parts = [`co: cooccurrence(from: $from, to: $to, filter: $filter, minCount: $min) { nodes ${NODE} edges ${EDGE} truncated }`];
  st.x.forEach((item, i) => {
    const [kind, id] = item.split(":");
    decl.push(`$x${i}: NodeInput!`);
    vars["x" + i] = { kind: kind === "case" ? "CASE" : kindByURL(kind).api, id };
    // A case's neighbourhood under the filter: its terms and the linked
    // cases the filter selects (the API leaves out the others).
    if (kind === "case") {
      decl.push(`$xn${i}: CaseFilter`);
      vars["xn" + i] = apiFilter(st.f);
      parts.push(`x${i}: neighbourhood(node: $x${i}, depth: 1, limit: 200, filter: $xn${i}) { nodes ${NODE} edges ${EDGE} truncated }`);
    } else {
      parts.push(`x${i}: neighbourhood(node: $x${i}, depth: 1, limit: 200) { nodes ${NODE} edges ${EDGE} truncated }`);
    }
    // A term's neighbourhood is its cases: the ones the filter selects.
    if (kind !== "case") {
      decl.push(`$xf${i}: CaseFilter`);
      vars["xf" + i] = narrow(st.f, [[kind, id]]).api;
      parts.push(`xc${i}: cases(filter: $xf${i}, first: ${PAGE}) ${CASES}`);
    }
  });
  if (st.p1 && st.p2) {
    decl.push("$p1: ID!", "$p2: ID!");
    vars.p1 = st.p1; vars.p2 = st.p2;
    parts.push(`paths: connections(from: $p1, to: $p2, maxHops: 4, limit: 10) { length nodes ${NODE} edges ${EDGE} }`);
  }
  return { doc: `query Graph(${decl.join(", ")}) {\n  ${parts.join("\n  ")}\n}`, vars };
}

let shown = null; // the Cytoscape instance on screen

// leave frees the drawing when another screen replaces the graph.
export function leave() {
  if (shown) shown.destroy();
  shown = null;
}

export async function render(ctx) {
  const bad = [];
  const st = parse(ctx.params, bad);
  ctx.clean(link("/graph", params(st)), bad);
  const { doc, vars } = buildQuery(st);
  let limitNote = "";
  const [vocab, r, cytoscape] = await Promise.all([vocabulary(), ask(doc, vars).catch((e) => {
    // A drawing over the server's size limit: say so, draw nothing, and
    // keep the controls that make it smaller.
    if (e.code !== "LIMIT") throw e;
    limitNote = e.message;
    return { data: { co: { nodes: [], edges: [], truncated: true } }, warnings: [] };
  }), loadCytoscape()]);
  const d = r.data;
  if (!ctx.alive()) return;
  document.title = L("Graph", "그래프") + " · ilgraph";

  // Merge the co-occurrence drawing, expansions and paths.
  const nodes = new Map(), edges = new Map(), onPath = new Set();
  const addNode = (n, cls) => {
    const old = nodes.get(n.key);
    if (old) { if (cls) old.classes.add(cls); return; }
    nodes.set(n.key, { ...n, classes: new Set(cls ? [cls] : []) });
  };
  const addEdge = (e, cls) => {
    const key = [e.source, e.target].sort().join("|") + "|" + e.type;
    if (!edges.has(key)) edges.set(key, { ...e, key, classes: new Set() });
    if (cls) edges.get(key).classes.add(cls);
  };
  d.co.nodes.forEach((n) => addNode(n, "co"));
  d.co.edges.forEach((e) => addEdge(e, "co"));
  let truncated = d.co.truncated;
  const titles = new Map(); // case id -> {en, ko}
  const expanded = []; // [node key, cases added]
  st.x.forEach((item, i) => {
    const n = d["x" + i];
    if (!n) return; // not asked: the drawing was over the limit
    const [kind, id] = item.split(":");
    if (kind === "case") {
      // A case's neighbourhood is its own terms and the cases it names
      // (related, recurrence) that the filter selects.
      truncated = truncated || n.truncated;
      n.nodes.forEach((x) => addNode(x, "nb"));
      n.edges.forEach((e) => addEdge(e, "nb"));
      expanded.push([item, n.nodes.filter((x) => x.kind === "case" && x.key !== item).length]);
      return;
    }
    // A term's: the cases the filter selects that have it (the API's
    // cases, not the neighbourhood's, which ignores the filter), and the
    // links among them.
    const c = d["xc" + i];
    const start = n.nodes.find((x) => x.key === item) || { key: item, kind, id, label: id };
    addNode(start, "nb");
    const keep = new Set([item]);
    for (const x of c.nodes) {
      titles.set(x.id, x.title);
      keep.add("case:" + x.id);
      addNode({ key: "case:" + x.id, kind: "case", id: x.id, label: x.title.en }, "nb");
      addEdge({ source: "case:" + x.id, target: item, type: REL[kind] }, "nb");
    }
    n.edges.forEach((e) => { if (keep.has(e.source) && keep.has(e.target)) addEdge(e, "nb"); });
    if (c.totalCount > c.nodes.length) truncated = true;
    expanded.push([item, c.totalCount]);
  });
  const paths = d.paths || [];
  for (const p of paths) {
    p.nodes.forEach((x) => { addNode(x, "path"); onPath.add(x.key); });
    p.edges.forEach((e) => addEdge(e, "path"));
  }
  // Korean titles of the cases drawn from neighbourhoods and paths, which
  // carry only the English one.
  const untitled = [...nodes.values()].filter((n) => n.kind === "case" && !titles.has(n.id)).map((n) => n.id).slice(0, 200);
  if (state.lang === "ko" && untitled.length) {
    const decl = untitled.map((_, i) => `$t${i}: ID!`).join(", ");
    const doc = `query GraphTitles(${decl}) {\n  ${untitled.map((_, i) => `t${i}: case(id: $t${i}) { id title { en ko } }`).join("\n  ")}\n}`;
    const t = await ask(doc, Object.fromEntries(untitled.map((id, i) => ["t" + i, id]))).catch(() => null);
    if (!ctx.alive()) return;
    for (const c of Object.values((t && t.data) || {})) if (c) titles.set(c.id, c.title);
  }
  const titleOf = (n) => titles.get(n.id) || { en: n.label || "", ko: null };
  const label = (n) => {
    if (n.kind === "case") return `${shortTitle(titleOf(n))}\n${n.id}`;
    const k = kindByURL(n.kind);
    const t = k && vocab.byKey.get(k.api + ":" + n.id);
    return t ? termLabel(t) : n.label;
  };
  const maxCount = Math.max(1, ...[...edges.values()].map((e) => e.count || 1));
  const maxNode = Math.max(1, ...[...nodes.values()].map((n) => n.count || 1));
  const elements = [
    ...[...nodes.values()].map((n) => ({ group: "nodes", data: { id: n.key, kind: n.kind, tid: n.id, label: label(n), size: 14 + 26 * Math.sqrt((n.count || 1) / maxNode) }, classes: [...n.classes].join(" ") })),
    ...[...edges.values()].filter((e) => nodes.has(e.source) && nodes.has(e.target)).map((e) => ({ group: "edges",
      data: { id: e.key, source: e.source, target: e.target, width: e.count ? 1 + 9 * Math.sqrt(e.count / maxCount) : 1.5, colour: liftColour(e.lift), count: e.count ?? null, lift: e.lift ?? null },
      classes: [...e.classes].join(" ") })),
  ];

  // Controls
  const kindSelect = (id, value, text) => h("div", {}, h("label", { for: id }, text), " ",
    h("select", { id, onchange: (ev) => go(link("/graph", params({ ...st, [id === "ga" ? "a" : "b"]: ev.target.value, x: [], p1: "", p2: "" }))) },
      KINDS.map((k) => h("option", { value: k.url, selected: k.url === value }, L(k.en, k.ko)))));
  const minInput = h("input", { type: "number", id: "gmin", min: "1", max: "1000", value: String(st.min) });
  const controls = h("form", { class: "graph-controls", onsubmit: (ev) => { ev.preventDefault(); go(link("/graph", params({ ...st, min: Math.max(1, Number(minInput.value) || 1) }))); } },
    kindSelect("ga", st.a, L("From", "에서")), kindSelect("gb", st.b, L("To", "으로")),
    h("div", {}, h("label", { for: "gmin" }, L("Minimum cases per edge", "선의 최소 사례 수")), " ", minInput, " ", h("button", { type: "submit" }, L("Apply", "적용"))));

  const p1 = h("input", { id: "p1", value: st.p1, size: "10", placeholder: "IL-0384", autocomplete: "off" });
  const p2 = h("input", { id: "p2", value: st.p2, size: "10", placeholder: "IL-0282", autocomplete: "off" });
  const connect = h("form", { class: "connect", onsubmit: (ev) => {
    ev.preventDefault();
    const a = p1.value.trim(), b = p2.value.trim();
    if (!CASE_ID.test(a) || !CASE_ID.test(b)) { status.textContent = L("Give two case ids, such as IL-0384.", "IL-0384 같은 사례 번호 두 개를 넣으세요."); return; }
    go(link("/graph", params({ ...st, p1: a, p2: b })));
  } }, h("fieldset", {}, h("legend", {}, L("How are these two cases connected?", "두 사례는 어떻게 이어져 있나?")),
    h("label", { for: "p1" }, L("Case", "사례")), p1, h("label", { for: "p2" }, L("and case", "와 사례")), p2,
    h("button", { type: "submit" }, L("Connect", "잇기")),
    st.p1 ? h("a", { href: link("/graph", params({ ...st, p1: "", p2: "" })), "data-nav": "" }, L("Clear", "지우기")) : null));

  const flat = (n) => (n.kind === "case" ? `${n.id}: ${shortTitle(titleOf(n), 60)}` : label(n));
  const kindName = (n) => (n.kind === "case" ? L("case", "사례") : L(kindByURL(n.kind).en, kindByURL(n.kind).ko));
  const status = h("p", { class: "graph-status", role: "status" },
    L(`${nodes.size} nodes, ${elements.length - nodes.size} edges`, `노드 ${nodes.size}개, 선 ${elements.length - nodes.size}개`),
    truncated ? L(" — cut short by a size limit", " — 크기 제한으로 일부만") : "",
    limitNote ? [" — ", h("strong", {}, L("Too large to draw: raise the minimum cases per edge or narrow the filters.", "너무 커서 그릴 수 없습니다. 선의 최소 사례 수를 올리거나 필터를 좁히세요.")), " (", h("span", { lang: "en" }, limitNote), ")"] : null,
    expanded.map(([key, n]) => {
      const x = nodes.get(key);
      const name = x ? flat(x) : key;
      return key.startsWith("case:")
        ? L(` · expanded ${name}: its terms and ${n} linked cases`, ` · ${name} 펼침: 분류와 이어진 사례 ${n}개`)
        : L(` · expanded ${name}: ${n} cases${isEmpty(st.f) ? "" : " under the filter"}`, ` · ${name} 펼침: ${isEmpty(st.f) ? "" : "필터 안의 "}사례 ${n}개`);
    }),
    st.p1 && st.p2 ? (paths.length ? L(` · ${paths.length} shortest connections (${paths[0].length} hops) highlighted`, ` · 최단 연결 ${paths.length}개 (${paths[0].length}단계) 강조`) : L(" · no connection within 4 hops", " · 4단계 안에 연결 없음")) : "");

  // Node finder and actions: the keyboard way to what clicks do.
  const options = [...nodes.values()].sort((a, b) => flat(a).localeCompare(flat(b)));
  const finder = h("select", { id: "gnode" }, h("option", { value: "" }, L("— choose a node —", "— 노드 선택 —")),
    options.map((n) => h("option", { value: n.key }, `${flat(n)} (${kindName(n)})`)));
  const act = (fn) => () => { const key = finder.value; if (key) fn(nodes.get(key)); };
  const panel = h("div", { class: "node-actions" },
    h("label", { for: "gnode" }, L("Node", "노드")), " ", finder, " ",
    h("button", { type: "button", onclick: act((n) => primary(n)) }, L("Filter by it / open it", "이것으로 거르기 / 열기")), " ",
    h("button", { type: "button", id: "gexpand", onclick: act((n) => expand(n)) }, L("Expand neighbourhood", "주변 펼치기")),
    st.x.length ? [" ", h("a", { href: link("/graph", params({ ...st, x: [] })), "data-nav": "" }, L("Collapse all", "모두 접기"))] : null);

  const primary = (n) => {
    if (n.kind === "case") return go(link("/case/" + encodeURIComponent(n.id)));
    const k = kindByURL(n.kind);
    const f = clone(st.f);
    if (!f.terms[k.param].includes(n.id)) f.terms[k.param].push(n.id);
    go(link("/graph", params({ ...st, f })));
  };
  const expand = (n) => {
    const item = `${n.kind}:${n.id}`;
    if (!st.x.includes(item)) go(link("/graph", params({ ...st, x: [...st.x, item].slice(-10) })));
  };

  // Edges with numbers: the co-occurrence edges, each with its cases —
  // the filter's cases that have both terms (narrow), on the Cases screen
  // when its URL can say that selection.
  const coEdges = [...edges.values()].filter((e) => e.classes.has("co") && e.count !== null && e.count !== undefined && nodes.has(e.source) && nodes.has(e.target))
    .map((e) => {
      const a = nodes.get(e.source), b = nodes.get(e.target);
      const sel = narrow(st.f, [[a.kind, a.id], [b.kind, b.id]]);
      return { ...e, a, b, sel, href: sel.url ? link("/", filterParams(sel.url)) : null, name: `${label(a)} — ${label(b)}` };
    })
    .sort((x, y) => y.count - x.count || (y.lift || 0) - (x.lift || 0) || x.name.localeCompare(y.name));
  const byKey = new Map(coEdges.map((e) => [e.key, e]));
  const casesWord = (n) => L(n === 1 ? "1 case" : `${fmtNumber(n)} cases`, `사례 ${fmtNumber(n)}개`);
  const edgeText = (e) => L(`${e.name}: ${casesWord(e.count)} with both, lift ${fmtLift(e.lift)}`, `${e.name}: 둘 다 있는 ${casesWord(e.count)}, 리프트 ${fmtLift(e.lift)}`);

  // The side panel: what an edge's hover or click (or its row's button)
  // shows — its numbers and its cases, asked of the API with the filter.
  const side = h("section", { class: "edge-panel", "aria-labelledby": "edge-h", "aria-live": "polite" });
  const idle = () => fill(side, h("h2", { id: "edge-h" }, L("Edge", "선")),
    h("p", { class: "help" }, L("Point at or click an edge to see how many cases have both terms, its lift and the cases; or use the table of edges below.",
      "선을 가리키거나 누르면 두 분류가 함께 있는 사례 수, 리프트, 사례 목록이 나옵니다. 아래의 선 표로도 볼 수 있습니다.")));
  idle();
  let asking = 0;
  const rows = new Map();
  async function showEdge(e) {
    const mine = ++asking;
    side.dataset.edge = e.key;
    side.dataset.state = "loading";
    for (const [k, tr] of rows) tr.classList.toggle("current", k === e.key);
    const list = h("div", {}, h("p", {}, L("Loading the cases…", "사례를 불러오는 중…")));
    fill(side, h("h2", { id: "edge-h" }, h("span", {}, label(e.a)), " — ", h("span", {}, label(e.b))),
      h("dl", {},
        h("dt", {}, L("Cases with both", "둘 다 있는 사례")), h("dd", { class: "edge-count" }, fmtNumber(e.count)),
        h("dt", {}, L("Lift", "리프트")), h("dd", { class: "edge-lift" }, fmtLift(e.lift)),
        e.support !== null && e.support !== undefined ? [h("dt", {}, L("Lift rests on", "리프트 근거")), h("dd", {}, casesWord(e.support))] : null),
      h("p", { class: "help" }, isEmpty(st.f) ? L("Over every case.", "모든 사례에서.") : L("Under the active filter.", "적용된 필터 안에서.")),
      list);
    let r;
    try {
      r = e.sel.empty ? { data: { c: { totalCount: 0, nodes: [] } } } : await ask(`query EdgeCases($f: CaseFilter) { c: cases(filter: $f, first: ${PAGE}) ${CASES} }`, { f: e.sel.api });
    } catch (err) {
      if (mine !== asking) return;
      side.dataset.state = "error";
      fill(list, h("p", { role: "alert" }, L("The cases did not load: ", "사례를 불러오지 못했습니다: "), err.message));
      return;
    }
    if (mine !== asking || !ctx.alive()) return;
    const c = r.data.c;
    fill(list,
      h("h3", {}, c.totalCount === 1 ? L("The case", "사례") : L(`The ${casesWord(c.totalCount)}`, casesWord(c.totalCount))),
      h("ol", { class: "edge-cases" }, c.nodes.map((x) => h("li", { "data-case": x.id },
        h("a", { href: link("/case/" + encodeURIComponent(x.id)), "data-nav": "" }, x.id), " ",
        h("span", { lang: state.lang === "ko" && x.title.ko ? "ko" : "en" }, shortTitle(x.title, 70))))),
      c.totalCount > c.nodes.length ? h("p", {}, L(`and ${fmtNumber(c.totalCount - c.nodes.length)} more`, `외 ${fmtNumber(c.totalCount - c.nodes.length)}개`)) : null,
      e.href ? h("p", {}, h("a", { href: e.href, "data-nav": "", class: "edge-open" }, c.totalCount === 1 ? L("Open it on the Cases screen", "사례 화면에서 열기") : L(`Open these ${casesWord(c.totalCount)} on the Cases screen`, `이 ${casesWord(c.totalCount)}를 사례 화면에서 열기`))) : null);
    side.dataset.listed = String(c.totalCount);
    side.dataset.state = "ready";
  }

  // The table of edges: the keyboard's and screen reader's way to them.
  // Its rows are built when it is first opened (a drawing may have
  // thousands of edges).
  const tbody = h("tbody", {});
  const buildRows = () => {
    if (rows.size) return;
    fill(tbody, coEdges.map((e) => {
      const tr = h("tr", { "data-edge": e.key, class: side.dataset.edge === e.key ? "current" : null },
        h("td", {}, label(e.a)), h("td", {}, label(e.b)),
        h("td", { class: "num" }, e.href ? h("a", { href: e.href, "data-nav": "", "aria-label": edgeText(e) }, fmtNumber(e.count)) : fmtNumber(e.count)),
        h("td", { class: "num" }, fmtLift(e.lift)),
        h("td", {}, h("button", { type: "button", onclick: () => { select(e.key); showEdge(e); side.scrollIntoView({ block: "nearest" }); } }, L("Show cases", "사례 보기"))));
      rows.set(e.key, tr);
      return tr;
    }));
  };
  const table = coEdges.length ? h("details", { class: "edge-details", ontoggle: (ev) => { if (ev.target.open) buildRows(); } },
    h("summary", {}, L(`Edges as a table (${coEdges.length}), most cases first`, `선 표 (${coEdges.length}개), 사례 많은 순`)),
    h("table", { class: "edge-table" },
      h("caption", { class: "visually-hidden" }, L("Edges: cases with both terms and lift", "선: 두 분류가 함께 있는 사례 수와 리프트")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, L(kindByURL(st.a).en, kindByURL(st.a).ko)), h("th", { scope: "col" }, L(kindByURL(st.b).en, kindByURL(st.b).ko)),
        h("th", { scope: "col" }, L("Cases", "사례")), h("th", { scope: "col" }, L("Lift", "리프트")), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, L("Actions", "동작"))))),
      tbody)) : null;

  const lift = h("ul", { class: "legend", "aria-label": L("Edge colour: lift", "선 색: 리프트") },
    [0.25, 0.5, 1, 2, 4].map((v) => h("li", {}, h("span", { class: "swatch line", style: { background: liftColour(v) }, "aria-hidden": "true" }), `${v}×`)));
  const box = h("div", { id: "cy", class: "cy", role: "img", tabindex: "0", "data-nodes": String(nodes.size), "data-edges": String(elements.length - nodes.size),
    "aria-label": L(`Graph of ${nodes.size} nodes and ${elements.length - nodes.size} edges; choose a node above or an edge in the table below to act on it`, `노드 ${nodes.size}개와 선 ${elements.length - nodes.size}개의 그래프; 위에서 노드를, 아래 표에서 선을 골라 다루세요`) });
  const tip = h("div", { class: "graph-tip", hidden: true, "aria-hidden": "true" });

  fill(ctx.main,
    h("h1", {}, L("Graph", "그래프")),
    chips(st.f, vocab, "/graph", (({ a, b, min }) => ({ a, b, min }))(params(st))), warningsBox(r.warnings),
    controls, connect, status,
    h("div", { class: "legends" }, h("div", {}, h("h2", { class: "small" }, L("Nodes", "노드")), kindLegend(true)),
      h("div", {}, h("h2", { class: "small" }, L("Edges: width = cases, colour = lift", "선: 굵기 = 사례 수, 색 = 리프트")), lift)),
    panel,
    h("div", { class: "graph-wrap" }, h("div", { class: "graph-stage" }, box, tip), side),
    h("p", { class: "help" }, L("Click a term to filter by it, a case to open it; right-click (or choose it above) to expand its neighbourhood. Point at an edge for its numbers, click it for its cases.",
      "분류를 누르면 그것으로 거르고, 사례를 누르면 엽니다. 오른쪽 클릭(또는 위에서 선택)하면 주변을 펼칩니다. 선을 가리키면 수치가, 누르면 사례가 나옵니다.")),
    table,
    h("p", {}, h("a", { href: link("/", filterParams(st.f)), "data-nav": "" }, L("These cases as a list", "이 사례들을 목록으로"))));

  leave();
  const cy = draw(cytoscape, box, elements);
  shown = cy;
  const select = (key) => { cy.$(":selected").unselect(); const el = cy.getElementById(key); if (el.length) el.select(); };
  const showTip = (text, pos) => { tip.textContent = text; tip.style.left = pos.x + "px"; tip.style.top = pos.y + "px"; tip.hidden = false; };
  cy.on("mouseover", "edge", (ev) => {
    const e = byKey.get(ev.target.id());
    ev.target.addClass("hover");
    if (e) showTip(edgeText(e), ev.target.renderedMidpoint());
  });
  cy.on("mouseout", "edge", (ev) => { ev.target.removeClass("hover"); tip.hidden = true; });
  cy.on("mouseover", "node", (ev) => {
    const n = nodes.get(ev.target.id());
    if (!n) return;
    const what = n.kind === "case" ? `${n.id}: ${titleOf(n)[state.lang === "ko" && titleOf(n).ko ? "ko" : "en"]}`
      : `${label(n)} (${kindName(n)})${n.count ? " · " + casesWord(n.count) : ""}`;
    showTip(what, { x: ev.target.renderedPosition().x, y: ev.target.renderedBoundingBox().y1 });
  });
  cy.on("mouseout", "node", () => { tip.hidden = true; });
  cy.on("tap", "edge", (ev) => { const e = byKey.get(ev.target.id()); if (e) showEdge(e); });
  cy.on("tap", "node", (ev) => primary(nodes.get(ev.target.id())));
  cy.on("cxttap", "node", (ev) => expand(nodes.get(ev.target.id())));
  cy.on("viewport", () => { tip.hidden = true; });
  finder.addEventListener("change", () => select(finder.value));
  box.cy = cy; // for the browser tests
}
