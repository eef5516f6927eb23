// The case page's edit form (editors): every field of the case in both
// languages, built from the case's JSON as loaded (Case.json), sent whole
// with updateCase and the version read. The server validates it as
// `ilgraph load --strict` does; its INVALID problems are shown next to the
// fields they name, a CONFLICT (the case moved on) offers to reload.
import { h, fill, query, must, L, vocabulary, termLabel, ApiError, actionLabel } from "./lib.js";

// The case format's fields (docs/case-format.md), as the form groups them.
const TEXTS = [["title", "Title", "제목"], ["summary", "Summary", "요약"], ["trigger", "Trigger", "촉발"], ["detection", "Detection", "감지"],
  ["symptoms_text", "Symptoms", "증상"], ["lessons", "Lessons", "교훈"]];
const LISTS = [["remediation", "Remediation", "조치"], ["action_items", "Action items", "후속 조치"]];
const SCALARS = [["org", "Organization", "조직"], ["org_slug", "Organization id", "조직 id"], ["date", "Date", "날짜"], ["date_kind", "Date kind", "날짜 종류"],
  ["severity", "Severity", "심각도"], ["url", "URL", "URL"], ["impact.scope", "Impact scope", "영향 범위"], ["impact.users", "Users affected", "영향 사용자"],
  ["impact.region", "Region", "지역"], ["timeline.detected_after", "Detected after", "감지까지"], ["timeline.resolved_after", "Resolved after", "복구까지"],
  ["recurrence_of", "Recurrence of (case id)", "이전 재발 사례 (사례 id)"]];
const REQUIRED = new Set(["org", "org_slug", "date"]);
// Tag fields: the JSON field and the vocabulary kind.
const TAGS = [["root_cause", "root_cause", "Root cause", "원인"], ["components", "component", "Components", "구성 요소"], ["symptoms", "symptom", "Symptoms", "증상"],
  ["contributing", "contributing", "Contributing factors", "기여 요인"], ["domain", "domain", "Domains", "도메인"], ["mechanisms", "mechanism", "Mechanisms", "메커니즘"]];

// flash is the outcome of the last save, shown once by the page it
// re-renders.
let flash = null;

// takeFlash returns (and forgets) the message of the last save of case id.
export function takeFlash(id) {
  const f = flash && flash.id === id ? flash : null;
  flash = null;
  return f ? h("p", { class: "saved", role: "status", id: "edit-saved" }, f.text) : null;
}

const get = (o, path) => path.split(".").reduce((x, k) => (x && typeof x === "object" ? x[k] : undefined), o);
function set(o, path, v) {
  const keys = path.split(".");
  let x = o;
  for (const k of keys.slice(0, -1)) {
    if (!x[k] || typeof x[k] !== "object") x[k] = {};
    x = x[k];
  }
  const last = keys[keys.length - 1];
  if (v === null) delete x[last];
  else x[last] = v;
}
const slug = (f) => "edit-" + f.replace(/[^a-z0-9]+/gi, "-");

// editForm is the form for case id at version, its history listed; it
// reads the JSON and the vocabulary when opened.
export function editForm(id, version, history) {
  const body = h("div", {}, L("Loading…", "불러오는 중…"));
  const details = h("details", { class: "field edit", id: "edit", "data-needs-role": "editor" },
    h("summary", {}, L("Edit this case", "이 사례 고치기"), " ", h("span", { class: "meta" }, L(`(version ${version})`, `(버전 ${version})`))),
    body);
  details.addEventListener("toggle", async () => {
    if (!details.open || details.dataset.loaded) return;
    details.dataset.loaded = "1";
    try {
      const [d, vocab] = await Promise.all([must(`query CaseJSON($id: ID!) { case(id: $id) { json version } }`, { id }), vocabulary()]);
      fill(body, build(id, d.case.version, JSON.parse(d.case.json), vocab, history));
    } catch (e) {
      delete details.dataset.loaded;
      fill(body, h("p", { role: "alert", class: "problem" }, e.message));
    }
  });
  return details;
}

