// Drawing graphs with Cytoscape.js, loaded only when a graph is shown.
import { KINDS, CASE_COLOUR } from "./lib.js";

// LARGE is the size from which drawing favours speed: nodes placed on
// concentric rings by degree (no layout run, no force simulation), labels
// only when zoomed in, straight edges, textures while panning, and no
// animation.
export const LARGE = 300;

let cyLoad = null;
export function loadCytoscape() {
  if (window.cytoscape) return Promise.resolve(window.cytoscape);
  if (!cyLoad) {
    cyLoad = new Promise((resolve, reject) => {
      const el = document.createElement("script");
      el.src = "/assets/vendor/cytoscape/cytoscape.min.js";
      el.onload = () => resolve(window.cytoscape);
      el.onerror = () => { cyLoad = null; reject(new Error("The graph library did not load.")); };
      document.head.append(el);
    });
  }
  return cyLoad;
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

// draw renders elements (Cytoscape's element JSON: nodes with data kind,
// label, size; edges with data width, colour) into box.
export function draw(cytoscape, box, elements) {
  const n = elements.filter((e) => e.group === "nodes").length;
  const big = n > LARGE;
  const colours = Object.fromEntries(KINDS.map((k) => [k.url, k.colour]));
  colours.case = CASE_COLOUR;
  for (const e of elements) if (e.group === "nodes") e.data.colour = colours[e.data.kind] || "#555555";
  if (big) rings(elements);
  return cytoscape({
    container: box, elements, wheelSensitivity: 0.3, minZoom: 0.05, maxZoom: 4,
    textureOnViewport: big, hideEdgesOnViewport: big, hideLabelsOnViewport: big, pixelRatio: big ? 1 : "auto",
    style: [
      { selector: "node", style: { "background-color": "data(colour)", width: "data(size)", height: "data(size)",
        label: "data(label)", "font-size": 11, color: "#1a1a1a", "text-valign": "bottom", "text-margin-y": 3,
        "text-background-color": "#ffffff", "text-background-opacity": 0.7, "text-background-padding": 1,
        "min-zoomed-font-size": big ? 14 : 7 } },
      { selector: "edge", style: { width: "data(width)", "line-color": "data(colour)", opacity: 0.7, "curve-style": big ? "haystack" : "straight" } },
      { selector: "edge.nb", style: { "line-style": "dashed", "line-color": "#8a8a8a", width: 1 } },
      { selector: "node.path", style: { "border-width": 3, "border-color": "#111" } },
      { selector: "edge.path", style: { "line-color": "#111", width: 4, opacity: 1, "line-style": "solid" } },
      { selector: "node:selected", style: { "border-width": 4, "border-color": "#f2b600" } },
    ],
    layout: big
      ? { name: "preset", fit: true, padding: 20, animate: false }
      : { name: "cose", animate: false, randomize: false, nodeRepulsion: () => 250000, idealEdgeLength: () => 70, edgeElasticity: () => 100,
        nodeOverlap: 20, gravity: 60, numIter: 1000, padding: 30, componentSpacing: 100, nestingFactor: 5 },
  });
}
