// Shared pieces: building DOM (text only, never HTML), the GraphQL client,
// URL state and the language setting.

// h builds an element. attrs: on* functions become listeners, "class",
// "text" (textContent), booleans toggle attributes, the rest are
// attributes. Children are nodes or strings (text nodes); null is skipped.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = String(v);
    else if (k === "value") el.value = v;
    else if (k === "checked") el.checked = !!v;
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v); // CSSOM: allowed by the CSP
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  if (el.hasAttribute("data-needs-role")) gate(el);
  append(el, children);
  return el;
}

// fill replaces an element's children, skipping null ones as h does
// (replaceChildren would write "null").
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

const SVGNS = "http://www.w3.org/2000/svg";
// s builds an SVG element, like h.
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "text") el.textContent = String(v);
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

// ---- the API ----

// ApiError is an answer with errors; down is true when the API could not
// answer at all (network, HTTP 5xx, UNAVAILABLE or TIMEOUT): worth retrying.
export class ApiError extends Error {
  constructor(message, { code = "", down = false, errors = [] } = {}) {
    super(message);
    this.code = code;
    this.down = down;
    this.errors = errors;
  }
}

// query posts a GraphQL operation and returns {data, errors}; it throws
// ApiError when there is no data to show.
export async function query(doc, variables = {}) {
  let resp;
  try {
    resp = await send("/graphql", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ query: doc, variables }),
    });
  } catch (e) {
    throw new ApiError(L("The API cannot be reached.", "API 에 연결할 수 없습니다."), { down: true });
  }
  if (resp.status === 429) {
    // The server's rate limit: wait and retry, as when it is down.
    throw new ApiError(L("The server is busy with this browser's requests (HTTP 429).", "서버가 이 브라우저의 요청으로 바쁩니다 (HTTP 429)."), { code: "RATE_LIMITED", down: true });
  }
  let body = null;
  try {
    body = await resp.json();
  } catch (e) {
    /* not JSON */
  }
  if (!body || resp.status >= 500) {
    throw new ApiError(L(`The API answered HTTP ${resp.status}.`, `API 가 HTTP ${resp.status} 응답을 보냈습니다.`), { down: resp.status >= 500 || !body });
  }
  const errors = body.errors || [];
  const codes = errors.map((e) => (e.extensions && e.extensions.code) || "");
  if (codes.some((c) => c === "UNAVAILABLE" || c === "TIMEOUT")) {
    throw new ApiError(errors[0].message, { code: codes[0], down: true, errors });
  }
  if (!body.data) {
    throw new ApiError(errors.length ? errors[0].message : L("The API answered without data.", "API 가 자료 없이 답했습니다."), { code: codes[0] || "", errors });
  }
  const details = (body.extensions && Array.isArray(body.extensions.warnings) ? body.extensions.warnings : [])
    .filter((w) => w && typeof w.message === "string" && w.message);
  const warnings = details.map((w) => w.message);
  // details: the warnings as the API gives them ({field, value, message,
  // resolved, suggestions}), for a screen that offers the suggestions.
  return { data: body.data, errors, warnings, details };
}

// ask is query that throws on any error; it returns {data, warnings}
// (extensions.warnings: filter values the API resolved or could not).
export async function ask(doc, variables) {
  const r = await query(doc, variables);
  if (r.errors.length) {
    const e = r.errors[0];
    throw new ApiError(e.message, { code: (e.extensions && e.extensions.code) || "", errors: r.errors });
  }
  return r;
}

// must is ask without the warnings.
export async function must(doc, variables) {
  return (await ask(doc, variables)).data;
}

// warningsBox lists the API's warnings about the request, if any. With
// details (the warnings' objects) and fix, each suggestion fix gives a URL
// for (fix(warning, suggestion): the same screen with the suggestion used
// instead of the value) is a link after its warning: "did you mean" that
// applies it.
export function warningsBox(warnings, details = [], fix = null) {
  if (!warnings || !warnings.length) return null;
  return h("div", { class: "warnings", role: "status" },
    h("p", {}, L("The API read the filters like this:", "API 가 필터를 이렇게 읽었습니다:")),
    h("ul", {}, warnings.map((w, i) => {
      const d = details[i];
      const links = fix && d && Array.isArray(d.suggestions)
        ? d.suggestions.map((sg) => [sg, fix(d, sg)]).filter(([, href]) => href) : [];
      return h("li", {}, h("span", { lang: "en" }, w),
        links.length ? [" ", L("Use instead: ", "대신 쓰기: "), links.map(([sg, href], j) =>
          [j ? ", " : "", h("a", { href, "data-nav": "", class: "did-you-mean" }, sg)])] : null);
    })));
}

