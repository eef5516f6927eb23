// Case: every field in the chosen language, its tags (topic links),
// timeline, sources, related cases and recurrences, the cases with the same
// root cause (with reasons) and the most similar cases (a bar per case:
// each shared feature's share of the score; weights adjustable).
import { h, fill, query, must, english, ApiError, session, KINDS, kindByAPI, L, state, text, termSpan, termLabel, link, go, caseLink, topicLink, safeURL, NotFound, CASE_ID, fmtMinutes, fmtDuration, paragraphs, severityLabel, dateKindLabel } from "./lib.js";
import { scoreBar, kindLegend } from "./bars.js";
import { editForm, takeFlash } from "./edit.js";

// TEXT_KIND labels the text channel's weight, which is not a kind of tag.
const TEXT_KIND = { en: "Text (trigger, lessons)", ko: "텍스트(계기·교훈)" };
// SOURCE_KINDS name the kinds of source the corpus has.
const SOURCE_KINDS = { "official-blog": ["official blog", "공식 블로그"], "official-status": ["official status page", "공식 상태 페이지"] };
const WEIGHT_KEYS = [["rootCause", "ROOT_CAUSE"], ["component", "COMPONENT"], ["symptom", "SYMPTOM"], ["contributing", "CONTRIBUTING"], ["domain", "DOMAIN"], ["mechanism", "MECHANISM"], ["org", "ORG"], ["text", "TEXT"]];

const T = "{ en ko }";
const TERM = "{ kind id en ko }";
const BRIEF = `{ id date year title ${T} organization ${TERM} }`;
const CASE = `query CasePage($id: ID!, $k: Int, $weights: WeightsInput, $rarity: Boolean, $hidden: Boolean) {
  case(id: $id) {
    id date year dateKind severity url updatedAt version
    history { version action by at restoredFrom }
    title ${T} summary ${T} trigger ${T} detection ${T} symptomsText ${T} lessons ${T}
    remediation ${T} actionItems ${T}
    impact { scope users region }
    timeline { detectedAfter detectedAfterMinutes resolvedAfter resolvedAfterMinutes }
    organization ${TERM} rootCause ${TERM} components ${TERM} symptoms ${TERM} contributing ${TERM} domains ${TERM} mechanisms ${TERM}
    related ${BRIEF} recurrenceOf ${BRIEF} recurrences ${BRIEF}
    sources { url kind archived }
    review { writtenBy reviewedAt reviewedBy }
  }
  sameRootCause(caseId: $id, first: 50) {
    totalCount
    nodes { case ${BRIEF} reason sharedCount shared { kind term ${TERM} } }
  }
  similarCases(caseId: $id, k: $k, weights: $weights, rarity: $rarity, includeHidden: $hidden) {
    case ${BRIEF} score hidden notes
    judgments { judge grade reason }
    shared { kind term ${TERM} weight contribution }
    text { contribution words }
  }
  similarityDefaults { rarity weights { rootCause component symptom contributing domain mechanism org text } }
}`;

function parse(params, bad) {
  const weights = {};
  const w = params.get("w");
  if (w) {
    for (const part of w.split(",")) {
      const [k, v] = part.split(":");
      const n = Number(v);
      if (!WEIGHT_KEYS.some(([x]) => x === k) || v === undefined || v === "" || !isFinite(n) || n < 0 || n > 100) {
        bad.push("w");
        return { weights: {}, k: 10, rarity: null, hidden: false };
      }
      weights[k] = n;
    }
  }
  let k = 10;
  const kp = params.get("k");
  if (kp !== null) {
    const n = Number(kp);
    if (Number.isInteger(n) && n >= 1 && n <= 50) k = n;
    else bad.push("k");
  }
  const rarity = params.get("rarity");
  if (rarity !== null && rarity !== "1" && rarity !== "0") bad.push("rarity");
  const hidden = params.get("hidden");
  if (hidden !== null && hidden !== "1") bad.push("hidden");
  // rarity: null leaves it to the server's default (similarityDefaults).
  return { weights, k, rarity: rarity === "1" ? true : rarity === "0" ? false : null, hidden: hidden === "1" };
}

