// Review: the machine-tagged cases waiting for a person (reviewQueue),
// newest first, a page at a time. For each case, every suggested tag with
// the machine's confidence and the suggestion engine's evidence, and a
// decision — accept, reject, or replace with another term of the kind —
// then tags to add, and "mark reviewed" (reviewCase, with the version
// read). The server's problems show next to the decision they name.
import { h, fill, query, must, L, link, caseLink, text, termSpan, termLabel, vocabulary, kindByAPI, ApiError, validID } from "./lib.js";

const PAGE = 10;
const TERM = "{ kind id en ko }";
const QUEUE = `query ReviewQueue($first: Int, $after: String) {
  reviewQueue(first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes {
      case { id version date title { en ko } organization ${TERM} }
      suggested { kind term ${TERM} confidence evidence { source text phrase case { id } weight } }
    }
  }
}`;

// flash is the outcome of the last review, shown once.
let flash = null;

export async function render(ctx) {
  document.title = L("Review", "검토") + " · ilgraph";
  const bad = [];
  let after = ctx.params.get("after");
  if (after !== null && (!after || after.length > 200)) {
    bad.push("after");
    after = null;
  }
  ctx.clean(link("/review", { after }), bad);
  let d;
  try {
    [d] = await Promise.all([must(QUEUE, { first: PAGE, after }), vocabulary()]);
  } catch (e) {
    // A cursor past the end (the queue got shorter): the first page.
    if (after && e instanceof ApiError && e.code === "INVALID") {
      ctx.clean(link("/review"), ["after"]);
      d = await must(QUEUE, { first: PAGE, after: null });
    } else throw e;
  }
  if (!ctx.alive()) return;
  const vocab = await vocabulary();
  const q = d.reviewQueue;
  const done = flash;
  flash = null;
  fill(ctx.main,
    h("h1", {}, L("Review", "검토"), " ", h("span", { class: "count" }, L(`(${q.totalCount} waiting)`, `(${q.totalCount}건 대기)`))),
    h("p", { class: "help" }, L("Cases the importer tagged that nobody has reviewed yet, newest first. Decide on every suggested tag, add what is missing, then mark the case reviewed.",
      "가져오기가 태그를 붙였지만 아직 아무도 검토하지 않은 사례입니다 (최신순). 제안된 태그마다 결정하고, 빠진 태그를 더한 뒤 검토 완료로 표시하세요.")),
    done ? h("p", { class: "saved", role: "status", id: "review-saved" }, done) : null,
    q.nodes.length
      ? h("ol", { class: "review-queue", id: "review-queue" }, q.nodes.map((item) => h("li", { "data-case": item.case.id }, reviewItem(item, vocab))))
      : h("p", { id: "review-empty" }, L("Nothing is waiting for review.", "검토를 기다리는 사례가 없습니다.")),
    h("nav", { class: "pager", "aria-label": L("Pages", "페이지") },
      after ? h("a", { href: link("/review"), "data-nav": "" }, L("First page", "첫 페이지")) : null, " ",
      q.pageInfo.hasNextPage ? h("a", { href: link("/review", { after: q.pageInfo.endCursor }), "data-nav": "", rel: "next" }, L("Next page", "다음 페이지")) : null));
}

const kindName = (api) => { const k = kindByAPI(api); return k ? L(k.en, k.ko) : api; };
const termsOf = (vocab, api) => vocab.terms.filter((t) => t.kind === api);
// pick finds the term of kind api a typed value names: its id, or its
// label in either language.
function pick(vocab, api, v) {
  v = v.trim();
  const terms = termsOf(vocab, api);
  const t = terms.find((x) => x.id === v) || terms.find((x) => [termLabel(x), x.en, x.ko].some((l) => l && l.toLowerCase() === v.toLowerCase()));
  return t ? t.id : v;
}
// datalists are made once per kind and page.
function datalist(vocab, api) {
  const id = "terms-" + api.toLowerCase();
  if (!document.getElementById(id)) {
    document.body.append(h("datalist", { id }, termsOf(vocab, api).map((t) => h("option", { value: t.id }, termLabel(t)))));
  }
  return id;
}