// ---- the session ----

// The session is who is signed in, as GET /auth/session says (session/):
// {signedIn, name, role, roles, csrfToken}; anonymous until it has
// answered. The token a user signs in with is sent to /auth/session once
// and kept nowhere in the page; the session cookie is HttpOnly, so script
// never sees it either. available is false on a server without sign-in.
export const ANONYMOUS = Object.freeze({ signedIn: false, name: "", role: "none", roles: [], csrfToken: "", available: true });
export const CSRF_HEADER = "X-CSRF-Token";
export const session = { current: ANONYMOUS };

let sessionLoad = Promise.resolve();

// loadSession asks the server who is signed in.
export function loadSession() {
  sessionLoad = (async () => {
    let s = ANONYMOUS;
    try {
      const resp = await fetch("/auth/session", { headers: { Accept: "application/json" }, cache: "no-store" });
      if (resp.status === 404) s = { ...ANONYMOUS, available: false };
      else if (resp.ok) s = await resp.json();
    } catch (e) {
      /* unreachable: anonymous until the next try */
    }
    setSession(s);
  })();
  return sessionLoad;
}

// setSession records s as who is signed in, shows and hides the controls
// that need a role, and tells the page (event "ilgraph:session").
export function setSession(s) {
  session.current = Object.freeze({ ...ANONYMOUS, ...s, roles: Array.isArray(s.roles) ? s.roles.slice() : [] });
  gateAll(document);
  window.dispatchEvent(new Event("ilgraph:session"));
}

// can reports whether the signed-in principal has role (or one above it).
export const can = (role) => session.current.roles.includes(role);

