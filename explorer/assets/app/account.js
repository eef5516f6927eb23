// The account control in the header: sign in with a token (entered once,
// sent only to POST /auth/session, never stored by the page), who is
// signed in and with which role, and sign out (which ends the session on
// the server).
import { h, fill, L, session, loadSession, setSession, send, ANONYMOUS, roleLabel } from "./lib.js";

const box = document.getElementById("account");
let open = false; // the sign-in form is shown
let error = "";
let busy = false;
let known = false; // the server has said who is signed in

// render draws the control for the current session and language; nothing
// until the server has said, so that "Sign in" does not flash for a
// browser that is signed in.
export function render() {
  const s = session.current;
  if (!known) {
    box.hidden = true;
    return;
  }
  box.hidden = !s.available;
  if (!s.available) return fill(box);
  if (s.signedIn) {
    return fill(box,
      h("span", { class: "who", id: "account-who" },
        L("Signed in as ", "로그인: "), h("strong", { translate: "no" }, s.name), " · ", h("span", { class: "role", "data-role": s.role }, roleLabel(s.role))),
      h("button", { type: "button", id: "sign-out", disabled: busy, onclick: signOut }, L("Sign out", "로그아웃")));
  }
  if (!open) {
    return fill(box, h("button", { type: "button", id: "sign-in", "aria-expanded": "false", "aria-controls": "signin-form",
      onclick: () => { open = true; error = ""; render(); document.getElementById("signin-token").focus(); } }, L("Sign in", "로그인")));
  }
  // Without script there is no form at all; were the handler to fail,
  // the browser would POST the form as urlencoded to /auth/session, which
  // refuses it: the token never goes into a URL.
  const input = h("input", { type: "password", id: "signin-token", name: "token", autocomplete: "off", spellcheck: "false",
    required: true, "aria-describedby": error ? "signin-error" : null });
  fill(box, h("form", { id: "signin-form", class: "signin", method: "post", action: "/auth/session", onsubmit: (ev) => { ev.preventDefault(); signIn(input); } },
    h("label", { for: "signin-token" }, L("Token", "토큰")), input,
    h("button", { type: "submit", disabled: busy }, L("Sign in", "로그인")),
    h("button", { type: "button", class: "link", onclick: () => { open = false; error = ""; render(); document.getElementById("sign-in").focus(); } }, L("Cancel", "취소")),
    error ? h("p", { id: "signin-error", class: "signin-error", role: "alert" }, error) : null));
}

async function signIn(input) {
  const token = input.value.trim();
  input.value = ""; // the page keeps no copy
  if (!token || busy) return;
  busy = true;
  error = "";
  let resp = null;
  try {
    resp = await fetch("/auth/session", {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ token }),
    });
  } catch (e) {
    /* unreachable */
  }
  busy = false;
  if (resp && resp.ok) {
    open = false;
    setSession(await resp.json());
    document.getElementById("sign-out").focus();
    // The screen again, as this principal may see it.
    window.dispatchEvent(new Event("ilgraph:navigate"));
    return;
  }
  if (!resp) error = L("The server cannot be reached.", "서버에 연결할 수 없습니다.");
  else if (resp.status === 401) error = L("That token is not valid: it is unknown, expired or revoked.", "유효하지 않은 토큰입니다: 알 수 없거나 만료되었거나 폐기되었습니다.");
  else if (resp.status === 429) error = L("Too many attempts: wait a moment and try again.", "시도가 너무 많습니다: 잠시 뒤 다시 시도하세요.");
  else {
    // The server's own words (a sign-in from an origin it does not count
    // as its own, say), in English.
    let why = "";
    try {
      const body = await resp.json();
      why = (body && body.error && body.error.message) || "";
    } catch (e) {
      /* not JSON */
    }
    error = L(`Signing in failed (HTTP ${resp.status})`, `로그인하지 못했습니다 (HTTP ${resp.status})`) + (why ? ": " + why : ".");
  }
  render();
  document.getElementById("signin-token").focus();
}

async function signOut() {
  busy = true;
  render();
  let resp = null;
  try {
    resp = await send("/auth/session", { method: "DELETE", cache: "no-store" });
  } catch (e) {
    /* unreachable */
  }
  busy = false;
  if (resp && (resp.ok || resp.status === 204)) {
    setSession(ANONYMOUS);
    window.dispatchEvent(new Event("ilgraph:navigate"));
    document.getElementById("sign-in").focus();
    return;
  }
  await loadSession(); // show what the server says is the case
}

window.addEventListener("ilgraph:session", () => {
  known = true;
  render();
});

// start asks the server who is signed in.
export function start() {
  render();
  return loadSession();
}