function evidenceList(ev) {
  if (!ev.length) return h("span", { class: "meta" }, L("no evidence now", "현재 근거 없음"));
  const phrases = ev.filter((e) => e.source !== "case");
  const cases = ev.filter((e) => e.source === "case" && e.case);
  return h("span", { class: "evidence" },
    phrases.length ? [L("text: ", "본문: "), phrases.slice(0, 4).map((e, i) => [i ? ", " : "", h("q", { lang: "en" }, e.text || ""), e.phrase && e.phrase !== e.text ? [" → ", h("span", { lang: "en" }, e.phrase)] : null])] : null,
    phrases.length && cases.length ? " · " : null,
    cases.length ? [L("similar cases: ", "비슷한 사례: "), cases.slice(0, 4).map((e, i) => [i ? ", " : "", h("a", { href: caseLink(e.case.id), "data-nav": "" }, e.case.id)])] : null);
}

function reviewItem(item, vocab) {
  const c = item.case;
  const key = c.id.replace(/[^A-Za-z0-9_-]/g, "_");
  const rows = item.suggested.map((s, i) => {
    const name = `d-${key}-${i}`;
    const isRoot = s.kind === "ROOT_CAUSE";
    const withInput = h("input", { type: "text", id: name + "-with", list: datalist(vocab, s.kind), autocomplete: "off", hidden: true,
      "aria-label": L(`Replace ${termLabel(s.term)} with`, `${termLabel(s.term)} 대신`), placeholder: L("replacement", "바꿀 용어") });
    const radio = (value, en, ko) => h("label", { class: "inline" },
      h("input", { type: "radio", name, value, checked: value === "ACCEPT", onchange: () => { withInput.hidden = value !== "REPLACE"; if (value === "REPLACE") withInput.focus(); } }), " ", L(en, ko));
    return h("tr", { "data-decision": String(i), "data-kind": s.kind, "data-term": s.term.id },
      h("td", {}, kindName(s.kind)),
      h("th", { scope: "row" }, termSpan(s.term), " ", h("span", { class: "case-id" }, s.term.id)),
      h("td", { class: "num" }, s.confidence === null || s.confidence === undefined ? "–" : s.confidence.toFixed(2)),
      h("td", {}, evidenceList(s.evidence)),
      h("td", { class: "decide" }, h("fieldset", { class: "decision" }, h("legend", { class: "sr-only" }, L(`Decision on ${termLabel(s.term)}`, `${termLabel(s.term)} 결정`)),
        radio("ACCEPT", "Accept", "수락"), isRoot ? null : radio("REJECT", "Reject", "거절"), radio("REPLACE", "Replace", "교체"), " ", withInput)));
  });

  // Tags to add: any vocabulary kind but the root cause and the org.
  const added = [];
  const addedList = h("ul", { class: "edit-tags" });
  const drawAdded = () => fill(addedList, added.map((a, i) => h("li", { "data-add": String(i) }, h("span", { class: "chip" }, kindName(a.kind), ": ", a.term), " ",
    h("button", { type: "button", class: "link", "aria-label": L(`Remove ${a.term}`, `${a.term} 빼기`), onclick: () => { added.splice(i, 1); drawAdded(); } }, "×"))));
  const kinds = ["COMPONENT", "SYMPTOM", "CONTRIBUTING", "DOMAIN", "MECHANISM"];
  const kindSel = h("select", { id: `add-kind-${key}` }, kinds.map((k) => h("option", { value: k }, kindName(k))));
  const termIn = h("input", { type: "text", id: `add-term-${key}`, list: datalist(vocab, kinds[0]), autocomplete: "off", placeholder: L("type to find a term", "용어를 입력해 찾기") });
  kindSel.addEventListener("change", () => termIn.setAttribute("list", datalist(vocab, kindSel.value)));
  const addTag = () => {
    const t = pick(vocab, kindSel.value, termIn.value);
    if (!t || !validID(t)) return;
    if (!added.some((a) => a.kind === kindSel.value && a.term === t)) added.push({ kind: kindSel.value, term: t });
    termIn.value = "";
    drawAdded();
  };
  termIn.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); addTag(); } });

  const status = h("div", { class: "review-status", "aria-live": "polite" });
  const submit = h("button", { type: "submit", class: "mark-reviewed" }, L("Mark reviewed", "검토 완료"));
  const form = h("form", { class: "review-form", "data-needs-role": "reviewer", onsubmit: async (ev) => {
    ev.preventDefault();
    for (const p of form.querySelectorAll(".problem")) p.remove();
    fill(status);
    const decisions = item.suggested.map((s, i) => {
      const v = (form.querySelector(`input[name="d-${key}-${i}"]:checked`) || {}).value;
      const d = { kind: s.kind, term: s.term.id, decision: v || "ACCEPT" };
      if (v === "REPLACE") d.with = pick(vocab, s.kind, form.querySelector(`#d-${key}-${i}-with`).value);
      return d;
    });
    submit.disabled = true;
    try {
      const r = await query(`mutation Review($id: ID!, $version: Int!, $decisions: [TagDecisionInput!]!, $add: [TagInput!]) {
        reviewCase(id: $id, version: $version, decisions: $decisions, add: $add) { revision { version by at } } }`,
      { id: c.id, version: c.version, decisions, add: added.length ? added : null });
      if (r.errors.length) throw new ApiError(r.errors[0].message, { code: (r.errors[0].extensions || {}).code || "", errors: r.errors });
      const rev = r.data.reviewCase.revision;
      flash = L(`${c.id} reviewed: version ${rev.version}, by ${rev.by} at ${rev.at}.`, `${c.id} 검토 완료: 버전 ${rev.version}, ${rev.by}, ${rev.at}.`);
      window.dispatchEvent(new Event("ilgraph:navigate"));
    } catch (e) {
      submit.disabled = false;
      showProblems(form, status, e, c.id);
    }
  } },
  h("table", { class: "review-tags" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, L("Kind", "종류")), h("th", { scope: "col" }, L("Suggested tag", "제안 태그")),
      h("th", { scope: "col" }, L("Confidence", "확신도")), h("th", { scope: "col" }, L("Evidence", "근거")), h("th", { scope: "col" }, L("Decision", "결정")))),
    h("tbody", {}, rows)),
  h("div", { class: "review-add", "data-add-box": "" },
    h("label", { for: kindSel.id }, L("Add a tag", "태그 추가")), " ", kindSel, " ",
    h("label", { for: termIn.id, class: "sr-only" }, L("Term", "용어")), termIn, " ",
    h("button", { type: "button", onclick: addTag }, L("Add", "추가")), addedList),
  status, submit);

  return [
    h("h2", {}, h("a", { href: caseLink(c.id), "data-nav": "" }, h("span", { class: "case-id" }, c.id), " ", text(c.title))),
    h("p", { class: "meta" }, termSpan(c.organization), " · ", h("time", { datetime: c.date }, c.date), " · ", L(`version ${c.version}`, `버전 ${c.version}`)),
    form,
  ];
}

