// croupier-web pages: live views over server-sent events. The DOM is built with textContent
// only (never innerHTML from data), and this file is the only script (the CSP allows no other).
"use strict";

const csrf = document.querySelector('meta[name="csrf"]').content;
const user = document.body.dataset.user;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function when(seconds) {
  return seconds ? new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19) : "";
}

async function post(path) {
  const reply = await fetch(path, {method: "POST", headers: {"X-CSRF-Token": csrf},
                                   credentials: "same-origin"});
  let data = {};
  try { data = await reply.json(); } catch (e) { data = {error: reply.statusText}; }
  if (!reply.ok) throw new Error(data.error || reply.statusText);
  return data;
}

function message(text, isError) {
  const box = document.getElementById("message");
  if (box) { box.textContent = text; box.className = isError ? "error" : "note"; }
}

function live(path, render, status) {
  const source = new EventSource(path);
  source.onmessage = (event) => { status.textContent = "live"; status.className = "live";
                                  render(JSON.parse(event.data)); };
  source.onerror = () => {
    status.textContent = "reconnecting"; status.className = "stale";
    // a refusal (503: too many live pages) or a proxy's error page ends an EventSource for
    // good; it retries by itself only after a dropped connection. Try again a little later.
    if (source.readyState === EventSource.CLOSED) {
      setTimeout(() => live(path, render, status), 5000 + Math.random() * 5000);
    }
  };
}

// --- the table page ------------------------------------------------------------------

function alertRow(table, alert) {
  const button = user && alert.state !== "acknowledged"
    ? el("button", {id: `ack-${alert.id}`, "data-alert": alert.id}, "Acknowledge") : null;
  if (button) {
    button.addEventListener("click", async () => {
      button.disabled = true;
      try { await post(`/table/${table}/alerts/${alert.id}/ack`);
            message(`alert ${alert.id} acknowledged`, false); }
      catch (e) { message(e.message, true); button.disabled = false; }
    });
  }
  return el("li", {id: `alert-${alert.id}`, class: `alert ${alert.state}`,
                   "data-kind": alert.kind, "data-state": alert.state},
            el("b", {}, alert.kind), ` ${alert.subject}: ${alert.detail} `,
            el("span", {class: "when"}, `since ${when(alert.raised)} UTC`), " ",
            el("span", {class: "state"}, alert.state +
               (alert.acknowledged_by ? ` by ${alert.acknowledged_by}` : "")), " ", button);
}

let signImage = null;
let lastPage = "";

