// Live incident: pick the components, symptoms and contributing factors
// seen so far; similarToProfile answers with similar past cases, the root
// causes and factors to check next (weighted) and what resolved them.
import { h, fill, must, KINDS, L, text, termSpan, link, go, vocabulary, caseLink, topicLink, validID } from "./lib.js";
import { scoreBar, kindLegend } from "./bars.js";
import { rows } from "./charts.js";
import { suggestions } from "./cases.js";

const PICK = [
  { k: KINDS.find((x) => x.url === "component"), field: "components" },
  { k: KINDS.find((x) => x.url === "symptom"), field: "symptoms" },
  { k: KINDS.find((x) => x.url === "contributing"), field: "contributing" },
];
const TERM = "{ kind id en ko }";
const Q = `query Live($profile: ProfileInput!, $k: Int) {
  similarToProfile(profile: $profile, k: $k) {
    matches { case { id year title { en ko } organization ${TERM} } score shared { kind term ${TERM} weight contribution } }
    rootCauses { term ${TERM} weight matches }
    contributing { term ${TERM} weight matches }
    remedies { case { id title { en ko } } score remediation { en ko } actionItems { en ko } }
  }
}`;

export async function render(ctx) {
  const bad = [];
  const picked = {};
  for (const p of PICK) {
    const raw = ctx.params.get(p.k.param) || "";
    const ids = raw.split(",").filter(Boolean);
    if (ids.length > 50 || !ids.every(validID)) {
      bad.push(p.k.param);
      picked[p.k.param] = [];
    } else picked[p.k.param] = [...new Set(ids)];
  }
  ctx.clean(link("/live", picked), bad);
  const any = PICK.some((p) => picked[p.k.param].length);
  const [vocab, res] = await Promise.all([
    vocabulary(),
    any ? must(Q, { k: 10, profile: Object.fromEntries(PICK.map((p) => [p.field, picked[p.k.param]])) }) : null,
  ]);
  if (!ctx.alive()) return;
  document.title = L("Live incident", "진행 중인 장애") + " · ilgraph";

  const pickers = PICK.map((p) => {
    const terms = vocab.terms.filter((t) => t.kind === p.k.api).sort((a, b) => b.caseCount - a.caseCount || a.id.localeCompare(b.id));
    const filterId = "find-" + p.k.param;
    const items = terms.map((t, i) => {
      const id = `pk-${p.k.param}-${i}`;
      return h("li", { "data-label": (t.en + " " + (t.ko || "") + " " + t.id).toLowerCase() },
        h("input", { type: "checkbox", id, name: p.k.param, value: t.id, checked: picked[p.k.param].includes(t.id) }),
        h("label", { for: id }, termSpan(t), " ", h("span", { class: "count" }, `(${t.caseCount})`)));
    });
    const ul = h("ul", { class: "pick-list" }, items);
    const find = h("input", { type: "search", id: filterId, autocomplete: "off", oninput: () => {
      const q = find.value.trim().toLowerCase();
      for (const li of ul.children) li.hidden = q !== "" && !li.dataset.label.includes(q) && !li.querySelector("input").checked;
    } });
    return h("fieldset", { class: "pick" }, h("legend", {}, L(p.k.en, p.k.ko) + " " + `(${picked[p.k.param].length})`),
      h("label", { for: filterId, class: "small" }, L("Find", "찾기")), find, ul);
  });
  // Describe it in words: suggest checks the terms the text points to.
  const desc = h("textarea", { id: "describe", rows: "3", maxlength: "10000" });
  const said = h("p", { class: "help", role: "status" });
  const describe = h("div", { class: "describe" },
    h("label", { for: "describe" }, L("Describe what you see, in English or Korean (optional)", "보이는 것을 적어 보세요, 영어나 한국어로 (선택)")), desc,
    h("p", {}, h("button", { type: "button", onclick: async () => {
      said.textContent = L("Asking…", "묻는 중…");
      const list = await suggestions(desc.value);
      let n = 0;
      for (const sg of list) {
        const p = PICK.find((x) => x.k.api === (sg.kind || sg.term.kind));
        const box = p && form.querySelector(`input[name="${p.k.param}"][value="${CSS.escape(sg.term.id)}"]`);
        if (box && !box.checked) { box.checked = true; box.closest("li").hidden = false; n++; }
      }
      said.textContent = list.length ? L(`${n} terms checked from the description; change them if they are wrong, then ask.`, `설명에서 분류 ${n}개를 골랐습니다. 틀리면 고친 뒤 찾으세요.`)
        : L("No terms found in the description.", "설명에서 찾은 분류가 없습니다.");
    } }, L("Suggest terms from the description", "설명에서 분류 추천받기"))), said);
  const form = h("form", { class: "live-form", onsubmit: (ev) => {
    ev.preventDefault();
    const next = {};
    for (const p of PICK) next[p.k.param] = [...form.querySelectorAll(`input[name="${p.k.param}"]:checked`)].map((x) => x.value);
    go(link("/live", next));
  } }, describe, h("div", { class: "pickers" }, pickers),
  h("p", {}, h("button", { type: "submit" }, L("Find similar past cases", "비슷한 과거 사례 찾기")), " ",
    any ? h("a", { href: link("/live"), "data-nav": "" }, L("Start over", "처음부터")) : null));

  let out;
  if (!res) out = h("p", { class: "help" }, L("Pick what you see in the incident, then ask.", "지금 장애에서 보이는 것을 고른 뒤 찾아 보세요."));
  else {
    const pr = res.similarToProfile;
    const weighted = (list, kindURL, title) => list.length
      ? rows(list.map((w) => ({ label: h("a", { href: topicLink(kindURL, w.term.id), "data-nav": "" }, termSpan(w.term)), text: w.term.en, value: w.weight })),
        { title, fmt: (v) => v.toFixed(2) })
      : h("p", {}, "–");
    out = h("div", { class: "live-results" },
      h("section", { class: "field" }, h("h2", {}, L("Root causes to check", "확인할 원인")), weighted(pr.rootCauses, "root_cause", L("Root causes by summed score", "점수 합계별 원인"))),
      h("section", { class: "field" }, h("h2", {}, L("Contributing factors to check next", "다음에 확인할 기여 요인")), weighted(pr.contributing, "contributing", L("Factors by summed score", "점수 합계별 기여 요인"))),
      h("section", { class: "field" }, h("h2", {}, L("Similar past cases", "비슷한 과거 사례")), kindLegend(),
        pr.matches.length ? h("ol", { class: "similar", id: "matches" }, pr.matches.map((m) => h("li", {},
          h("div", { class: "similar-head" }, h("a", { href: caseLink(m.case.id), "data-nav": "" }, h("span", { class: "case-id" }, m.case.id), " ", text(m.case.title)),
            " ", h("span", { class: "meta" }, termSpan(m.case.organization), " · ", String(m.case.year))),
          scoreBar(m)))) : h("p", {}, L("No past case shares any of these.", "이 중 하나라도 가진 과거 사례가 없습니다."))),
      h("section", { class: "field" }, h("h2", {}, L("What resolved them", "어떻게 해결했나")),
        pr.remedies.length ? h("ol", { class: "remedies" }, pr.remedies.map((r) => h("li", {},
          h("h3", {}, h("a", { href: caseLink(r.case.id), "data-nav": "" }, h("span", { class: "case-id" }, r.case.id), " ", text(r.case.title))),
          r.remediation.length ? h("ul", {}, r.remediation.map((t) => text(t, "li"))) : null,
          r.actionItems.length ? h("details", {}, h("summary", {}, L("Action items", "후속 조치")), h("ul", {}, r.actionItems.map((t) => text(t, "li")))) : null))) : h("p", {}, "–")));
  }
  fill(ctx.main, h("h1", {}, L("Live incident", "진행 중인 장애")), form, out);
}
