// Drawing graphs with Cytoscape.js, loaded only when a graph is shown.
import { KINDS, CASE_COLOUR } from "./lib.js";

// Up to LARGE nodes the layout is force-directed (d3-force, run to the end
// before the first frame: no animation, the same picture every time).
// LARGE is the size from which drawing favours speed: nodes placed on
// concentric rings by degree (no layout run, no force simulation), labels
// only when zoomed in, straight edges, textures while panning, and no
// animation.
export const LARGE = 300;

// The scripts the Graph screen needs, in the order they must run: d3-force
// wants d3-dispatch, d3-quadtree and d3-timer on window.d3 first. They
// download in parallel and run in this order (async = false).
const SCRIPTS = ["cytoscape/cytoscape.min.js", "d3-dispatch/d3-dispatch.min.js", "d3-quadtree/d3-quadtree.min.js",
  "d3-timer/d3-timer.min.js", "d3-force/d3-force.min.js"];

let cyLoad = null;
// loadCytoscape loads Cytoscape.js and the force layout it draws with, once.
export function loadCytoscape() {
  if (window.cytoscape && window.d3 && window.d3.forceSimulation) return Promise.resolve(window.cytoscape);
  if (!cyLoad) {
    cyLoad = Promise.all(SCRIPTS.map((src) => new Promise((resolve, reject) => {
      const el = document.createElement("script");
      el.src = "/assets/vendor/" + src;
      el.async = false;
      el.onload = resolve;
      el.onerror = () => reject(new Error("The graph library did not load."));
      document.head.append(el);
    }))).then(() => window.cytoscape, (e) => { cyLoad = null; throw e; });
  }
  return cyLoad;
}

// Cytoscape.js, on its first drawing, adds a <style> element to the head
// (".__________cytoscape_container { position: relative; }") unless an
// element with its id is already there. The page's CSP refuses inline
// styles, so that rule is in app.css and this marker tells Cytoscape the
// stylesheet is present: nothing inline, no CSP violation.
function markStylesheet() {
  const id = "__________cytoscape_stylesheet";
  if (document.getElementById(id)) return;
  const m = document.createElement("template");
  m.id = id;
  document.head.append(m);
}

// liftColour: blue below chance, grey at chance, red above (log scale).
export function liftColour(lift) {
  if (lift === null || lift === undefined) return "#8a8a8a";
  const t = Math.max(-1, Math.min(1, Math.log2(lift) / 2));
  const mix = (a, b, u) => Math.round(a + (b - a) * u);
  const grey = [138, 138, 138], red = [190, 30, 30], blue = [30, 90, 190];
  const to = t >= 0 ? red : blue, u = Math.abs(t);
  return `rgb(${mix(grey[0], to[0], u)},${mix(grey[1], to[1], u)},${mix(grey[2], to[2], u)})`;
}

// rings places nodes on concentric rings, most connected in the middle:
// linear work once degrees are counted, so large drawings need no layout
// run at all.
function rings(elements) {
  const nodes = elements.filter((e) => e.group === "nodes");
  const degree = new Map(nodes.map((n) => [n.data.id, 0]));
  for (const e of elements) {
    if (e.group !== "edges") continue;
    degree.set(e.data.source, (degree.get(e.data.source) || 0) + 1);
    degree.set(e.data.target, (degree.get(e.data.target) || 0) + 1);
  }
  nodes.sort((a, b) => degree.get(b.data.id) - degree.get(a.data.id));
  const spacing = 28;
  let ring = 0, placed = 0;
  while (placed < nodes.length) {
    const r = ring * spacing * 1.6;
    const cap = ring === 0 ? 1 : Math.floor((2 * Math.PI * r) / spacing);
    for (let i = 0; i < cap && placed < nodes.length; i++, placed++) {
      const a = (2 * Math.PI * i) / cap + ring * 0.37;
      nodes[placed].position = { x: r * Math.cos(a), y: r * Math.sin(a) };
    }
    ring++;
  }
}