// Elements marked data-needs-role="editor" (or viewer, reviewer, admin)
// show only to a principal who has that role: a write control is offered
// only to whom the server would let use it. This is a courtesy, not a
// guard: the server refuses the rest, whatever the page shows.
function gate(el) {
  el.hidden = !can(el.getAttribute("data-needs-role"));
}
function gateAll(root) {
  if (root.nodeType === 1 && root.hasAttribute("data-needs-role")) gate(root);
  if (root.querySelectorAll) for (const el of root.querySelectorAll("[data-needs-role]")) gate(el);
}
// Marked elements added or re-marked any other way (not through h) are
// gated as they appear.
new MutationObserver((records) => {
  for (const r of records) {
    if (r.type === "attributes") gateAll(r.target);
    else for (const n of r.addedNodes) gateAll(n);
  }
}).observe(document.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-needs-role"] });

// send is fetch for the server's own API. A state-changing request (any
// method but GET and HEAD) waits for the session and carries its CSRF
// token; when the server refuses it (403) and the session has changed
// meanwhile (signed in again in another tab), it is sent once more with
// the new token.
export async function send(url, init = {}) {
  const method = (init.method || "GET").toUpperCase();
  if (method === "GET" || method === "HEAD") return fetch(url, init);
  await sessionLoad;
  const attempt = () => {
    const headers = new Headers(init.headers || {});
    if (session.current.csrfToken) headers.set(CSRF_HEADER, session.current.csrfToken);
    return fetch(url, { ...init, headers, credentials: "same-origin" });
  };
  const resp = await attempt();
  if (resp.status !== 403 || !session.current.signedIn) return resp;
  const before = session.current.csrfToken;
  await loadSession();
  return session.current.csrfToken !== before ? attempt() : resp;
}

// ---- kinds ----

// KINDS are the feature kinds: url (lower case, as DrawNode.kind and topic
// URLs write them), api (the GraphQL enum), labels, and the filter
// parameter the Cases URL uses.
export const KINDS = [
  { url: "root_cause", api: "ROOT_CAUSE", en: "Root cause", ko: "원인", param: "rc", facet: "rootCauses", filter: "rootCauses", anyOnly: true, colour: "#b3261e" },
  { url: "component", api: "COMPONENT", en: "Component", ko: "구성 요소", param: "c", facet: "components", filter: "components", colour: "#1f5fa8" },
  { url: "symptom", api: "SYMPTOM", en: "Symptom", ko: "증상", param: "s", facet: "symptoms", filter: "symptoms", colour: "#7a4ab0" },
  { url: "contributing", api: "CONTRIBUTING", en: "Contributing factor", ko: "기여 요인", param: "f", facet: "contributing", filter: "contributing", colour: "#a35a00" },
  { url: "domain", api: "DOMAIN", en: "Domain", ko: "도메인", param: "d", facet: "domains", filter: "domains", colour: "#2e7d32" },
  { url: "mechanism", api: "MECHANISM", en: "Mechanism", ko: "메커니즘", param: "m", facet: "mechanisms", filter: "mechanisms", colour: "#8a1c6b" },
  { url: "org", api: "ORG", en: "Organization", ko: "조직", param: "org", facet: "orgs", filter: "orgs", anyOnly: true, colour: "#555555" },
];
export const CASE_COLOUR = "#0b6e75";
export const kindByURL = (k) => KINDS.find((x) => x.url === k);
export const kindByAPI = (k) => KINDS.find((x) => x.api === k);

// ---- language ----

export const state = { lang: "en" };

// label picks the label of a term or a kind in the current language.
export function termLabel(t) {
  if (!t) return "";
  return state.lang === "ko" && t.ko ? t.ko : t.en || t.label || t.id;
}

// text renders a bilingual text ({en, ko}) in the current language as a
// span with its lang; Korean asked for but missing shows the English,
// marked.
export function text(t, tag = "span", attrs = {}) {
  if (!t) return h(tag, attrs);
  if (state.lang === "ko" && t.ko) return h(tag, { ...attrs, lang: "ko" }, t.ko);
  if (state.lang === "ko") {
    return h(tag, { ...attrs, lang: "en", class: ((attrs.class || "") + " fallback").trim() },
      h("span", { class: "badge", title: "No Korean text: English shown" }, "EN"), " ", t.en);
  }
  return h(tag, { ...attrs, lang: "en" }, t.en);
}

// english renders a text the data has only in English (impact, term
// descriptions): marked as English when Korean is asked for.
export function english(str, tag = "span", attrs = {}) {
  return text({ en: str, ko: null }, tag, attrs);
}

// termSpan renders a term's label with the right lang attribute.
export function termSpan(t) {
  const ko = state.lang === "ko" && t && t.ko;
  return h("span", { lang: ko ? "ko" : "en" }, termLabel(t));
}

export const L = (en, ko) => (state.lang === "ko" ? ko : en);

// splitParagraphs cuts a long text at its blank lines (the case format
// writes paragraphs as "\n\n"), dropping empty ones.
export function splitParagraphs(str) {
  return String(str || "").split(/\n[ \t]*\n\s*/).map((x) => x.trim()).filter(Boolean);
}

// paragraphs renders a bilingual long text ({en, ko}: a summary, the
// symptoms, lessons, a remediation step) like text, but as one <p> per
// paragraph inside tag (a div by default): text nodes only.
export function paragraphs(t, tag = "div", attrs = {}) {
  if (!t) return h(tag, attrs);
  const ko = state.lang === "ko";
  const fallback = ko && !t.ko;
  const ps = splitParagraphs(ko && t.ko ? t.ko : t.en).map((p, i) =>
    h("p", {}, i === 0 && fallback ? [h("span", { class: "badge", title: L("No Korean text: English shown", "한국어 글이 없어 영어를 보여 줍니다") }, "EN"), " "] : null, p));
  const cls = [attrs.class, "paras", fallback ? "fallback" : null].filter(Boolean).join(" ");
  return h(tag, { ...attrs, class: cls, lang: ko && t.ko ? "ko" : "en" }, ps);
}

// Values of the case format shown as words: severity, what the date is,
// roles, the history's actions. An unknown value shows as it is.
const SEVERITY = { unknown: ["unknown", "알 수 없음"] };
export function severityLabel(v) {
  if (!v) return "";
  const m = /^sev(\d)$/.exec(v);
  if (m) return L(v, `${m[1]}등급`);
  return SEVERITY[v] ? L(...SEVERITY[v]) : v;
}
const DATE_KINDS = { incident: ["incident", "장애 발생일"], published: ["published", "보고서 게시일"], approximate: ["approximate", "추정한 날짜"] };
export const dateKindLabel = (v) => (DATE_KINDS[v] ? L(...DATE_KINDS[v]) : v || "");
const ROLES = { viewer: ["viewer", "열람자"], reviewer: ["reviewer", "검토자"], editor: ["editor", "편집자"], admin: ["admin", "관리자"], none: ["none", "없음"] };
export const roleLabel = (v) => (ROLES[v] ? L(...ROLES[v]) : v || "");
const ACTIONS = { CREATE: ["create", "생성"], UPDATE: ["update", "수정"], REVIEW: ["review", "검토"], RESTORE: ["restore", "복원"], DELETE: ["delete", "삭제"] };
export const actionLabel = (v) => (ACTIONS[v] ? L(...ACTIONS[v]) : String(v || "").toLowerCase());

// ---- URLs ----

// link returns a URL within the explorer that keeps the language.
export function link(path, params = {}) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === "" || (Array.isArray(v) && !v.length)) continue;
    u.set(k, Array.isArray(v) ? v.join(",") : String(v));
  }
  if (state.lang === "ko") u.set("lang", "ko");
  const qs = u.toString();
  return path + (qs ? "?" + qs : "");
}