// caseParams are a case page's URL parameters besides its id.
const caseParams = (st) => ({ w: wParam(st.weights), k: st.k !== 10 ? st.k : "", rarity: st.rarity === null ? "" : st.rarity ? "1" : "0", hidden: st.hidden ? "1" : "" });

const wParam = (weights) => Object.entries(weights).map(([k, v]) => `${k}:${v}`).join(",");

export async function render(ctx) {
  const id = ctx.args[0];
  if (!CASE_ID.test(id)) throw new NotFound(L(`There is no case “${id}”.`, `“${id}” 사례는 없습니다.`));
  const bad = [];
  const st = parse(ctx.params, bad);
  ctx.clean(link("/case/" + encodeURIComponent(id), caseParams(st)), bad);
  const notFound = () => new NotFound(L(`There is no case “${id}”.`, `“${id}” 사례는 없습니다.`));
  let r;
  try {
    r = await query(CASE, { id, k: st.k, rarity: st.rarity, hidden: st.hidden, weights: Object.keys(st.weights).length ? st.weights : null });
  } catch (e) {
    // sameRootCause and similarCases answer NOT_FOUND for an unknown case,
    // which nulls the whole answer.
    if (e.errors && e.errors.some((x) => x.extensions && x.extensions.code === "NOT_FOUND")) throw notFound();
    throw e;
  }
  if (!ctx.alive()) return;
  const c = r.data.case;
  if (!c) throw notFound();
  if (r.errors.length) throw new Error(r.errors[0].message);
  document.title = `${c.id} · ${state.lang === "ko" && c.title.ko ? c.title.ko : c.title.en} · ilgraph`;

  const field = (en, ko, value) => (value ? h("section", { class: "field" }, h("h2", {}, L(en, ko)), value) : null);
  // Long texts keep their paragraphs (one <p> each).
  const para = (t) => (t && t.en ? paragraphs(t) : null);
  const list = (items) => (items && items.length ? h("ul", {}, items.map((t) => paragraphs(t, "li"))) : null);
  const tagRow = (k, terms) => (terms && terms.length
    ? h("div", { class: "tag-row" }, h("dt", {}, L(k.en, k.ko)), h("dd", {}, h("ul", { class: "tags" }, terms.map((t) => h("li", {}, h("a", { href: topicLink(k.url, t.id), "data-nav": "", class: "tag" }, termSpan(t)))))))
    : null);
  const brief = (b) => h("li", {}, h("a", { href: caseLink(b.id), "data-nav": "" }, h("span", { class: "case-id" }, b.id), " ", text(b.title)), " ", h("span", { class: "meta" }, termSpan(b.organization), " · ", String(b.year)));

  const kinds = Object.fromEntries(KINDS.map((k) => [k.url, k]));
  const dl = (rows) => h("dl", { class: "facts" }, rows.filter(Boolean).map(([dt, dd]) => h("div", {}, h("dt", {}, dt), h("dd", {}, dd))));
  const sources = c.sources.length ? h("ul", { class: "sources" }, c.sources.map((s) => {
    const u = safeURL(s.url);
    const arch = s.archived && safeURL(s.archived);
    return h("li", {}, u ? h("a", { href: u, rel: "noopener noreferrer", translate: "no" }, s.url) : h("span", { translate: "no" }, s.url),
      s.kind ? [" · ", SOURCE_KINDS[s.kind] ? L(...SOURCE_KINDS[s.kind]) : s.kind] : null, arch ? [" · ", h("a", { href: arch, rel: "noopener noreferrer" }, L("archived copy", "보관본"))] : null);
  })) : null;

  fill(ctx.main, 
    h("article", { class: "case" },
      h("p", { class: "crumbs" }, h("a", { href: link("/"), "data-nav": "" }, L("Cases", "사례")), " › ", c.id),
      h("h1", {}, h("span", { class: "case-id" }, c.id), " ", text(c.title)),
      takeFlash(c.id),
      h("p", { class: "meta" }, termSpan(c.organization), " · ", h("time", { datetime: c.date }, c.date),
        c.severity ? [" · ", L("severity ", "심각도 "), severityLabel(c.severity)] : null),
      h("dl", { class: "tag-list" },
        tagRow(kinds.root_cause, c.rootCause ? [c.rootCause] : []), tagRow(kinds.component, c.components),
        tagRow(kinds.symptom, c.symptoms), tagRow(kinds.contributing, c.contributing), tagRow(kinds.mechanism, c.mechanisms), tagRow(kinds.domain, c.domains),
        tagRow(kinds.org, [c.organization])),
      field("Summary", "요약", para(c.summary)),
      dl([
        [L("Impact scope", "영향 범위"), c.impact.scope ? english(c.impact.scope) : "–"],
        [L("Users affected", "영향 사용자"), c.impact.users ? english(c.impact.users) : "–"],
        [L("Region", "지역"), c.impact.region ? english(c.impact.region) : "–"],
      ]),
      h("section", { class: "field timeline" }, h("h2", {}, L("Timeline", "타임라인")),
        h("ol", {},
          h("li", {}, h("strong", {}, L("Incident", "발생")), " ", h("time", { datetime: c.date }, c.date), c.dateKind ? ` (${dateKindLabel(c.dateKind)})` : ""),
          h("li", {}, h("strong", {}, L("Detected after", "감지까지")), " ", fmtDuration(c.timeline.detectedAfter)),
          h("li", {}, h("strong", {}, L("Resolved after", "복구까지")), " ", fmtDuration(c.timeline.resolvedAfter),
            c.timeline.resolvedAfterMinutes ? ` (${fmtMinutes(c.timeline.resolvedAfterMinutes)})` : ""))),
      field("Symptoms", "증상", para(c.symptomsText)),
      field("Trigger", "촉발", para(c.trigger)),
      field("Detection", "감지", para(c.detection)),
      field("Remediation", "조치", list(c.remediation)),
      field("Action items", "후속 조치", list(c.actionItems)),
      field("Lessons", "교훈", para(c.lessons)),
      field("Sources", "출처", sources),
      c.review && (c.review.writtenBy || c.review.reviewedBy) ? field("Review", "검토", h("p", {},
        c.review.writtenBy ? [L("Written by ", "작성 "), h("span", { translate: "no" }, c.review.writtenBy)] : null,
        c.review.reviewedBy ? [" · ", L("reviewed by ", "검토 "), h("span", { translate: "no" }, c.review.reviewedBy)] : null,
        c.review.reviewedAt ? [" · ", c.review.reviewedAt] : null)) : null,
      field("Related cases", "관련 사례", c.related.length ? h("ul", { class: "briefs" }, c.related.map(brief)) : null),
      field("Recurrence of", "이전 재발 사례", c.recurrenceOf ? h("ul", { class: "briefs" }, brief(c.recurrenceOf)) : null),
      field("Recurrences", "재발", c.recurrences.length ? h("ul", { class: "briefs" }, c.recurrences.map(brief)) : null),
      sameRootCause(c, r.data.sameRootCause),
      similar(c, r.data.similarCases, r.data.similarityDefaults, st),
      h("p", {}, h("a", { href: link("/graph", { x: "case:" + c.id }), "data-nav": "" }, L("Show this case's neighbourhood as a graph", "이 사례 주변을 그래프로 보기"))),
      editForm(c.id, c.version, c.history),
      rawJSON(c.id)));
}