// force places nodes with d3-force: edges pull their ends together (shorter
// for heavier edges), nodes repel each other and never overlap their
// labels' width, and a weak pull to the middle keeps separate components
// in view. It runs synchronously to the end (about 300 steps) from d3's
// deterministic start, so the same graph is drawn the same way.
function force(elements, d3) {
  const nodes = [], byId = new Map();
  for (const e of elements) {
    if (e.group !== "nodes") continue;
    const label = String(e.data.label || "").split("\n")[0];
    const n = { id: e.data.id, el: e, r: Math.max(e.data.size / 2, Math.min(70, label.length * 3)) + 6 };
    nodes.push(n);
    byId.set(n.id, n);
  }
  const maxW = Math.max(1, ...elements.filter((e) => e.group === "edges").map((e) => e.data.width || 1));
  const links = elements.filter((e) => e.group === "edges" && e.data.source !== e.data.target && byId.has(e.data.source) && byId.has(e.data.target))
    .map((e) => ({ source: e.data.source, target: e.data.target, w: (e.data.width || 1) / maxW }));
  const sim = d3.forceSimulation(nodes)
    .force("link", d3.forceLink(links).id((d) => d.id).distance((l) => 90 - 40 * l.w))
    .force("charge", d3.forceManyBody().strength(-260).distanceMax(600))
    .force("collide", d3.forceCollide((d) => d.r).iterations(2))
    .force("x", d3.forceX(0).strength(0.05))
    .force("y", d3.forceY(0).strength(0.07))
    .stop();
  sim.tick(Math.ceil(Math.log(sim.alphaMin()) / Math.log(1 - sim.alphaDecay())));
  for (const n of nodes) n.el.position = { x: n.x, y: n.y };
}

// draw renders elements (Cytoscape's element JSON: nodes with data kind,
// label, size; edges with data width, colour) into box.
export function draw(cytoscape, box, elements) {
  const n = elements.filter((e) => e.group === "nodes").length;
  const big = n > LARGE;
  const colours = Object.fromEntries(KINDS.map((k) => [k.url, k.colour]));
  colours.case = CASE_COLOUR;
  for (const e of elements) if (e.group === "nodes") e.data.colour = colours[e.data.kind] || "#555555";
  if (big) rings(elements);
  else force(elements, window.d3);
  markStylesheet();
  return cytoscape({
    container: box, elements, wheelSensitivity: 0.3, minZoom: 0.05, maxZoom: 4,
    textureOnViewport: big, hideEdgesOnViewport: big, hideLabelsOnViewport: big, pixelRatio: big ? 1 : "auto",
    style: [
      { selector: "node", style: { "background-color": "data(colour)", width: "data(size)", height: "data(size)",
        label: "data(label)", "font-size": 11, color: "#1a1a1a", "text-valign": "bottom", "text-margin-y": 3,
        "text-background-color": "#ffffff", "text-background-opacity": 0.7, "text-background-padding": 1,
        "min-zoomed-font-size": big ? 14 : 7 } },
      // A case's label is its short title, then its id: two lines.
      { selector: "node[kind = 'case']", style: { "font-size": 10, shape: "round-rectangle", "text-wrap": "wrap", "text-max-width": 160 } },
      { selector: "edge", style: { width: "data(width)", "line-color": "data(colour)", opacity: 0.7, "curve-style": big ? "haystack" : "straight" } },
      { selector: "edge.nb", style: { "line-style": "dashed", "line-color": "#8a8a8a", width: 1 } },
      { selector: "node.path", style: { "border-width": 3, "border-color": "#111" } },
      { selector: "edge.path", style: { "line-color": "#111", width: 4, opacity: 1, "line-style": "solid" } },
      { selector: "node:selected", style: { "border-width": 4, "border-color": "#f2b600" } },
      { selector: "edge:selected", style: { "line-color": "#f2b600", opacity: 1, "z-index": 10 } },
      { selector: "edge.hover", style: { opacity: 1, "z-index": 9 } },
    ],
    layout: { name: "preset", fit: true, padding: 30, animate: false },
  });
}
