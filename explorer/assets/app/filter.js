// The case selection both the Cases and the Graph screens use, as URL
// parameters: q (text), tm (any, phrase: how its words combine; all by
// default), tf (titles: where it is searched; titles and summaries by
// default), rc, c, s, f, d, org (comma-separated term ids), cm, sm, fm, dm
// ("all" for all-of; any-of otherwise), from, to (dates).
import { h, KINDS, termLabel, L, validDate, validID, go, link } from "./lib.js";

export function parseFilter(params, bad) {
  const f = { q: "", tm: "", tf: "", terms: {}, mode: {}, from: "", to: "" };
  const q = params.get("q");
  if (q !== null) {
    // The notice names what was wrong in words, not just the parameter.
    if (q.length > 500) {
      bad.push(L(`the search (q) was longer than 500 characters (${q.length}) and was left out`,
        `검색어 (q) 가 500자보다 길어서 (${q.length}자) 뺐습니다`));
    } else f.q = q;
  }
  const tm = params.get("tm"), tf = params.get("tf");
  if (tm !== null && tm !== "any" && tm !== "phrase" && tm !== "all") bad.push("tm");
  else if (tm === "any" || tm === "phrase") f.tm = tm;
  if (tf !== null && tf !== "titles" && tf !== "all") bad.push("tf");
  else if (tf === "titles") f.tf = tf;
  for (const k of KINDS) {
    const raw = params.get(k.param);
    f.terms[k.param] = [];
    if (raw) {
      const ids = raw.split(",").filter((x) => x !== "");
      if (ids.length > 50 || !ids.every(validID)) bad.push(k.param);
      else f.terms[k.param] = [...new Set(ids)];
    }
    if (!k.anyOnly) {
      const m = params.get(k.param + "m");
      if (m !== null && m !== "all" && m !== "any") bad.push(k.param + "m");
      f.mode[k.param] = m === "all" ? "all" : "any";
    }
  }
  for (const d of ["from", "to"]) {
    const v = params.get(d);
    if (v !== null && v !== "") {
      if (validDate(v)) f[d] = v;
      else bad.push(d);
    }
  }
  if (f.from && f.to && f.from > f.to) {
    bad.push("from", "to");
    f.from = f.to = "";
  }
  return f;
}

// filterParams turns a selection back into URL parameters.
export function filterParams(f) {
  const p = {};
  if (f.q) {
    p.q = f.q;
    if (f.tm) p.tm = f.tm;
    if (f.tf) p.tf = f.tf;
  }
  for (const k of KINDS) {
    if (f.terms[k.param] && f.terms[k.param].length) p[k.param] = f.terms[k.param];
    if (!k.anyOnly && f.mode[k.param] === "all" && f.terms[k.param].length) p[k.param + "m"] = "all";
  }
  if (f.from) p.from = f.from;
  if (f.to) p.to = f.to;
  return p;
}

// apiFilter turns a selection into the API's CaseFilter.
export function apiFilter(f) {
  const out = {};
  if (f.q.trim()) {
    out.text = f.q.trim();
    if (f.tm) out.textMode = f.tm.toUpperCase();
    if (f.tf) out.textFields = f.tf.toUpperCase();
  }
  for (const k of KINDS) {
    const ids = f.terms[k.param];
    if (!ids || !ids.length) continue;
    if (k.anyOnly) out[k.filter] = ids;
    else out[k.filter] = f.mode[k.param] === "all" ? { allOf: ids } : { anyOf: ids };
  }
  if (f.from) out.dateFrom = f.from;
  if (f.to) out.dateTo = f.to;
  return out;
}

export const isEmpty = (f) => !f.q && !f.from && !f.to && KINDS.every((k) => !f.terms[k.param].length);

export function clone(f) {
  return { q: f.q, tm: f.tm, tf: f.tf, from: f.from, to: f.to, mode: { ...f.mode }, terms: Object.fromEntries(Object.entries(f.terms).map(([k, v]) => [k, [...v]])) };
}

// chips lists the applied filters as removable chips, with "clear all".
// path and extra are the URL to navigate to (extra: the screen's other
// parameters).
export function chips(f, vocab, path, extra = {}) {
  const items = [];
  const nav = (nf) => go(link(path, { ...extra, ...filterParams(nf) }));
  const chip = (label, value, lang, remove) =>
    h("li", { class: "chip" },
      // A value in no known language (the words searched, a date) is the
      // user's, shown as typed: translate="no".
      h("span", { class: "chip-kind" }, label + ": "), h("span", { lang, translate: lang ? null : "no" }, value),
      h("button", { type: "button", class: "chip-x", "aria-label": L(`Remove ${label}: ${value}`, `${label}: ${value} 빼기`), onclick: remove }, "×"));
  const how = [f.tm === "any" ? L("any word", "단어 하나라도") : f.tm === "phrase" ? L("phrase", "구절") : "", f.tf === "titles" ? L("titles", "제목") : ""].filter(Boolean);
  if (f.q) items.push(chip(L("Text", "검색어") + (how.length ? ` (${how.join(", ")})` : ""), f.q, undefined, () => { const n = clone(f); n.q = ""; n.tm = ""; n.tf = ""; nav(n); }));
  for (const k of KINDS) {
    for (const id of f.terms[k.param]) {
      const t = vocab.byKey.get(k.api + ":" + id) || { id, en: id };
      const mode = !k.anyOnly && f.terms[k.param].length > 1 ? (f.mode[k.param] === "all" ? L(" (all of)", " (모두)") : L(" (any of)", " (하나라도)")) : "";
      items.push(chip(L(k.en, k.ko) + mode, termLabel(t), L("en", t.ko ? "ko" : "en"), () => {
        const n = clone(f);
        n.terms[k.param] = n.terms[k.param].filter((x) => x !== id);
        nav(n);
      }));
    }
  }
  if (f.from) items.push(chip(L("From", "부터"), f.from, undefined, () => { const n = clone(f); n.from = ""; nav(n); }));
  if (f.to) items.push(chip(L("To", "까지"), f.to, undefined, () => { const n = clone(f); n.to = ""; nav(n); }));
  if (!items.length) return h("p", { class: "chips-none" }, L("No filters: every case.", "필터 없음: 모든 사례."));
  return h("div", { class: "chips" },
    h("h2", { class: "visually-hidden" }, L("Applied filters", "적용된 필터")),
    h("ul", { "aria-label": L("Applied filters", "적용된 필터") }, items),
    h("button", { type: "button", class: "link", onclick: () => go(link(path, extra)) }, L("Clear all", "모두 풀기")));
}
