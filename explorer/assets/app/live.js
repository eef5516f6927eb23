// Live incident: describe what is happening and pick the components,
// symptoms, contributing factors, mechanisms and domains seen so far;
// similarToProfile answers with similar past cases, the root causes and
// factors to check next (weighted) and what resolved them. The description
// is sent too: its own words rank the cases beside the terms (half the
// score), and no term is read from it on the server — the profile is the
// chips the person kept.
//
// The URL holds the whole profile, so it can be sent as a link: the terms
// per kind (c, s, f, m, d), the description (desc) and which terms were
// suggested from it (sug: param:id, e.g. c:message-broker). Until the form
// is submitted its terms are a draft, shown as chips at the top, each
// marked "from your description" or "chosen".
import { h, fill, must, KINDS, L, text, termSpan, termLabel, link, go, vocabulary, caseLink, topicLink, validID, fmtNumber } from "./lib.js";
import { scoreBar, kindLegend } from "./bars.js";
import { rows } from "./charts.js";
import { suggestions, confidenceTitle } from "./cases.js";

const kind = (url) => KINDS.find((x) => x.url === url);
const PICK = [
  { k: kind("component"), field: "components" },
  { k: kind("symptom"), field: "symptoms" },
  { k: kind("contributing"), field: "contributing" },
  { k: kind("mechanism"), field: "mechanisms" },
  { k: kind("domain"), field: "domains" },
];
// DESC_MAX bounds the description kept in the URL (and typed in the box):
// enough for what an on-call engineer writes, short enough for a link.
export const DESC_MAX = 2000;
const MAX_TERMS = 50; // per kind

const TERM = "{ kind id en ko }";
const Q = `query Live($profile: ProfileInput!, $k: Int, $text: String) {
  similarToProfile(profile: $profile, k: $k, text: $text) {
    matches { case { id year title { en ko } organization ${TERM} } score shared { kind term ${TERM} weight contribution } text { contribution words } }
    rootCauses { term ${TERM} weight matches }
    contributing { term ${TERM} weight matches }
    remedies { case { id title { en ko } } score remediation { en ko } actionItems { en ko } }
  }
}`;

// parse reads the profile from the URL: {sel: {param: [ids]}, desc, sug:
// Set("param:id")}; what cannot be used is left out and named in bad.
function parse(params, bad) {
  const sel = {};
  for (const p of PICK) {
    const ids = (params.get(p.k.param) || "").split(",").filter(Boolean);
    if (ids.length > MAX_TERMS || !ids.every(validID)) {
      bad.push(p.k.param);
      sel[p.k.param] = [];
    } else sel[p.k.param] = [...new Set(ids)];
  }
  let desc = params.get("desc") || "";
  if (desc.length > DESC_MAX) {
    bad.push(L(`desc (the description is over ${fmtNumber(DESC_MAX)} characters)`, `desc (설명이 ${fmtNumber(DESC_MAX)}자를 넘습니다)`));
    desc = "";
  }
  // sug names terms of the profile that came from the description; an
  // entry that is not one of them is left out.
  const sug = new Set();
  let sugBad = false;
  for (const e of (params.get("sug") || "").split(",").filter(Boolean)) {
    const i = e.indexOf(":");
    const param = e.slice(0, i), id = e.slice(i + 1);
    if (i > 0 && sel[param] && sel[param].includes(id)) sug.add(param + ":" + id);
    else sugBad = true;
  }
  if (sugBad) bad.push("sug");
  return { sel, desc, sug };
}

// url writes a profile as the screen's URL.
function url(st) {
  const params = {};
  for (const p of PICK) params[p.k.param] = st.sel[p.k.param];
  params.desc = st.desc;
  // In the order of the kinds and terms, so that one profile has one URL.
  params.sug = PICK.flatMap((p) => st.sel[p.k.param].filter((id) => st.sug.has(p.k.param + ":" + id)).map((id) => p.k.param + ":" + id));
  return link("/live", params);
}

const hasTerms = (st) => PICK.some((p) => st.sel[p.k.param].length);