function build(id, version, original, vocab, history) {
  const fields = []; // [{field, read(json)}]
  const area = (name, value, rows) => h("textarea", { id: slug(name), name, rows: String(rows), lang: name.endsWith(".ko") ? "ko" : "en" }, value || "");

  const texts = TEXTS.map(([f, en, ko]) => {
    const t = original[f] || {};
    fields.push({ field: f, read: (j) => {
      const enV = form.elements[f + ".en"].value.trim();
      const koV = form.elements[f + ".ko"].value.trim();
      if (!enV && !koV && !original[f]) return; // absent or null: left so
      j[f] = koV ? { ...(original[f] || {}), en: enV, ko: koV } : { ...(original[f] || {}), en: enV };
      if (!koV) delete j[f].ko;
    } });
    return h("fieldset", { class: "edit-text", "data-field": f }, h("legend", {}, L(en, ko)),
      h("div", { class: "edit-pair" },
        h("div", { "data-field": f + ".en" }, h("label", { for: slug(f + ".en") }, "English"), area(f + ".en", t.en, f === "title" ? 3 : 4)),
        h("div", { "data-field": f + ".ko" }, h("label", { for: slug(f + ".ko"), lang: "ko" }, "한국어"), area(f + ".ko", t.ko, f === "title" ? 3 : 4))));
  });

  const lists = LISTS.map(([f, en, ko]) => {
    const items = Array.isArray(original[f]) ? original[f] : [];
    fields.push({ field: f, read: (j) => {
      const ens = form.elements[f + ".en"].value.split("\n").map((x) => x.trim());
      const kos = form.elements[f + ".ko"].value.split("\n").map((x) => x.trim());
      while (ens.length && !ens[ens.length - 1]) ens.pop();
      while (kos.length && !kos[kos.length - 1]) kos.pop();
      const n = Math.max(ens.length, kos.length);
      if (!n && !(Array.isArray(original[f]) && original[f].length)) return;
      j[f] = Array.from({ length: n }, (_, i) => {
        const text = { en: ens[i] || "" };
        if (kos[i]) text.ko = kos[i];
        return { ...(items[i] || {}), text };
      });
    } });
    return h("fieldset", { class: "edit-text", "data-field": f }, h("legend", {}, L(en, ko), " ", h("span", { class: "help" }, L("(one item a line; the lines pair up)", "(한 줄에 하나씩, 같은 줄끼리 짝)"))),
      h("div", { class: "edit-pair" },
        h("div", {}, h("label", { for: slug(f + ".en") }, "English"), area(f + ".en", items.map((x) => (x.text && x.text.en) || "").join("\n"), 3)),
        h("div", {}, h("label", { for: slug(f + ".ko"), lang: "ko" }, "한국어"), area(f + ".ko", items.map((x) => (x.text && x.text.ko) || "").join("\n"), 3))));
  });

  const scalars = SCALARS.map(([f, en, ko]) => {
    const v = get(original, f);
    fields.push({ field: f, read: (j) => {
      const x = form.elements[f].value.trim();
      if (x) set(j, f, x);
      // Emptied: a required field is sent empty (for the server to say
      // so), an optional one left out; one empty already stays as it was.
      else if (get(original, f)) set(j, f, REQUIRED.has(f) ? "" : null);
    } });
    return h("div", { class: "edit-scalar", "data-field": f },
      h("label", { for: slug(f) }, L(en, ko)),
      h("input", { type: "text", id: slug(f), name: f, value: v === null || v === undefined ? "" : String(v) }));
  });

  // Tags: the chosen terms as removable chips, and a typeahead over the
  // vocabulary's terms of the kind.
  const tags = TAGS.map(([f, kind, en, ko]) => {
    const single = f === "root_cause";
    let chosen = single ? (original[f] ? [original[f]] : []) : (Array.isArray(original[f]) ? original[f].slice() : []);
    const terms = vocab.terms.filter((t) => t.kind.toLowerCase() === kind);
    const label = (tid) => { const t = vocab.byKey.get(kind.toUpperCase() + ":" + tid) || terms.find((x) => x.id === tid); return t ? termLabel(t) : tid; };
    const chips = h("ul", { class: "edit-tags" });
    const draw = () => fill(chips, chosen.map((tid, i) => h("li", {}, h("span", { class: "chip" }, label(tid), " ", h("span", { class: "case-id" }, tid)), " ",
      h("button", { type: "button", class: "link", "aria-label": L(`Remove ${label(tid)}`, `${label(tid)} 빼기`), onclick: () => { chosen.splice(i, 1); draw(); } }, "×"))));
    draw();
    const listId = slug(f) + "-terms";
    const input = h("input", { type: "text", id: slug(f), list: listId, autocomplete: "off", placeholder: L("type to find a term", "용어를 입력해 찾기") });
    const add = () => {
      const v = input.value.trim();
      const t = terms.find((x) => x.id === v) || terms.find((x) => termLabel(x).toLowerCase() === v.toLowerCase() || x.en.toLowerCase() === v.toLowerCase() || (x.ko && x.ko === v));
      const tid = t ? t.id : v;
      if (!tid) return;
      if (single) chosen = [tid];
      else if (!chosen.includes(tid)) chosen.push(tid);
      input.value = "";
      draw();
    };
    input.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); add(); } });
    fields.push({ field: f, read: (j) => {
      if (single) j[f] = chosen[0] || "";
      else if (chosen.length || f in original) j[f] = chosen.slice();
    } });
    return h("div", { class: "edit-tagkind", "data-field": f },
      h("label", { for: slug(f) }, L(en, ko)), chips,
      h("div", { class: "edit-add" }, input,
        h("datalist", { id: listId }, terms.map((t) => h("option", { value: t.id }, termLabel(t)))),
        h("button", { type: "button", onclick: add }, single ? L("Set", "지정") : L("Add", "추가"))));
  });

  const related = (() => {
    const f = "related";
    fields.push({ field: f, read: (j) => {
      const ids = form.elements[f].value.split(/[\s,]+/).filter(Boolean);
      if (ids.length || (Array.isArray(original[f]) && original[f].length)) j[f] = ids;
    } });
    return h("div", { class: "edit-scalar", "data-field": f }, h("label", { for: slug(f) }, L("Related cases (ids, comma-separated)", "관련 사례 (id, 쉼표로 구분)")),
      h("input", { type: "text", id: slug(f), name: f, value: (original[f] || []).join(", ") }));
  })();

  const status = h("div", { class: "edit-status", id: "edit-status", "aria-live": "polite" });
  const save = h("button", { type: "submit", id: "edit-save" }, L("Save", "저장"));
  const form = h("form", { class: "edit-form", id: "edit-form", novalidate: true, onsubmit: async (ev) => {
    ev.preventDefault();
    clearProblems(form);
    fill(status);
    const j = JSON.parse(JSON.stringify(original));
    for (const x of fields) x.read(j);
    save.disabled = true;
    try {
      const r = await query(`mutation Update($id: ID!, $version: Int!, $json: String!) {
        updateCase(id: $id, version: $version, json: $json) { revision { version action by at } } }`, { id, version, json: JSON.stringify(j) });
      if (r.errors.length) throw new ApiError(r.errors[0].message, { code: (r.errors[0].extensions || {}).code || "", errors: r.errors });
      const rev = r.data.updateCase.revision;
      flash = { id, text: L(`Saved as version ${rev.version}: ${rev.action.toLowerCase()} by ${rev.by} at ${rev.at}.`, `버전 ${rev.version}로 저장했습니다: ${rev.by}의 ${actionLabel(rev.action)}, ${rev.at}.`) };
      window.dispatchEvent(new Event("ilgraph:navigate"));
    } catch (e) {
      save.disabled = false;
      showFailure(form, status, e);
    }
  } },
  h("p", { class: "help" }, L("Every field as the case format has it (docs/case-format.md). The server checks the case as a load would; problems show next to their fields.",
    "사례 형식 그대로의 모든 항목입니다. 서버가 적재할 때처럼 검사하고, 문제는 해당 항목 옆에 표시됩니다.")),
  texts, lists, h("fieldset", {}, h("legend", {}, L("Tags", "태그")), tags),
  h("fieldset", { class: "edit-scalars" }, h("legend", {}, L("Facts", "정보")), scalars, related),
  status, save);

  return [form, historyList(history)];
}