function showProblems(form, status, e, id) {
  const err = e instanceof ApiError && e.errors && e.errors[0] ? e.errors[0] : null;
  const code = e.code || "";
  if (code === "CONFLICT") {
    fill(status, h("div", { class: "problem", role: "alert" }, h("p", {}, L(`${id} changed since this page was loaded; nothing was saved.`, `이 페이지를 불러온 뒤 ${id}가 바뀌었습니다. 저장하지 않았습니다.`)), " ",
      h("button", { type: "button", onclick: () => window.dispatchEvent(new Event("ilgraph:navigate")) }, L("Reload the queue", "대기열 다시 불러오기"))));
    return;
  }
  const problems = err && err.extensions && Array.isArray(err.extensions.problems) ? err.extensions.problems : [];
  const rest = [];
  for (const p of problems) {
    const msg = h("p", { class: "problem", "data-problem-field": p.field || "" }, h("strong", {}, p.field || id), ": ", p.message, p.rule ? ` (${p.rule})` : "");
    const m = /^(decisions|add)\[(\d+)\]/.exec(p.field || "");
    const place = m && (m[1] === "decisions" ? form.querySelector(`tr[data-decision="${m[2]}"] td.decide`) : form.querySelector(`li[data-add="${m[2]}"]`));
    if (place) place.append(msg);
    else rest.push(msg);
  }
  fill(status, h("div", { class: "problem", role: "alert" },
    h("p", {}, problems.length ? L(`The server refused the review (${problems.length} problem${problems.length === 1 ? "" : "s"}); nothing was saved.`, `서버가 검토를 거부했습니다 (문제 ${problems.length}개). 저장하지 않았습니다.`) : e.message || String(e)), rest));
}