// rawJSON shows the case exactly as loaded, asked for when opened.
function rawJSON(id) {
  const pre = h("pre", { class: "json", tabindex: "0", "aria-label": L("The case as JSON", "사례 JSON") }, L("Loading…", "불러오는 중…"));
  const details = h("details", { class: "field" }, h("summary", {}, L("The case as loaded (JSON)", "적재된 그대로의 사례 (JSON)")), pre);
  details.addEventListener("toggle", async () => {
    if (!details.open || pre.dataset.loaded) return;
    try {
      const d = await must(`query CaseJSON($id: ID!) { case(id: $id) { json } }`, { id });
      pre.textContent = JSON.stringify(JSON.parse(d.case.json), null, 2);
      pre.dataset.loaded = "1";
    } catch (e) {
      pre.textContent = e.message;
    }
  });
  return details;
}

function reasonText(x) {
  if (state.lang !== "ko") return h("span", { lang: "en" }, x.reason);
  const parts = ["같은 원인"];
  for (const s of x.shared) parts.push("공통 " + termLabel(s.term));
  return h("span", { lang: "ko" }, parts.slice(0, 4).join(" · "));
}

function sameRootCause(c, conn) {
  const body = conn.nodes.length
    ? h("ul", { class: "crossrefs", id: "same-root-cause" }, conn.nodes.map((x) => h("li", {},
      h("a", { href: caseLink(x.case.id), "data-nav": "" }, h("span", { class: "case-id" }, x.case.id), " ", text(x.case.title)),
      " ", h("span", { class: "meta" }, termSpan(x.case.organization), " · ", String(x.case.year)), " ",
      h("span", { class: "reason" }, reasonText(x)))))
    : h("p", {}, L("No other case has this root cause.", "원인이 같은 다른 사례가 없습니다."));
  return h("section", { class: "field", "aria-labelledby": "h-same" },
    h("h2", { id: "h-same" }, L("Same root cause", "같은 원인"), " ", h("span", { class: "count" }, `(${conn.totalCount})`)), body);
}

