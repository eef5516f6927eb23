// Graph: the selection as a co-occurrence graph between two kinds (edge
// width = cases with both, colour = lift), plus neighbourhoods expanded on
// demand and the connections between two cases. URL: a, b (kinds), min,
// the case filter (filter.js), x (expanded nodes, kind:id, comma-separated),
// p1, p2 (two case ids to connect).
import { h, fill, ask, warningsBox, KINDS, kindByURL, L, link, go, vocabulary, CASE_ID, validID, termLabel } from "./lib.js";
import { parseFilter, filterParams, apiFilter, chips, clone } from "./filter.js";
import { kindLegend } from "./bars.js";
import { loadCytoscape, draw, liftColour } from "./draw.js";

const NODE = "{ key kind id label count }";
const EDGE = "{ source target type count lift }";

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
    parts.push(`x${i}: neighbourhood(node: $x${i}, depth: 1, limit: 200) { nodes ${NODE} edges ${EDGE} truncated }`);
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
  st.x.forEach((_, i) => {
    const n = d["x" + i];
    if (!n) return; // not asked: the drawing was over the limit
    truncated = truncated || n.truncated;
    n.nodes.forEach((x) => addNode(x, "nb"));
    n.edges.forEach((e) => addEdge(e, "nb"));
  });
  const paths = d.paths || [];
  for (const p of paths) {
    p.nodes.forEach((x) => { addNode(x, "path"); onPath.add(x.key); });
    p.edges.forEach((e) => addEdge(e, "path"));
  }
  const label = (n) => {
    if (n.kind === "case") return n.id;
    const k = kindByURL(n.kind);
    const t = k && vocab.byKey.get(k.api + ":" + n.id);
    return t ? termLabel(t) : n.label;
  };
  const maxCount = Math.max(1, ...[...edges.values()].map((e) => e.count || 1));
  const maxNode = Math.max(1, ...[...nodes.values()].map((n) => n.count || 1));
  const elements = [
    ...[...nodes.values()].map((n) => ({ group: "nodes", data: { id: n.key, kind: n.kind, tid: n.id, label: label(n), size: 14 + 26 * Math.sqrt((n.count || 1) / maxNode) }, classes: [...n.classes].join(" ") })),
    ...[...edges.values()].filter((e) => nodes.has(e.source) && nodes.has(e.target)).map((e) => ({ group: "edges",
      data: { id: e.key, source: e.source, target: e.target, width: e.count ? 1 + 9 * Math.sqrt(e.count / maxCount) : 1.5, colour: liftColour(e.lift), count: e.count, lift: e.lift },
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

  const status = h("p", { class: "graph-status", role: "status" },
    L(`${nodes.size} nodes, ${elements.length - nodes.size} edges`, `노드 ${nodes.size}개, 선 ${elements.length - nodes.size}개`),
    truncated ? L(" — cut short by a size limit", " — 크기 제한으로 일부만") : "",
    limitNote ? [" — ", h("strong", {}, L("Too large to draw: raise the minimum cases per edge or narrow the filters.", "너무 커서 그릴 수 없습니다. 선의 최소 사례 수를 올리거나 필터를 좁히세요.")), " (", h("span", { lang: "en" }, limitNote), ")"] : null,
    st.p1 && st.p2 ? (paths.length ? L(` · ${paths.length} shortest connections (${paths[0].length} hops) highlighted`, ` · 최단 연결 ${paths.length}개 (${paths[0].length}단계) 강조`) : L(" · no connection within 4 hops", " · 4단계 안에 연결 없음")) : "");

  // Node finder and actions: the keyboard way to what clicks do.
  const options = [...nodes.values()].sort((a, b) => label(a).localeCompare(label(b)));
  const finder = h("select", { id: "gnode" }, h("option", { value: "" }, L("— choose a node —", "— 노드 선택 —")),
    options.map((n) => h("option", { value: n.key }, `${label(n)} (${n.kind === "case" ? L("case", "사례") : L(kindByURL(n.kind).en, kindByURL(n.kind).ko)})`)));
  const act = (fn) => () => { const key = finder.value; if (key) fn(nodes.get(key)); };
  const panel = h("div", { class: "node-actions" },
    h("label", { for: "gnode" }, L("Node", "노드")), " ", finder, " ",
    h("button", { type: "button", onclick: act((n) => primary(n)) }, L("Filter by it / open it", "이것으로 거르기 / 열기")), " ",
    h("button", { type: "button", onclick: act((n) => expand(n)) }, L("Expand neighbourhood", "주변 펼치기")),
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

  const lift = h("ul", { class: "legend", "aria-label": L("Edge colour: lift", "선 색: 리프트") },
    [0.25, 0.5, 1, 2, 4].map((v) => h("li", {}, h("span", { class: "swatch line", style: { background: liftColour(v) }, "aria-hidden": "true" }), `${v}×`)));
  const box = h("div", { id: "cy", class: "cy", role: "img", tabindex: "0", "data-nodes": String(nodes.size), "data-edges": String(elements.length - nodes.size),
    "aria-label": L(`Graph of ${nodes.size} nodes and ${elements.length - nodes.size} edges; choose a node below to act on it`, `노드 ${nodes.size}개와 선 ${elements.length - nodes.size}개의 그래프; 아래에서 노드를 골라 다루세요`) });

  fill(ctx.main, 
    h("h1", {}, L("Graph", "그래프")),
    chips(st.f, vocab, "/graph", (({ a, b, min }) => ({ a, b, min }))(params(st))), warningsBox(r.warnings),
    controls, connect, status,
    h("div", { class: "legends" }, h("div", {}, h("h2", { class: "small" }, L("Nodes", "노드")), kindLegend(true)),
      h("div", {}, h("h2", { class: "small" }, L("Edges: width = cases, colour = lift", "선: 굵기 = 사례 수, 색 = 리프트")), lift)),
    panel, box,
    h("p", { class: "help" }, L("Click a term to filter by it, a case to open it; right-click (or choose it above) to expand its neighbourhood.",
      "분류를 누르면 그것으로 거르고, 사례를 누르면 엽니다. 오른쪽 클릭(또는 위에서 선택)하면 주변을 펼칩니다.")),
    h("p", {}, h("a", { href: link("/", filterParams(st.f)), "data-nav": "" }, L("These cases as a list", "이 사례들을 목록으로"))));

  leave();
  const cy = draw(cytoscape, box, elements);
  shown = cy;
  cy.on("tap", "node", (ev) => primary(nodes.get(ev.target.id())));
  cy.on("cxttap", "node", (ev) => expand(nodes.get(ev.target.id())));
  finder.addEventListener("change", () => { cy.$(":selected").unselect(); if (finder.value) cy.getElementById(finder.value).select(); });
  box.cy = cy; // for the browser tests
}