function historyList(history) {
  if (!history || !history.length) return null;
  return h("section", { class: "history", "aria-labelledby": "h-history" }, h("h3", { id: "h-history" }, L("History", "이력")),
    h("ol", { id: "history" }, history.map((x) => h("li", {}, L(`version ${x.version}: ${actionLabel(x.action)} by ${x.by}`, `버전 ${x.version}: ${x.by}의 ${actionLabel(x.action)}`),
      " ", h("time", { datetime: x.at }, x.at), x.restoredFrom ? L(` (restored from version ${x.restoredFrom})`, ` (버전 ${x.restoredFrom} 복원)`) : ""))));
}

function clearProblems(form) {
  for (const p of form.querySelectorAll(".problem")) p.remove();
  for (const el of form.querySelectorAll("[aria-invalid]")) { el.removeAttribute("aria-invalid"); el.removeAttribute("aria-describedby"); }
}

// holder finds the element of the form a problem's field names: the field
// itself, else the nearest enclosing one (components[2] → components,
// remediation[1].text.en → remediation), else the form's status.
function holder(form, field) {
  let f = field || "";
  const seen = new Set();
  while (f && !seen.has(f)) {
    seen.add(f);
    const el = form.querySelector(`[data-field="${CSS.escape(f)}"]`);
    if (el) return el;
    const noIndex = f.replace(/\[\d+\]/g, "");
    if (noIndex !== f) { f = noIndex; continue; }
    const cut = Math.max(f.lastIndexOf("."), f.lastIndexOf("["));
    f = cut > 0 ? f.slice(0, cut) : "";
  }
  return null;
}