function similar(c, matches, sd, st) {
  const defaults = sd.weights;
  const rarityOn = st.rarity === null ? sd.rarity : st.rarity;
  const weights = { ...defaults, ...st.weights };
  const inputs = WEIGHT_KEYS.map(([key, api]) => {
    const k = kindByAPI(api) || TEXT_KIND;
    return h("div", { class: "weight" },
      h("label", { for: "w-" + key }, L(k.en, k.ko)),
      h("input", { type: "number", id: "w-" + key, name: key, min: "0", max: "100", step: "0.5", value: String(weights[key]) }));
  });
  const form = h("form", { class: "weights", onsubmit: (ev) => {
    ev.preventDefault();
    const w = {};
    for (const [key] of WEIGHT_KEYS) {
      const v = Number(form.elements[key].value);
      if (isFinite(v) && v >= 0 && v !== defaults[key]) w[key] = v;
    }
    const r = form.elements.rarity.checked;
    go(link("/case/" + encodeURIComponent(c.id), caseParams({ weights: w, k: Number(form.elements.k.value) || 10, rarity: r === sd.rarity ? null : r, hidden: st.hidden })));
  } },
  h("fieldset", {}, h("legend", {}, L("Weights per kind", "종류별 가중치")), inputs,
    h("div", { class: "weight" }, h("label", { for: "w-k" }, L("How many", "개수")),
      h("select", { id: "w-k", name: "k" }, [...new Set([5, 10, 20, 50, st.k])].sort((a, b) => a - b).map((n) => h("option", { value: String(n), selected: n === st.k }, String(n))))),
    h("div", { class: "weight" }, h("input", { type: "checkbox", id: "w-rarity", name: "rarity", checked: rarityOn }), " ",
      h("label", { for: "w-rarity", class: "inline" }, L("Rare shared features count more", "드문 공통 특징에 더 큰 가중치"))),
    h("button", { type: "submit" }, L("Apply weights", "가중치 적용")),
    Object.keys(st.weights).length || st.rarity !== null || st.k !== 10 ? h("a", { href: link("/case/" + encodeURIComponent(c.id)), "data-nav": "" }, L("Default weights", "기본 가중치")) : null));
  const body = matches.length
    ? h("ol", { class: "similar", id: "similar" }, matches.map((m) => h("li", {},
      h("div", { class: "similar-head" },
        h("a", { href: caseLink(m.case.id), "data-nav": "" }, h("span", { class: "case-id" }, m.case.id), " ", text(m.case.title)),
        " ", h("span", { class: "meta" }, termSpan(m.case.organization), " · ", String(m.case.year))),
      m.hidden ? h("p", { class: "hidden-note" }, h("span", { class: "badge" }, L("hidden", "숨김")), " ", L("Hidden from this list; shown because “show hidden matches” is on.", "목록에서 숨긴 사례입니다. “숨긴 사례 보기”가 켜져 있어 보입니다.")) : null,
      scoreBar(m), notes(m), judge(c.id, m), why(c.id, m.case.id, st))))
    : h("p", {}, L("No case shares a feature with this one.", "이 사례와 특징을 공유하는 사례가 없습니다."));
  return h("section", { class: "field", "aria-labelledby": "h-similar" },
    h("h2", { id: "h-similar" }, L("Similar cases", "비슷한 사례")),
    h("p", { class: "help" }, L("Each bar is the case's score (0–1); its parts are the shared features' shares of it.", "막대 길이는 점수(0~1)이고, 각 칸은 공유하는 특징이 점수에서 차지하는 몫입니다.")),
    kindLegend(), form, showHidden(c.id, st), body);
}