export async function render(ctx) {
  const bad = [];
  const asked = parse(ctx.params, bad);
  ctx.clean(url(asked), bad);
  const any = hasTerms(asked) || asked.desc !== "";
  const [vocab, res] = await Promise.all([
    vocabulary(),
    any ? must(Q, { k: 10, profile: Object.fromEntries(PICK.map((p) => [p.field, asked.sel[p.k.param]])), text: asked.desc || null }) : null,
  ]);
  if (!ctx.alive()) return;
  document.title = L("Live incident", "진행 중인 장애") + " · ilgraph";

  // The draft: what the form holds, the URL's profile until it changes.
  const draft = { sel: Object.fromEntries(PICK.map((p) => [p.k.param, [...asked.sel[p.k.param]]])), sug: new Set(asked.sug) };
  const termOf = (p, id) => vocab.byKey.get(p.k.api + ":" + id) || { kind: p.k.api, id, en: id };
  const boxOf = (p, id) => form.querySelector(`input[type="checkbox"][name="${p.k.param}"][value="${CSS.escape(id)}"]`);

  // The pickers: per kind every term of the vocabulary, the ones in the
  // profile first; the legend counts the kind's terms in the profile.
  const counts = {};
  const lists = {};
  const pickers = PICK.map((p) => {
    const on = new Set(draft.sel[p.k.param]);
    const terms = vocab.terms.filter((t) => t.kind === p.k.api)
      .sort((a, b) => on.has(b.id) - on.has(a.id) || b.caseCount - a.caseCount || a.id.localeCompare(b.id));
    const filterId = "find-" + p.k.param;
    const items = terms.map((t, i) => {
      const id = `pk-${p.k.param}-${i}`;
      return h("li", { "data-label": (t.en + " " + (t.ko || "") + " " + t.id).toLowerCase() },
        h("input", { type: "checkbox", id, name: p.k.param, value: t.id, checked: on.has(t.id) }),
        h("label", { for: id }, termSpan(t), " ", h("span", { class: "count" }, `(${t.caseCount})`)));
    });
    const ul = h("ul", { class: "pick-list" }, items);
    lists[p.k.param] = ul;
    const find = h("input", { type: "search", id: filterId, autocomplete: "off", oninput: () => {
      const q = find.value.trim().toLowerCase();
      for (const li of ul.children) li.hidden = q !== "" && !li.dataset.label.includes(q) && !li.querySelector("input").checked;
    } });
    counts[p.k.param] = h("span", { class: "pick-count" });
    return h("fieldset", { class: "pick", id: "pick-" + p.k.param, "data-kind": p.k.url }, h("legend", {}, L(p.k.en, p.k.ko), " ", counts[p.k.param]),
      h("label", { for: filterId, class: "small" }, L("Find", "찾기")), find, ul);
  });

  // The chips: every term of the draft, marked with where it came from.
  const chipsHeading = h("h2", { id: "live-profile-h", tabindex: "-1" });
  const chipList = h("div", { class: "live-chips" });
  const pending = h("p", { class: "live-pending", role: "status" });
  const profile = h("section", { class: "live-profile", "aria-labelledby": "live-profile-h" }, chipsHeading, chipList, pending);

  const chips = () => {
    const items = [];
    for (const p of PICK) {
      for (const id of draft.sel[p.k.param]) {
        const t = termOf(p, id);
        const fromDesc = draft.sug.has(p.k.param + ":" + id);
        const kindLabel = L(p.k.en, p.k.ko);
        const origin = fromDesc ? L("from your description", "설명에서 추천") : L("chosen", "직접 고름");
        items.push(h("li", { class: "chip live-chip " + (fromDesc ? "from-desc" : "chosen"), "data-term": `${p.k.url}:${id}`, "data-origin": fromDesc ? "desc" : "chosen" },
          h("span", { class: "chip-kind" }, kindLabel + ": "), termSpan(t), " ",
          h("span", { class: "chip-origin" }, origin),
          h("button", { type: "button", class: "chip-x", "aria-label": L(`Remove ${kindLabel}: ${termLabel(t)} (${origin})`, `${kindLabel}: ${termLabel(t)} 빼기 (${origin})`),
            onclick: () => remove(p, id) }, "×")));
      }
    }
    const n = items.length;
    chipsHeading.textContent = L(`This incident's terms (${n})`, `이 장애의 분류 (${n})`);
    if (!n) {
      fill(chipList, h("p", { class: "chips-none" }, L("No terms yet: describe the incident and press \u201cSuggest terms from the description\u201d, or tick what you see below.",
        "아직 분류가 없습니다. 장애를 설명하고 \u201c설명에서 분류 추천받기\u201d를 누르거나, 아래에서 보이는 것을 고르세요.")));
    } else fill(chipList, h("ul", { "aria-labelledby": "live-profile-h" }, items));
  };
  // sync draws what depends on the draft: the chips, the legends' counts,
  // and whether the results shown are for another profile.
  const sync = () => {
    chips();
    for (const p of PICK) counts[p.k.param].textContent = `(${draft.sel[p.k.param].length})`;
    changed();
  };
  const changed = () => {
    pending.textContent = any && url({ ...draft, desc: desc.value.trim() }) !== url(asked)
      ? L("Changed since you asked: press \u201cFind similar past cases\u201d to update the results and the link.", "찾은 뒤에 바뀌었습니다. 결과와 링크를 고치려면 \u201c비슷한 과거 사례 찾기\u201d를 누르세요.")
      : "";
  };
  const add = (p, id, fromDesc) => {
    if (!draft.sel[p.k.param].includes(id)) draft.sel[p.k.param].push(id);
    if (fromDesc) draft.sug.add(p.k.param + ":" + id);
    const box = boxOf(p, id);
    if (box) {
      box.checked = true;
      box.closest("li").hidden = false;
    }
  };
  const drop = (p, id) => {
    draft.sel[p.k.param] = draft.sel[p.k.param].filter((x) => x !== id);
    draft.sug.delete(p.k.param + ":" + id);
    const box = boxOf(p, id);
    if (box) box.checked = false;
  };
  // Removing a chip: once results are shown it asks again at once (the
  // results and the link follow the chips); before, it edits the draft.
  const remove = (p, id) => {
    const chipsBefore = [...chipList.querySelectorAll(".chip-x")];
    const at = chipsBefore.findIndex((b) => b.closest("li").dataset.term === `${p.k.url}:${id}`);
    drop(p, id);
    if (any) return submit();
    sync();
    const after = [...chipList.querySelectorAll(".chip-x")];
    (after[Math.min(at, after.length - 1)] || chipsHeading).focus();
  };

  // Describe it in words: suggest marks the terms the text points to.
  const desc = h("textarea", { id: "describe", rows: "3", maxlength: String(DESC_MAX), "aria-describedby": "describe-help", oninput: () => changed() });
  desc.value = asked.desc;
  const said = h("p", { class: "help", role: "status", id: "suggest-status" });
  // The less sure suggestions: offered as buttons that add them, not put
  // in the profile (docs/suggest.md: below the show cut-off a kind's
  // suggestions were right less than 80% of the time).
  const maybe = h("div", { class: "live-maybe", hidden: true });
  const suggest = async () => {
    said.textContent = L("Asking…", "묻는 중…");
    maybe.hidden = true;
    const all = await suggestions(desc.value);
    if (!ctx.alive()) return 0;
    const offer = (sgs) => {
      const items = [];
      for (const sg of sgs) {
        const p = PICK.find((x) => x.k.api === (sg.kind || sg.term.kind));
        if (!p || draft.sel[p.k.param].includes(sg.term.id)) continue;
        const kindLabel = L(p.k.en, p.k.ko);
        const li = h("li", {}, h("button", { type: "button", class: "chip add", "data-term": `${p.k.url}:${sg.term.id}`,
          title: confidenceTitle(sg.confidence),
          onclick: () => {
            add(p, sg.term.id, true);
            li.remove();
            if (!maybe.querySelector("li")) maybe.hidden = true;
            sync();
          } }, "+ ", kindLabel, ": ", termSpan(sg.term), " ", h("span", { class: "count" }, `(${sg.confidence.toFixed(2)})`)));
        items.push(li);
      }
      if (!items.length) return 0;
      fill(maybe, h("h3", {}, L("Less sure: add the ones that fit", "덜 확실한 분류: 맞는 것만 더하세요")), h("ul", {}, items));
      maybe.hidden = false;
      return items.length;
    };
    const list = all.filter((x) => x.sure);
    if (!list.length) {
      // Nothing sure (or no suggestion engine): the profile stays as it is.
      const m = offer(all);
      said.textContent = m ? L("No term is sure from the description; the less sure ones are below: add the ones that fit.", "설명에서 확실한 분류는 없습니다. 아래의 덜 확실한 분류 중 맞는 것을 더하세요.")
        : L("No terms found in the description.", "설명에서 찾은 분류가 없습니다.");
      return 0;
    }
    // The description's terms are replaced by the new description's; the
    // chosen ones stay.
    for (const key of [...draft.sug]) {
      const i = key.indexOf(":");
      drop(PICK.find((p) => p.k.param === key.slice(0, i)), key.slice(i + 1));
    }
    const added = [];
    for (const sg of list) {
      const p = PICK.find((x) => x.k.api === (sg.kind || sg.term.kind));
      // Root causes are what the screen answers, not part of the profile;
      // a term already chosen stays chosen.
      if (!p || draft.sel[p.k.param].includes(sg.term.id)) continue;
      add(p, sg.term.id, true);
      added.push([p, sg.term.id]);
    }
    const n = added.length;
    // Each list shows the suggested terms first, the best at the top.
    for (const [p, id] of added.reverse()) {
      const box = boxOf(p, id);
      if (box) lists[p.k.param].prepend(box.closest("li"));
    }
    sync();
    const m = offer(all.filter((x) => !x.sure));
    said.textContent = (n ? L(`${n} ${n === 1 ? "term" : "terms"} suggested from the description, marked \u201cfrom your description\u201d above: remove the wrong ones, add what is missing, then ask.`,
      `설명에서 분류 ${n}개를 추천했습니다 (위에 \u201c설명에서 추천\u201d으로 표시). 틀린 것은 빼고 빠진 것은 더한 뒤 찾으세요.`)
      : L("The terms the description points to are chosen already.", "설명이 가리키는 분류는 이미 모두 골랐습니다."))
      + (m ? L(` ${m} less sure ${m === 1 ? "term is" : "terms are"} offered below.`, ` 덜 확실한 분류 ${m}개는 아래에 있습니다.`) : "");
    return n;
  };
  const describe = h("div", { class: "describe" },
    h("label", { for: "describe" }, L("Describe what you see, in English or Korean (optional)", "보이는 것을 적어 보세요, 영어나 한국어로 (선택)")), desc,
    h("p", { class: "help small", id: "describe-help" }, L(`Up to ${fmtNumber(DESC_MAX)} characters; it is kept in the link.`, `${fmtNumber(DESC_MAX)}자까지, 링크에 함께 저장됩니다.`)),
    h("p", {}, h("button", { type: "button", id: "suggest", onclick: suggest }, L("Suggest terms from the description", "설명에서 분류 추천받기"))), said, maybe);

  const submit = () => go(url({ ...draft, desc: desc.value.trim() }));
  const form = h("form", { class: "live-form", onsubmit: async (ev) => {
    ev.preventDefault();
    // A description and nothing else: its sure suggestions join it first
    // (its words rank the cases either way).
    if (!hasTerms(draft) && desc.value.trim()) await suggest();
    if (ctx.alive()) submit();
  }, onchange: (ev) => {
    const box = ev.target;
    const p = box.type === "checkbox" && PICK.find((x) => x.k.param === box.name);
    if (!p) return;
    if (box.checked) add(p, box.value, false);
    else drop(p, box.value);
    sync();
  } }, profile, describe, h("div", { class: "pickers" }, pickers),
  h("p", {}, h("button", { type: "submit", id: "live-submit" }, L("Find similar past cases", "비슷한 과거 사례 찾기")), " ",
    any || asked.desc ? h("a", { href: link("/live"), "data-nav": "" }, L("Start over", "처음부터")) : null));
  sync();

  // The link to this profile: the URL holds all of it.
  let share = null;
  if (any || asked.desc) {
    const here = url(asked);
    const copied = h("span", { class: "help", role: "status" });
    share = h("p", { class: "live-share" },
      h("a", { href: here, id: "live-link", "data-nav": "" }, L("Link to this profile", "이 프로필의 링크")), " ",
      h("button", { type: "button", id: "copy-link", onclick: async () => {
        try {
          await navigator.clipboard.writeText(new URL(here, location.href).href);
          copied.textContent = L("Link copied.", "링크를 복사했습니다.");
        } catch (e) {
          copied.textContent = L("The browser did not let the page copy: copy the link beside the button, or the address bar.", "브라우저가 복사를 막았습니다. 옆의 링크나 주소창을 복사하세요.");
        }
      } }, L("Copy link", "링크 복사")), " ", copied);
  }

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
  fill(ctx.main, h("h1", {}, L("Live incident", "진행 중인 장애")), form, share, out);
}