export const caseLink = (id) => link("/case/" + encodeURIComponent(id));
export const topicLink = (kindURL, id) => link("/topic/" + kindURL + "/" + encodeURIComponent(id));

// a is an in-app link: the router handles the click.
export function a(href, ...children) {
  return h("a", { href, "data-nav": "" }, ...children);
}

// safeURL returns the URL when it is http(s), else null: a link from
// data never runs script or opens another scheme.
export function safeURL(u) {
  try {
    const x = new URL(u);
    return x.protocol === "http:" || x.protocol === "https:" ? x.href : null;
  } catch (e) {
    return null;
  }
}

export const DATE = /^\d{4}-\d{2}-\d{2}$/;
export function validDate(d) {
  if (!DATE.test(d)) return false;
  const t = new Date(d + "T00:00:00Z");
  return !isNaN(t) && t.toISOString().slice(0, 10) === d;
}
// A term or organization id in a URL: anything short without commas or
// colons (unknown ids simply match nothing).
export const validID = (x) => typeof x === "string" && x.length > 0 && x.length <= 120 && !/[,:\s]/.test(x);
export const CASE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,40}$/;

// ---- the vocabulary (labels for chips and pickers), read once ----

let vocabPromise = null;
export function vocabulary() {
  if (!vocabPromise) {
    vocabPromise = must(`query Vocabulary { vocabulary { kind id en ko caseCount } }`).then((d) => {
      const byKey = new Map();
      for (const t of d.vocabulary) byKey.set(t.kind + ":" + t.id, t);
      return { terms: d.vocabulary, byKey };
    });
    vocabPromise.catch(() => (vocabPromise = null));
  }
  return vocabPromise;
}

export function fmtNumber(n) {
  return new Intl.NumberFormat(state.lang === "ko" ? "ko-KR" : "en-GB").format(n);
}

// UNITS are the duration units the case format writes ("16h 12m"), in
// Korean.
const UNITS = { w: "주", d: "일", h: "시간", m: "분", s: "초" };

export function fmtMinutes(m) {
  if (m === null || m === undefined) return "–";
  if (m < 60) return fmtDuration(m + "m");
  const hours = Math.floor(m / 60);
  if (hours < 48) return fmtDuration(hours + "h " + (m % 60) + "m");
  return fmtDuration(Math.round(hours / 24) + "d");
}

// fmtDuration shows a duration as the case format writes it ("2h 5m") in
// the current language ("2시간 5분"); anything else is left as it is.
export function fmtDuration(str) {
  if (str === null || str === undefined || str === "") return "–";
  if (state.lang !== "ko" || !/^\s*(\d+(\.\d+)?\s*[wdhms]\s*)+$/.test(str)) return String(str);
  return String(str).trim().replace(/(\d+(?:\.\d+)?)\s*([wdhms])\s*/g, (_, n, u) => n + UNITS[u] + " ").trim();
}

// NotFound makes the router show its "not found" view.
export class NotFound extends Error {}

// go navigates within the app: push (or replace) the URL and render it.
export function go(url, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  window.dispatchEvent(new Event("ilgraph:navigate"));
}