// why explains one match feature by feature (explainSimilarity), asked
// for when opened: what the two share with each weight and contribution,
// and what only one of them has.
function why(a, b, st) {
  const body = h("div", {}, L("Loading…", "불러오는 중…"));
  const details = h("details", { class: "why" }, h("summary", {}, L("Why this score", "왜 이 점수인가")), body);
  details.addEventListener("toggle", async () => {
    if (!details.open || details.dataset.loaded) return;
    details.dataset.loaded = "1";
    const TERM = "{ kind id en ko }";
    try {
      const d = await must(`query Explain($a: ID!, $b: ID!, $weights: WeightsInput, $rarity: Boolean) {
        explainSimilarity(a: $a, b: $b, weights: $weights, rarity: $rarity) {
          score shared { kind term ${TERM} weight contribution } differing { kind term ${TERM} weight side } } }`,
      { a, b, weights: Object.keys(st.weights).length ? st.weights : null, rarity: st.rarity });
      const x = d.explainSimilarity;
      const kindName = (api) => { const k = kindByAPI(api); return k ? L(k.en, k.ko) : api; };
      fill(body,
        h("table", {}, h("caption", {}, L(`Shared: ${x.score.toFixed(3)} in all`, `공유: 합계 ${x.score.toFixed(3)}`)),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, L("Kind", "종류")), h("th", { scope: "col" }, L("Feature", "특징")),
            h("th", { scope: "col" }, L("Weight", "가중치")), h("th", { scope: "col" }, L("Adds", "기여")))),
          h("tbody", {}, x.shared.map((f) => h("tr", {}, h("td", {}, kindName(f.kind)), h("td", {}, termSpan(f.term)),
            h("td", {}, f.weight.toFixed(2)), h("td", {}, "+" + f.contribution.toFixed(3)))))),
        x.differing.length ? h("table", {}, h("caption", {}, L("Only one of them has", "한쪽에만 있는 것")),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, L("Kind", "종류")), h("th", { scope: "col" }, L("Feature", "특징")),
            h("th", { scope: "col" }, L("Weight", "가중치")), h("th", { scope: "col" }, L("Only in", "있는 쪽")))),
          h("tbody", {}, x.differing.map((f) => h("tr", {}, h("td", {}, kindName(f.kind)), h("td", {}, termSpan(f.term)),
            h("td", {}, f.weight.toFixed(2)), h("td", {}, f.side === "QUERY" ? a : b))))) : null);
    } catch (e) {
      delete details.dataset.loaded;
      fill(body, h("p", { role: "alert" }, e.message));
    }
  });
  return details;
}

// notes lists what reviewers and editors said of a match ("marked not
// relevant by alice: …", "hidden by bob"), for everyone.
function notes(m) {
  if (!m.notes || !m.notes.length) return null;
  return h("ul", { class: "judge-notes" }, m.notes.map((n) => h("li", { lang: "en" }, n)));
}

const GRADES = [["STRONGLY_RELEVANT", "Strongly relevant", "매우 관련"], ["RELEVANT", "Relevant", "관련"], ["NOT_RELEVANT", "Not relevant", "관련 없음"]];

