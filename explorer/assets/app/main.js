// The router: the URL is the whole state. Every screen renders from
// location alone; in-app links and forms push a new URL, back and forward
// re-render from the URL they restore.
import { h, state, ApiError, NotFound, go, link, L } from "./lib.js";
import * as cases from "./cases.js";
import * as graph from "./graph.js";
import * as casePage from "./case.js";
import * as topic from "./topic.js";
import * as live from "./live.js";
import * as dashboard from "./dashboard.js";
import * as review from "./review.js";
import * as account from "./account.js";

const routes = [
  // Cases is the home page: /cases belongs to the JSON API on the same
  // server.
  { re: /^\/$/, screen: "cases", mod: cases },
  { re: /^\/graph$/, screen: "graph", mod: graph },
  { re: /^\/case\/([^/]+)$/, screen: "case", mod: casePage },
  { re: /^\/topic\/([^/]+)\/([^/]+)$/, screen: "topic", mod: topic },
  { re: /^\/live$/, screen: "live", mod: live },
  { re: /^\/dashboard$/, screen: "dashboard", mod: dashboard },
  { re: /^\/review$/, screen: "review", mod: review },
];

const main = document.getElementById("main");
const noticeEl = document.getElementById("notice");
let generation = 0;
let retryTimer = null;
let current = null; // the module of the screen shown

window.addEventListener("ilgraph:navigate", () => render());

// Each state change leaves a User Timing mark ("ilgraph:loading",
// "ilgraph:ready", …): how long a screen took to become usable shows in the
// browser's performance panel, and the scale benchmark reads it
// (explorer/scale_test.go).
function setState(s) {
  document.body.dataset.state = s;
  performance.mark("ilgraph:" + s);
}

function showNotice(msg) {
  noticeEl.replaceChildren();
  if (msg) noticeEl.append(h("p", { class: "notice" }, msg, " ", h("button", { type: "button", class: "link", onclick: () => showNotice("") }, L("Dismiss", "닫기"))));
}

async function render({ focus = true } = {}) {
  const gen = ++generation;
  clearTimeout(retryTimer);
  const url = new URL(location.href);
  const params = url.searchParams;
  // The language first: every screen renders in it.
  const lang = params.get("lang");
  const bad = [];
  if (lang !== null && lang !== "ko" && lang !== "en") bad.push("lang");
  state.lang = lang === "ko" ? "ko" : "en";
  document.documentElement.lang = state.lang;
  const toggle = document.getElementById("lang-toggle");
  // The button names the language it switches to, in that language.
  toggle.textContent = state.lang === "ko" ? "English" : "한국어";
  toggle.setAttribute("lang", state.lang === "ko" ? "en" : "ko");
  toggle.title = state.lang === "ko" ? "Show English text" : "Show Korean text where cases have it";
  translateChrome();
  account.render();
  let path = url.pathname;
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  let route = null, m = null;
  for (const r of routes) {
    if ((m = path.match(r.re))) {
      route = r;
      break;
    }
  }
  for (const a of document.querySelectorAll("header nav a")) {
    if (route && a.dataset.screen === route.screen) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
    a.href = link(a.dataset.path);
  }
  document.querySelector("header .brand").href = link("/");
  setState("loading");
  showNotice("");
  // The focused control, to focus again after the render when the new
  // screen has it (a facet checkbox toggled with the keyboard, say).
  const keepFocus = document.activeElement && document.activeElement !== document.body ? document.activeElement.id : "";
  if (current && current.leave && current !== (route && route.mod)) current.leave();
  current = route ? route.mod : null;
  const alive = () => gen === generation;
  const ctx = {
    main, params, alive,
    args: m ? m.slice(1).map((x) => { try { return decodeURIComponent(x); } catch (e) { return x; } }) : [],
    // clean reports URL settings the screen could not use: the URL is
    // replaced by the cleaned one, and a notice says what was left out.
    clean(cleanURL, dropped) {
      if (!dropped.length) return;
      history.replaceState(null, "", cleanURL);
      showNotice(L("This link had settings that could not be used, so the default view is shown without them: ", "링크의 일부 설정을 쓸 수 없어 빼고 기본 보기를 보여 줍니다: ") + dropped.join(", "));
    },
  };
  if (bad.length) {
    params.delete("lang");
    ctx.clean(url.pathname + (params.toString() ? "?" + params : ""), bad);
  }
  try {
    if (!route) throw new NotFound(L("There is no page at ", "이 주소에는 페이지가 없습니다: ") + path);
    main.setAttribute("aria-busy", "true");
    await route.mod.render(ctx);
    if (!alive()) return;
    main.removeAttribute("aria-busy");
    setState("ready");
  } catch (e) {
    if (!alive()) return;
    main.removeAttribute("aria-busy");
    if (e instanceof NotFound) {
      document.title = L("Not found", "찾을 수 없음") + " · ilgraph";
      main.replaceChildren(h("section", { class: "notfound" },
        h("h1", {}, L("Not found", "찾을 수 없습니다")), h("p", {}, e.message),
        h("p", {}, h("a", { href: link("/"), "data-nav": "" }, L("Back to the cases", "사례 목록으로")))));
      setState("notfound");
    } else {
      showError(e, gen);
    }
  }
  if (!alive()) return;
  const again = keepFocus && document.getElementById(keepFocus);
  if (again && again !== document.activeElement) again.focus({ preventScroll: true });
  // After a link (a nav link stays; one in the old screen is gone, which
  // leaves the focus on the body), the new screen's heading.
  else if (focus && (document.activeElement === document.body || document.activeElement.matches("header nav a[data-nav], header .brand"))) focusHeading();
}