function renderTable(page) {
  const root = document.getElementById("table");
  const name = root.dataset.table;
  // a moving sign (roll-up, celebration) changes only the picture: keep the rest of the page,
  // so that a button is not replaced under the pointer
  const rest = JSON.stringify({...page, sign: null});
  if (rest === lastPage && signImage) {
    if (page.sign) signImage.setAttribute("src", `/table/${name}/sign.png?v=${page.sign}`);
    return;
  }
  lastPage = rest;
  const parts = [];
  parts.push(el("h1", {}, `Table ${page.table || name} `,
                el("span", {id: "state", class: `badge ${page.online ? page.state : "offline"}`},
                   page.online ? page.state : "offline"),
                " ", el("span", {id: "round"}, page.round ? `round ${page.round}` : "")));
  if (!page.online) parts.push(el("p", {class: "error", id: "problem"}, page.problem || ""));
  const alerts = el("ul", {id: "alerts"}, ...(page.alerts || []).map((a) => alertRow(name, a)));
  parts.push(el("section", {}, el("h2", {}, "Alerts"),
                (page.alerts || []).length ? alerts : el("p", {id: "alerts", class: "quiet"}, "none")));
  if (page.state === "jackpot" && user) {
    const button = el("button", {id: "jackpot-ack"}, "Acknowledge the jackpot");
    button.addEventListener("click", async () => {
      try { await post(`/table/${name}/jackpot/ack`); message("jackpot acknowledged", false); }
      catch (e) { message(e.message, true); }
    });
    parts.push(button);
  }
  if (page.sign) {  // one picture element for the page's life: no reload unless it changed
    const src = `/table/${name}/sign.png?v=${page.sign}`;
    if (!signImage) signImage = el("img", {id: "sign", alt: "the progressive sign"});
    if (signImage.getAttribute("src") !== src) signImage.setAttribute("src", src);
    parts.push(el("section", {}, el("h2", {}, "Sign"), signImage));
  }
  const seats = (page.seats || []).map((s) =>
    el("div", {class: `seat${s.stake ? " stake" : ""}${s.locked ? " locked" : ""}` +
                      `${s.excluded ? " excluded" : ""}${s.lamp ? " lit" : ""}`,
               id: `seat-${s.seat}`},
       el("b", {}, `Seat ${s.seat}`), el("br"),
       s.excluded ? `excluded: ${s.excluded}` : (s.locked ? "in the round" : (s.stake ? "stake" : "—")),
       el("br"), s.sensor ? `sensor: ${s.sensor}` : ""));
  parts.push(el("section", {}, el("h2", {}, "Seats"), el("div", {class: "seats"}, ...seats)));
  const facts = el("dl", {class: "facts"},
    el("dt", {}, "Pools"), el("dd", {id: "pools"},
       ...(page.pools || []).map((p) => el("div", {}, `${p.pool}: `, el("b", {}, p.amount)))),
    el("dt", {}, "Pace"), el("dd", {id: "pace"},
       page.pace === null || page.pace === undefined ? "—" : `${page.pace} rounds per hour`),
    el("dt", {}, "Shuffler"), el("dd", {id: "shuffler"},
       `link ${page.shuffler ? page.shuffler.link : "?"}`,
       page.shuffler && page.shuffler.model ? `, ${page.shuffler.model} ${page.shuffler.firmware || ""}` : ""),
    el("dt", {}, "Shuffle audit"), el("dd", {id: "audit"}, page.audit
       ? `${page.audit.shuffles} shuffles, ${page.audit.alarm ? "ALARM" : "no alarm"}` : "—"),
    el("dt", {}, "Last verdict"), el("dd", {id: "verdict"}, page.verdict
       ? `${page.verdict.status} ${page.verdict.rule || ""} ${page.verdict.reason || ""}` : "—"),
    el("dt", {}, "Conditions"), el("dd", {id: "conditions"},
       Object.entries(page.conditions || {}).map(([k, v]) => `${k}: ${v}`).join("; ") || "none"));
  parts.push(el("section", {}, el("h2", {}, "Table"), facts));
  const hits = (page.hits || []).map((h) => el("tr", {},
    el("td", {}, h.wall), el("td", {}, h.round), el("td", {}, h.seat), el("td", {}, h.pool),
    el("td", {}, h.line), el("td", {}, h.hand), el("td", {class: "money"}, h.amount)));
  parts.push(el("section", {}, el("h2", {}, "Last hits"),
    el("table", {id: "hits"}, el("tr", {}, ...["When", "Round", "Seat", "Pool", "Pays", "Hand",
                                               "Amount"].map((t) => el("th", {}, t))), ...hits)));
  root.replaceChildren(el("p", {id: "message"}), ...parts);
}

// --- the floor -----------------------------------------------------------------------

function renderFloor(tiles) {
  const root = document.getElementById("floor");
  root.replaceChildren(...tiles.map((t) => el("a", {
      class: `tile ${t.online ? t.state : "offline"}`, id: `tile-${t.name}`, href: `/table/${t.name}`,
      "data-state": t.online ? t.state : "offline", "data-alerts": t.alerts},
    el("h2", {}, t.name),
    el("div", {class: `badge ${t.online ? t.state : "offline"}`}, t.online ? t.state : "offline"),
    el("div", {}, t.round ? `round ${t.round}` : ""),
    el("div", {}, `${t.alerts} alert${t.alerts === 1 ? "" : "s"}`,
       t.alert_kinds && t.alert_kinds.length ? `: ${t.alert_kinds.join(", ")}` : ""),
    ...(t.pools || []).map((p) => el("div", {}, `${p.pool} ${p.amount}`)),
    el("div", {}, t.pace === null || t.pace === undefined ? "" : `${t.pace} rounds/h`))));
}

const status = el("span", {id: "live", class: "stale"}, "connecting");
document.querySelector("header").append(status);
if (document.body.dataset.page === "table") {
  const name = document.getElementById("table").dataset.table;
  live(`/table/${name}/events`, renderTable, status);
} else if (document.body.dataset.page === "floor") {
  live("/floor/events", renderFloor, status);
}