// mutate runs a mutation and throws an ApiError on any error.
async function mutate(doc, vars) {
  const r = await query(doc, vars);
  if (r.errors.length) {
    const e = r.errors[0];
    throw new ApiError(e.message, { code: (e.extensions && e.extensions.code) || "", errors: r.errors });
  }
  return r.data;
}

// judge is a match's controls for reviewers (a grade with an optional
// reason; withdrawing one's own judgment) and editors (hide a match marked
// not relevant, or show a hidden one again). After a change the page
// renders again from the API.
function judge(caseId, m) {
  const key = m.case.id.replace(/[^A-Za-z0-9_-]/g, "_");
  const me = session.current.name;
  const mine = m.judgments.find((j) => j.judge === me);
  const status = h("div", { class: "judge-status", "aria-live": "polite" });
  const reason = h("input", { type: "text", id: "judge-reason-" + key, maxlength: "500", value: mine && mine.reason ? mine.reason : "" });
  const run = async (btns, doc, vars) => {
    for (const b of btns) b.disabled = true;
    fill(status);
    try {
      await mutate(doc, vars);
      window.dispatchEvent(new Event("ilgraph:navigate"));
    } catch (e) {
      for (const b of btns) b.disabled = false;
      const p = e.errors && e.errors[0] && e.errors[0].extensions && e.errors[0].extensions.problems;
      fill(status, h("p", { class: "problem", role: "alert" }, e.message, p && p.length ? [" ", p.map((x) => `${x.field}: ${x.message}`).join("; ")] : null));
    }
  };
  const buttons = [];
  for (const [grade, en, ko] of GRADES) {
    buttons.push(h("button", { type: "button", class: "grade", "data-grade": grade, "aria-pressed": mine && mine.grade === grade ? "true" : "false",
      onclick: () => run(buttons, `mutation Judge($c: ID!, $m: ID!, $g: Grade!, $r: String) { judgeSimilar(caseId: $c, match: $m, grade: $g, reason: $r) { note } }`,
        { c: caseId, m: m.case.id, g: grade, r: reason.value.trim() || null }) }, L(en, ko)));
  }
  if (mine) {
    buttons.push(h("button", { type: "button", class: "link", onclick: () => run(buttons, `mutation Withdraw($c: ID!, $m: ID!) { withdrawJudgment(caseId: $c, match: $m) }`, { c: caseId, m: m.case.id }) },
      L("Withdraw my judgment", "내 판정 철회")));
  }
  const notRelevant = m.judgments.some((j) => j.grade === "NOT_RELEVANT");
  const hideBtn = m.hidden
    ? h("button", { type: "button", class: "unhide", "data-needs-role": "editor",
      onclick: () => run([hideBtn], `mutation Unhide($c: ID!, $m: ID!) { unhideSimilar(caseId: $c, match: $m) }`, { c: caseId, m: m.case.id }) }, L("Show in the list again", "목록에 다시 보이기"))
    : notRelevant ? h("button", { type: "button", class: "hide", "data-needs-role": "editor",
      onclick: () => run([hideBtn], `mutation Hide($c: ID!, $m: ID!) { hideSimilar(caseId: $c, match: $m) { by } }`, { c: caseId, m: m.case.id }) }, L("Hide from this list", "목록에서 숨기기"))
      : null;
  return h("div", { class: "judge" },
    h("div", { class: "judge-form", role: "group", "aria-label": L(`Judge ${m.case.id}`, `${m.case.id} 판정`), "data-needs-role": "reviewer" },
      h("label", { for: "judge-reason-" + key }, L("Reason (optional)", "이유 (선택)")), reason, buttons),
    hideBtn, status);
}

// showHidden switches the list to include the matches editors hid (the
// URL's hidden=1).
function showHidden(id, st) {
  const box = h("input", { type: "checkbox", id: "show-hidden", checked: st.hidden,
    onchange: () => go(link("/case/" + encodeURIComponent(id), caseParams({ ...st, hidden: box.checked }))) });
  return h("p", { class: "show-hidden", "data-needs-role": "editor" }, box, " ", h("label", { for: "show-hidden", class: "inline" }, L("Show hidden matches", "숨긴 사례 보기")));
}