// focusHeading moves the focus to the new screen's heading after a route
// change, so that a screen reader reads where it landed; the heading is
// not a control, so it takes the focus (tabindex=-1) without the focus
// ring, which would frame it like an error (app.css).
function focusHeading() {
  const h1 = main.querySelector("h1");
  const target = h1 || main;
  if (h1 && !h1.hasAttribute("tabindex")) h1.setAttribute("tabindex", "-1");
  target.focus({ preventScroll: true });
}

// CHROME are the page's fixed labels outside the screens (index.html, in
// English for a browser without script): [selector, attribute or text,
// English, Korean].
const CHROME = [
  ['header nav a[data-screen="cases"]', "text", "Cases", "사례"],
  ['header nav a[data-screen="graph"]', "text", "Graph", "그래프"],
  ['header nav a[data-screen="live"]', "text", "Live incident", "진행 중인 장애"],
  ['header nav a[data-screen="dashboard"]', "text", "Dashboard", "대시보드"],
  ['header nav a[data-screen="review"]', "text", "Review", "검토"],
  ["header nav", "aria-label", "Screens", "화면"],
  ["a.skip", "text", "Skip to content", "본문으로 건너뛰기"],
];

// translateChrome writes the header's labels in the current language.
function translateChrome() {
  for (const [sel, where, en, ko] of CHROME) {
    const el = document.querySelector(sel);
    if (!el) continue;
    if (where === "text") el.textContent = L(en, ko);
    else el.setAttribute(where, L(en, ko));
  }
}

let attempts = 0;
function showError(e, gen) {
  console.warn("explorer:", e);
  const down = e instanceof ApiError ? e.down : false;
  const wait = down ? Math.min(30, 2 ** Math.min(attempts + 1, 5)) : 0;
  attempts = down ? attempts + 1 : 0;
  const retry = () => render({ focus: false });
  const msg = h("p", {}, e.message || String(e));
  // A server that keeps its cases private answers UNAUTHORIZED until one
  // signs in.
  const signIn = e instanceof ApiError && e.code === "UNAUTHORIZED" && document.getElementById("sign-in")
    ? h("p", {}, L("Sign in with a token to see this (the Sign in button at the top).", "보려면 토큰으로 로그인하세요 (위쪽의 로그인 버튼)."))
    : null;
  const box = h("section", { class: "error", role: "alert" },
    h("h1", {}, down ? L("The API is not answering", "API 가 응답하지 않습니다") : L("Something went wrong", "문제가 생겼습니다")),
    msg,
    signIn,
    down ? h("p", { class: "countdown" }, L(`Retrying in ${wait} s…`, `${wait}초 뒤 다시 시도합니다…`)) : null,
    h("p", {}, h("button", { type: "button", onclick: retry }, L("Retry now", "지금 다시 시도"))));
  main.replaceChildren(box);
  setState("error");
  if (down) {
    let left = wait;
    const tick = () => {
      if (gen !== generation) return;
      left--;
      if (left <= 0) return retry();
      const c = box.querySelector(".countdown");
      if (c) c.textContent = L(`Retrying in ${left} s…`, `${left}초 뒤 다시 시도합니다…`);
      retryTimer = setTimeout(tick, 1000);
    };
    retryTimer = setTimeout(tick, 1000);
  }
}

// A successful render resets the back-off.
new MutationObserver(() => {
  if (document.body.dataset.state === "ready") attempts = 0;
}).observe(document.body, { attributes: true, attributeFilter: ["data-state"] });

document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest("a[data-nav]");
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  // getAttribute: an SVG <a> (a dashboard bar) has no string href.
  const u = new URL(a.getAttribute("href"), location.href);
  if (u.origin !== location.origin) return;
  ev.preventDefault();
  go(u.pathname + u.search + u.hash);
  window.scrollTo(0, 0);
});

document.getElementById("lang-toggle").addEventListener("click", () => {
  const u = new URL(location.href);
  if (state.lang === "ko") u.searchParams.delete("lang");
  else u.searchParams.set("lang", "ko");
  go(u.pathname + u.search, { replace: false });
});

window.addEventListener("popstate", () => render());
account.start();
render();