let problemSeq = 0;
function showFailure(form, status, e) {
  const err = e instanceof ApiError && e.errors && e.errors[0] ? e.errors[0] : null;
  const code = e.code || (err && err.extensions && err.extensions.code) || "";
  if (code === "CONFLICT") {
    fill(status, h("div", { class: "problem", role: "alert", id: "edit-conflict" },
      h("p", {}, L("This case was changed by someone else since you opened it; nothing was saved. Reload to see the case as it is now, then make your change again.",
        "이 사례를 연 뒤 다른 사람이 바꾸었습니다. 저장하지 않았습니다. 다시 불러와 지금의 사례를 보고 다시 고치세요.")),
      h("button", { type: "button", onclick: () => window.dispatchEvent(new Event("ilgraph:navigate")) }, L("Reload the case", "사례 다시 불러오기"))));
    return;
  }
  const problems = (err && err.extensions && Array.isArray(err.extensions.problems)) ? err.extensions.problems : [];
  if (code !== "INVALID" || !problems.length) {
    fill(status, h("p", { class: "problem", role: "alert" }, e.message || String(e)));
    return;
  }
  const unplaced = [];
  for (const p of problems) {
    const el = holder(form, p.field);
    const msg = h("p", { class: "problem", id: "problem-" + (++problemSeq), "data-problem-field": p.field || "" },
      h("strong", {}, p.field || L("case", "사례")), ": ", p.message, p.rule ? [" ", h("span", { class: "case-id" }, `(${p.rule})`)] : null);
    if (!el) { unplaced.push(msg); continue; }
    el.append(msg);
    const ctl = el.matches("input, textarea") ? el : el.querySelector("input, textarea");
    if (ctl) { ctl.setAttribute("aria-invalid", "true"); ctl.setAttribute("aria-describedby", msg.id); }
  }
  fill(status, h("div", { class: "problem", role: "alert", id: "edit-problems" },
    h("p", {}, L(`The server refused the change (${problems.length} problem${problems.length === 1 ? "" : "s"}, shown next to their fields); nothing was saved.`,
      `서버가 변경을 거부했습니다 (문제 ${problems.length}개, 각 항목 옆에 표시). 저장하지 않았습니다.`)), unplaced));
  const first = form.querySelector("[aria-invalid]");
  if (first) first.focus();
}
