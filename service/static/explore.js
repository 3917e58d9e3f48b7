// The matchup explorer: two kill teams as a heatmap, a cell as a chart.
//
// It uses the public API only, as an integrator would: GET v1/kill-teams and v1/operatives for
// names and datacards, POST v1/team-matchup for the matrix (Prefer: return=minimal: the page
// never needs the cells' canonical keys), POST v1/shoot or v1/fight for a cell's distribution.
// Every answer is held with its ETag and asked again with If-None-Match, so a repeated
// question is a 304 of a few bytes; compression is the browser's (Accept-Encoding). A TIMEOUT
// (the server's time budget ran out; the computation goes on and fills its cache) and a 429
// are asked again after a pause, saying so. Catalogs imported from BattleScribe carry kill
// teams' own rules the engine does not model: every call says unknownRules IGNORE and the
// chart lists what was left out. With API keys the key typed in stays in this tab's memory.
// The chart is SVG drawn here: no dependency, text a screen reader reads, and a table of the
// same numbers under it.
"use strict";

const $ = (id) => document.getElementById(id);
const OPTIONS = { unknownRules: "IGNORE" };
const STRATEGY = "MAX_DAMAGE"; // the team matchup's default strategies, so a chart = its cell
const HELD_MAX = 64; // answers held for revalidation (oldest dropped first)
const RETRIES = 6;

const state = {
  key: "",
  teams: [], // v1/kill-teams
  operatives: new Map(), // id -> operative (v1/operatives), for every team loaded
  profiles: new Map(), // weapon profile id -> profile, of those operatives
  names: new Map(), // id -> display name (unique within its team)
  matchup: null, // the last answer shown, with what it was asked for
  generation: 0, // a newer question makes older answers stale
  chartGeneration: 0,
  cell: null, // the pair the chart shows
};

// ------------------------------------------------------------------ the API

class ApiError extends Error {
  constructor(status, body, text) {
    super(describe(status, body, text));
    this.status = status;
    this.body = body;
  }
  get code() {
    return this.body && this.body.error ? this.body.error.code : "";
  }
}

function describe(status, body, text) {
  const errors = body && Array.isArray(body.errors) ? body.errors : body && body.error ? [body.error] : [];
  if (status === 401) {
    return "This server needs an API key (HTTP 401): enter it in the API key field above.";
  }
  if (errors.length === 0) {
    return `The API answered HTTP ${status}${text ? ": " + text.slice(0, 200) : ""}`;
  }
  const lines = errors.map((e) => {
    const where = e.field ? ` (at ${e.field})` : "";
    const stated = e.limit === undefined || e.limit === null || String(e.message).includes(String(e.limit));
    const limit = stated ? "" : ` (limit ${e.limit})`;
    return `${e.code}: ${e.message}${where}${limit}`;
  });
  return `The API refused this (HTTP ${status}): ${lines.join("; ")}`;
}

const held = new Map(); // request -> {etag, data}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One API call: JSON in and out, If-None-Match from what is held, retried on TIMEOUT and
// 429. Answers {data, status, headers, bytes, seconds}.
async function api(path, { body, prefer, onRetry } = {}) {
  const method = body === undefined ? "GET" : "POST";
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const id = `${method} ${path} ${payload || ""} ${prefer || ""}`;
  for (let attempt = 0; ; attempt++) {
    const headers = { accept: "application/json" };
    if (payload !== undefined) headers["content-type"] = "application/json";
    if (prefer) headers.prefer = prefer;
    if (state.key) headers.authorization = `Bearer ${state.key}`;
    const had = held.get(id);
    if (had) headers["if-none-match"] = had.etag;
    const started = performance.now();
    // no-store: the page keeps its answers and their ETags itself (for POSTs as for GETs)
    let response;
    try {
      response = await fetch(new URL(path, document.baseURI), {
        method, headers, body: payload, cache: "no-store",
      });
    } catch (error) {
      throw new Error(`Could not reach the API (${path}): ${error.message}. Is the server running?`);
    }
    const seconds = (performance.now() - started) / 1000;
    const bytes = Number(response.headers.get("content-length") || 0);
    if (response.status === 304 && had) {
      held.delete(id);
      held.set(id, had);
      return { data: had.data, status: 304, headers: response.headers, bytes, seconds };
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (_) {
      data = null;
    }
    if (response.ok) {
      const etag = response.headers.get("etag");
      if (etag) {
        held.set(id, { etag, data });
        while (held.size > HELD_MAX) held.delete(held.keys().next().value);
      }
      return { data, status: response.status, headers: response.headers, bytes, seconds };
    }
    const error = new ApiError(response.status, data, text);
    const again = response.status === 429 || (response.status === 503 && error.code === "TIMEOUT");
    if (!again || attempt >= RETRIES) throw error;
    const wait = Math.min(Number(response.headers.get("retry-after") || 1), 30);
    if (onRetry) onRetry(response.status, wait);
    await sleep(wait * 1000);
  }
}

// ------------------------------------------------------------------ formatting

function percent(p) {
  if (p <= 0) return "0%";
  if (p >= 1) return "100%";
  if (p < 0.001) return "<0.1%";
  if (p > 0.999) return ">99.9%";
  return `${(p * 100).toFixed(p < 0.1 ? 1 : 0)}%`;
}

const damage = (d) => d.toFixed(d < 10 ? 2 : 1);

function kilobytes(bytes) {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

// sequential scale, light to dark (good for colour-blind readers: lightness carries it)
const STOPS = [[250, 246, 232], [246, 214, 150], [236, 150, 84], [199, 66, 44], [118, 18, 36]];

function colour(t) {
  const x = Math.max(0, Math.min(1, t)) * (STOPS.length - 1);
  const i = Math.min(Math.floor(x), STOPS.length - 2);
  const f = x - i;
  const rgb = STOPS[i].map((c, k) => Math.round(c + (STOPS[i + 1][k] - c) * f));
  return `rgb(${rgb.join(",")})`;
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) node.append(child);
  return node;
}

function showError(box, error) {
  box.hidden = !error;
  box.textContent = error ? error.message || String(error) : "";
  if (error && error.status === 401) $("key-row").hidden = false;
}

// ------------------------------------------------------------------ the catalog

async function loadTeams() {
  const { data } = await api("v1/kill-teams");
  state.teams = [...data.killTeams].sort((a, b) => a.name.localeCompare(b.name));
  for (const id of ["attacker", "defender"]) {
    const select = $(id);
    const chosen = select.value;
    select.replaceChildren(el("option", { value: "", text: "Choose a kill team…" }));
    for (const team of state.teams) {
      const label = team.faction ? `${team.name} (${team.faction})` : team.name;
      select.append(el("option", { value: team.id, text: label }));
    }
    select.value = chosen;
    select.disabled = false;
  }
  $("status").textContent = `${state.teams.length} kill teams served (catalog ${data.catalogVersion}).`;
}

// Every operative of a team, page by page; names made unique within the team (imported
// catalogs have five "Gunner"s): a clash gets its first weapon's name, then a number.
async function loadOperatives(teamId) {
  const found = [];
  let after = "";
  for (;;) {
    const query = `killTeam=${encodeURIComponent(teamId)}&first=100${after ? "&after=" + encodeURIComponent(after) : ""}`;
    const { data } = await api(`v1/operatives?${query}`);
    found.push(...data.operatives);
    if (!data.pageInfo || !data.pageInfo.hasNextPage) break;
    after = data.pageInfo.endCursor;
  }
  const count = new Map();
  for (const op of found) count.set(op.name, (count.get(op.name) || 0) + 1);
  const used = new Set();
  for (const op of found) {
    state.operatives.set(op.id, op);
    for (const w of op.weapons) for (const p of w.profiles) state.profiles.set(p.id, p);
    let name = op.name;
    if (count.get(name) > 1) {
      const weapon = op.weapons.find((w) => w.type === "ranged") || op.weapons[0];
      if (weapon) name = `${op.name} (${weapon.name})`;
    }
    for (let n = 2; used.has(name); n++) name = `${op.name} #${n}`;
    used.add(name);
    state.names.set(op.id, name);
  }
}

const profiles = (op, type) => op.weapons.flatMap((w) => w.profiles).filter((p) => p.type === type);

const profileById = (id) => state.profiles.get(id) || null;

// ------------------------------------------------------------------ the question asked

function choice() {
  const mode = document.querySelector('input[name="mode"]:checked').value;
  const metric = document.querySelector('input[name="metric"]:checked').value;
  return {
    attacker: $("attacker").value,
    defender: $("defender").value,
    mode,
    metric,
    cover: $("cover").checked,
    obscured: $("obscured").checked,
  };
}

// The situation as the API's overrides: cover retains one normal save (KT2024), obscured
// is the attacker's flag. Fights have no situation.
function situation(c) {
  const names = [c.cover && "cover", c.obscured && "obscured"].filter(Boolean);
  const out = { name: names.join(" + ") || "open" };
  if (c.obscured) out.attacker = { obscured: true };
  if (c.cover) out.defender = { coverSaves: 1 };
  return out;
}

function matchupBody(c) {
  const body = {
    attackers: { killTeamId: c.attacker },
    defenders: { killTeamId: c.defender },
    options: OPTIONS,
  };
  if (c.mode === "fight") body.melee = { strategy: STRATEGY, defenderStrategy: STRATEGY };
  else body.situations = [situation(c)];
  return body;
}

function cellCount(c, attackers, defenders) {
  if (c.mode === "shoot") {
    return attackers.reduce((n, op) => n + profiles(op, "ranged").length, 0) * defenders.length;
  }
  let fights = 0;
  for (const a of attackers) {
    for (const d of defenders) fights += profiles(a, "melee").length * profiles(d, "melee").length;
  }
  const shots = attackers.reduce((n, op) => n + profiles(op, "ranged").length, 0) * defenders.length;
  return shots + fights;
}

// ------------------------------------------------------------------ the matrix

async function refresh() {
  const c = choice();
  $("situation").disabled = c.mode === "fight";
  if (!c.attacker || !c.defender) return;
  const generation = ++state.generation;
  const box = $("error");
  showError(box, null);
  const timer = { started: performance.now(), handle: 0, note: "" };
  try {
    for (const team of [c.attacker, c.defender]) {
      if (![...state.operatives.values()].some((op) => op.killTeamId === team)) {
        await loadOperatives(team);
      }
    }
    if (generation !== state.generation) return;
    const team = (id) => state.teams.find((t) => t.id === id);
    const attackers = team(c.attacker).operativeIds.map((id) => state.operatives.get(id)).filter(Boolean);
    const defenders = team(c.defender).operativeIds.map((id) => state.operatives.get(id)).filter(Boolean);
    const cells = cellCount(c, attackers, defenders);
    const tick = () => {
      const s = ((performance.now() - timer.started) / 1000).toFixed(1);
      $("progress-text").textContent = `Computing ${cells} cells (${attackers.length} × ${defenders.length} operatives)… ${s} s${timer.note}`;
    };
    tick();
    $("progress").hidden = false;
    $("result").classList.add("stale");
    timer.handle = setInterval(tick, 100);
    const answer = await api("v1/team-matchup", {
      body: matchupBody(c),
      prefer: "return=minimal",
      onRetry: (status, wait) => {
        timer.note = status === 429
          ? ` — rate limited, asking again in ${wait} s`
          : " — longer than the server's time budget; it goes on computing, asking again";
      },
    });
    if (generation !== state.generation) return;
    state.matchup = { choice: c, answer: answer.data };
    render();
    $("status").textContent = statusLine(answer, cells);
    followChart();
  } catch (error) {
    if (generation !== state.generation) return;
    showError(box, error);
    $("status").textContent = "";
  } finally {
    clearInterval(timer.handle);
    if (generation === state.generation) {
      $("progress").hidden = true;
      $("result").classList.remove("stale");
    }
  }
}

function statusLine(answer, cells) {
  const how = answer.status === 304
    ? "not modified (304): the answer this tab holds is current"
    : `answered in ${answer.seconds.toFixed(2)} s, ${kilobytes(answer.bytes)}${answer.headers.get("content-encoding") ? " " + answer.headers.get("content-encoding") : ""}`;
  const cache = answer.headers.get("cache-status");
  return `${cells} cells, ${how}${cache ? ` · Cache-Status: ${cache}` : ""}`;
}

// The best cell of each pair, keyed "attacker|defender".
function bestCells(m) {
  const rows = m.choice.mode === "fight" ? (m.answer.melee ? m.answer.melee.best : []) : m.answer.best;
  return new Map(rows.map((row) => [`${row.attacker}|${row.defender}`, row]));
}

function render() {
  const m = state.matchup;
  if (!m) return;
  const c = { ...m.choice, metric: choice().metric };
  const best = bestCells(m);
  const attackers = m.answer.attackers;
  const defenders = m.answer.defenders;
  const kind = c.mode === "fight" ? "melee" : "ranged";
  const wounds = (id) => (state.operatives.get(id) || {}).WOUNDS || 1;
  const share = (row) => (c.metric === "kill" ? row.killProbability : row.expectedDamage / wounds(row.defender));

  const teamName = (id) => (state.teams.find((t) => t.id === id) || { name: id }).name;
  const verb = c.mode === "fight" ? "fighting" : "shooting";
  const where = c.mode === "fight" ? "" : ` (${situation(c).name})`;
  $("result-title").textContent = `${teamName(c.attacker)} ${verb} ${teamName(c.defender)}${where}`;

  const head = el("tr", {}, el("th", { scope: "col", class: "corner", text: "attacker ↓ · defender →" }));
  for (const d of defenders) {
    const op = state.operatives.get(d) || {};
    head.append(el("th", { scope: "col" }, el("span", { text: state.names.get(d) || d }),
      el("small", { text: `W${op.WOUNDS} · Sv${op.SAVE}` })));
  }
  const body = el("tbody");
  for (const a of attackers) {
    // the weapon most often best along the row names the row; a cell with another says so
    const tally = new Map();
    for (const d of defenders) {
      const row = best.get(`${a}|${d}`);
      if (row) tally.set(row.weaponProfile, (tally.get(row.weaponProfile) || 0) + 1);
    }
    const usual = [...tally.entries()].sort((x, y) => y[1] - x[1])[0];
    const usualName = usual ? (profileById(usual[0]) || { name: usual[0] }).name : `no ${kind} weapon`;
    const tr = el("tr", {}, el("th", { scope: "row" }, el("span", { text: state.names.get(a) || a }),
      el("small", { text: usual ? `best: ${usualName}` : usualName })));
    for (const d of defenders) {
      const row = best.get(`${a}|${d}`);
      const td = el("td", { "data-cell": `${a}|${d}` });
      if (!row) {
        td.className = "none";
        td.append(el("span", { text: `no ${kind} weapon` }));
      } else {
        const t = share(row);
        td.dataset.kill = row.killProbability; // the API's numbers, unrounded (test hooks)
        td.dataset.damage = row.expectedDamage;
        td.dataset.weapon = row.weaponProfile;
        td.style.background = colour(t);
        if (t > 0.7) td.className = "dark"; // white text where it contrasts more than ink
        const weapon = (profileById(row.weaponProfile) || { name: row.weaponProfile }).name;
        const kill = percent(row.killProbability);
        const dmg = damage(row.expectedDamage);
        const label = `${state.names.get(a)} against ${state.names.get(d)} with ${weapon}: `
          + `kill chance ${kill}, expected damage ${dmg}. Show the distribution.`;
        const button = el("button", { type: "button", "aria-label": label, title: label });
        const first = c.metric === "kill" ? [kill, `${dmg} dmg`] : [dmg, kill];
        button.append(el("b", { text: first[0] }), el("span", { text: first[1] }));
        if (usual && row.weaponProfile !== usual[0]) button.append(el("small", { text: weapon }));
        button.addEventListener("click", () => openChart(a, d, row));
        td.append(button);
      }
      tr.append(td);
    }
    body.append(tr);
  }
  $("matrix").replaceChildren(el("thead", {}, head), body);
  renderLegend(c);
  const ignored = new Set(best.size ? [...best.values()].flatMap((r) => r.ignoredRules || []) : []);
  $("hint").textContent = (c.mode === "fight"
    ? "Each cell: the attacker's best melee weapon against the defender's most dangerous answer (both fighters strike for most damage). "
    : "Each cell: the attacker's best ranged weapon against that defender (highest kill chance, then damage). ")
    + (ignored.size ? `Computed without rules the engine does not model: ${[...ignored].join(", ")}.` : "");
  $("result").hidden = false;
}

function renderLegend(c) {
  const steps = 5;
  const scale = el("span", { class: "scale", "aria-hidden": "true" });
  const labels = el("span", { class: "ticks" });
  for (let i = 0; i <= steps; i++) {
    scale.append(el("i", { style: `background:${colour(i / steps)}` }));
    const t = i / steps;
    labels.append(el("span", { text: c.metric === "kill" ? `${t * 100}%` : i === steps ? "≥ W" : `${t.toFixed(1)} W` }));
  }
  const what = c.metric === "kill"
    ? "Colour: chance to incapacitate the defender"
    : "Colour: expected damage, as a share of the defender's wounds (W)";
  $("legend").replaceChildren(el("span", { class: "what", text: what }), el("span", { class: "bar-scale" }, scale, labels));
}

// ------------------------------------------------------------------ a cell as a chart

function openChart(attacker, defender, row) {
  const mode = state.matchup.choice.mode;
  state.cell = { attacker, defender, mode, situation: situation(state.matchup.choice), row };
  const kind = mode === "fight" ? "melee" : "ranged";
  const weapons = profiles(state.operatives.get(attacker), kind);
  $("chart-weapon").replaceChildren(...weapons.map((p) => el("option", { value: p.id, text: p.name })));
  $("chart-weapon").value = row.weaponProfile;
  $("chart-answer-row").hidden = mode !== "fight";
  if (mode === "fight") {
    const answers = profiles(state.operatives.get(defender), "melee");
    $("chart-answer").replaceChildren(...answers.map((p) => el("option", { value: p.id, text: p.name })));
    $("chart-answer").value = row.defenderWeaponProfile;
  }
  $("chart-rounds").max = mode === "fight" ? 5 : 10;
  if (Number($("chart-rounds").value) > Number($("chart-rounds").max)) $("chart-rounds").value = $("chart-rounds").max;
  $("chart").hidden = false;
  drawCell().then(() => $("chart").scrollIntoView({ block: "nearest", behavior: "smooth" }));
}

// A new matrix: the open chart follows it when its pair is still there in the same mode
// (the situation changed: drawn again, the chosen weapon kept), else it closes.
function followChart() {
  const cell = state.cell;
  if (!cell) return;
  const m = state.matchup;
  const row = bestCells(m).get(`${cell.attacker}|${cell.defender}`);
  if (!row || m.choice.mode !== cell.mode) {
    closeChart();
    return;
  }
  cell.situation = situation(m.choice);
  cell.row = row;
  drawCell();
}

function closeChart() {
  $("chart").hidden = true;
  state.cell = null;
  state.view = null;
}

function shootBody(cell, weapon, rounds) {
  const s = cell.situation;
  return {
    attacker: { operativeId: cell.attacker, weaponProfileId: weapon, ...(s.attacker || {}) },
    defender: { operativeId: cell.defender, ...(s.defender || {}) },
    options: { ...OPTIONS, rounds },
  };
}

function fightBody(cell, weapon, answer, rounds) {
  return {
    fighterA: { operativeId: cell.attacker, weaponProfileId: weapon, strategy: STRATEGY },
    fighterB: { operativeId: cell.defender, weaponProfileId: answer, strategy: STRATEGY },
    options: { ...OPTIONS, rounds },
  };
}

async function drawCell() {
  const cell = state.cell;
  if (!cell) return;
  const generation = ++state.chartGeneration;
  const weapon = $("chart-weapon").value;
  const answerWeapon = $("chart-answer").value;
  const rounds = Math.max(1, Math.min(Number($("chart-rounds").max), Math.floor(Number($("chart-rounds").value) || 1)));
  const pair = `${state.names.get(cell.attacker)} → ${state.names.get(cell.defender)}`;
  const names = cell.mode === "shoot" ? `${pair} (${cell.situation.name})` : pair;
  $("chart-title").textContent = names;
  showError($("chart-error"), null);
  $("plot").setAttribute("aria-busy", "true");
  try {
    let view;
    if (cell.mode === "shoot") {
      const { data } = await api("v1/shoot", { body: shootBody(cell, weapon, rounds) });
      view = {
        distribution: data.damageDistribution,
        expected: data.expectedDamage,
        kill: data.killProbability,
        byRound: data.killProbabilityByRound,
        ignored: data.ignoredRules || [],
      };
    } else {
      const asks = [];
      for (let r = 1; r <= rounds; r++) asks.push(api("v1/fight", { body: fightBody(cell, weapon, answerWeapon, r) }));
      const answers = (await Promise.all(asks)).map((a) => a.data);
      const last = answers[answers.length - 1];
      view = {
        distribution: last.fighterA.damageDealtDistribution,
        expected: last.fighterA.expectedDamageDealt,
        kill: last.fighterB.incapacitatedProbability,
        byRound: answers.map((a) => a.fighterB.incapacitatedProbability),
        taken: last.fighterB.expectedDamageDealt,
        falls: last.fighterA.incapacitatedProbability,
        ignored: last.ignoredRules || [],
      };
    }
    if (generation !== state.chartGeneration) return;
    view.wounds = (state.operatives.get(cell.defender) || {}).WOUNDS;
    view.rounds = rounds;
    view.title = `${names}, ${(profileById(weapon) || { name: weapon }).name}`;
    state.view = view;
    plot(view);
    facts(view, weapon, cell.mode === "fight" ? answerWeapon : null);
  } catch (error) {
    if (generation !== state.chartGeneration) return;
    showError($("chart-error"), error);
  } finally {
    $("plot").removeAttribute("aria-busy");
  }
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// The distribution as bars: P(damage = v) for each v, the bars that incapacitate the
// defender darker, the expected damage a dashed line.
function plot(view) {
  const box = $("plot");
  const width = Math.max(280, Math.floor(box.clientWidth || 600));
  const height = 260;
  const margin = { top: 28, right: 12, bottom: 40, left: 44 };
  const w = width - margin.left - margin.right;
  const h = height - margin.top - margin.bottom;
  const points = view.distribution;
  const top = Math.max(...points.map((p) => p.probability), 0.01);
  const tick = [0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25].find((t) => t * 4 >= top) || 0.25;
  const ceiling = tick * Math.ceil(top / tick - 1e-9);
  const lo = Math.min(...points.map((p) => p.value));
  const hi = Math.max(...points.map((p) => p.value));
  const slots = hi - lo + 1;
  const step = w / slots;
  const x = (value) => margin.left + (value - lo + 0.5) * step;
  const y = (p) => margin.top + h - (p / ceiling) * h;
  const chart = svg("svg", {
    width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": "plot-title plot-desc",
  });
  chart.append(svg("title", { id: "plot-title" }, `Damage distribution: ${view.title}`));
  chart.append(svg("desc", { id: "plot-desc" },
    `Expected damage ${damage(view.expected)}, kill chance ${percent(view.kill)}.`));
  const grid = svg("g", { class: "grid" });
  for (let i = 0; i * tick <= ceiling + 1e-9; i++) {
    const p = i * tick;
    grid.append(svg("line", { x1: margin.left, x2: margin.left + w, y1: y(p), y2: y(p) }));
    grid.append(svg("text", { x: margin.left - 6, y: y(p) + 4, "text-anchor": "end" }, `${+(p * 100).toFixed(1)}%`));
  }
  chart.append(grid);
  const bars = svg("g", { class: "bars" });
  const labelEvery = Math.ceil(slots / Math.max(1, Math.floor(w / 28)));
  for (const point of points) {
    const kills = view.wounds && point.value >= view.wounds;
    const rect = svg("rect", {
      x: x(point.value) - step * 0.4, width: Math.max(1, step * 0.8),
      y: y(point.probability), height: Math.max(0, margin.top + h - y(point.probability)),
      class: kills ? "kill" : "",
    });
    rect.append(svg("title", {}, `${point.value} damage: ${percent(point.probability)}`));
    bars.append(rect);
  }
  for (let v = lo; v <= hi; v++) {
    if ((v - lo) % labelEvery === 0) {
      bars.append(svg("text", { x: x(v), y: margin.top + h + 16, "text-anchor": "middle" }, String(v)));
    }
  }
  chart.append(bars);
  chart.append(svg("text", { class: "axis", x: margin.left + w / 2, y: height - 4, "text-anchor": "middle" }, "damage dealt"));
  const ex = margin.left + (view.expected - lo + 0.5) * step;
  const mark = svg("g", { class: "expected" });
  mark.append(svg("line", { x1: ex, x2: ex, y1: margin.top - 6, y2: margin.top + h }));
  const anchor = ex > margin.left + w * 0.7 ? "end" : "start";
  mark.append(svg("text", { x: ex + (anchor === "end" ? -4 : 4), y: margin.top - 10, "text-anchor": anchor },
    `expected ${damage(view.expected)}`));
  chart.append(mark);
  const table = el("table", { class: "numbers" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "damage" }), el("th", { scope: "col", text: "chance" }))));
  const rows = el("tbody");
  for (const point of points) {
    rows.append(el("tr", {}, el("td", { text: String(point.value) }), el("td", { text: percent(point.probability) })));
  }
  table.append(rows);
  const key = el("p", { class: "chart-key", "aria-hidden": "true" },
    el("span", {}, el("i", { class: "hit" }), "damage short of the defender's wounds"),
    el("span", {}, el("i", { class: "kill" }), `incapacitates (${view.wounds} or more)`),
    el("span", {}, el("i", { class: "mean" }), "expected damage"));
  box.replaceChildren(chart, key, el("details", {}, el("summary", { text: "The distribution as a table" }), table));
}

function ruleList(profile) {
  const list = el("ul", { class: "rules" });
  if (!profile) return list;
  const stat = `ATK ${profile.ATK} · HIT ${profile.HIT} · DMG ${profile.DMG}`;
  list.append(el("li", {}, el("b", { text: "Profile: " }), stat));
  list.append(el("li", {}, el("b", { text: "Rules: " }), profile.WR || "none"));
  if (profile.noNumericEffect && profile.noNumericEffect.length) {
    list.append(el("li", {}, el("b", { text: "No effect on these numbers: " }), profile.noNumericEffect.join(", ")));
  }
  return list;
}

function facts(view, weapon, answerWeapon) {
  const out = [];
  const summary = el("p", { class: "summary" },
    el("span", {}, el("b", { text: damage(view.expected) }), " expected damage"),
    el("span", {}, el("b", { text: percent(view.kill) }), ` kill chance${view.rounds > 1 ? ` in ${view.rounds} rounds` : ""}`));
  if (view.taken !== undefined) {
    summary.append(el("span", {}, el("b", { text: damage(view.taken) }), " damage taken back"),
      el("span", {}, el("b", { text: percent(view.falls) }), " chance the attacker falls"));
  }
  out.push(summary);
  if (view.rounds > 1) {
    const list = el("ol", { class: "by-round", "aria-label": "kill chance by the end of each round" });
    view.byRound.forEach((p, i) => list.append(el("li", { text: `by round ${i + 1}: ${percent(p)}` })));
    out.push(el("h3", { text: "Kill chance by round" }), list);
  }
  out.push(el("h3", { text: `Weapon: ${(profileById(weapon) || { name: weapon }).name}` }), ruleList(profileById(weapon)));
  if (answerWeapon) {
    out.push(el("h3", { text: `Defender's weapon: ${(profileById(answerWeapon) || { name: answerWeapon }).name}` }),
      ruleList(profileById(answerWeapon)));
  }
  if (view.ignored.length) {
    out.push(el("p", { class: "ignored", text: `Computed without (not modelled by the engine): ${view.ignored.join(", ")}` }));
  }
  $("chart-facts").replaceChildren(...out);
}

// ------------------------------------------------------------------ wiring

function start() {
  const needsKey = document.querySelector("main").dataset.keys === "required";
  $("key-row").hidden = !needsKey;
  $("controls").addEventListener("submit", (event) => {
    event.preventDefault();
    state.key = $("api-key").value.trim();
    boot();
  });
  for (const id of ["attacker", "defender", "cover", "obscured"]) $(id).addEventListener("change", refresh);
  for (const input of document.querySelectorAll('input[name="mode"]')) input.addEventListener("change", refresh);
  for (const input of document.querySelectorAll('input[name="metric"]')) input.addEventListener("change", render);
  for (const id of ["chart-weapon", "chart-answer", "chart-rounds"]) $(id).addEventListener("change", drawCell);
  $("chart-close").addEventListener("click", closeChart);
  let resized = 0;
  window.addEventListener("resize", () => {
    clearTimeout(resized);
    resized = setTimeout(() => state.cell && state.view && plot(state.view), 150);
  });
  if (needsKey) {
    $("status").textContent = "Enter an API key to begin.";
    for (const id of ["attacker", "defender"]) $(id).replaceChildren(el("option", { value: "", text: "needs an API key" }));
    return;
  }
  boot();
}

async function boot() {
  showError($("error"), null);
  try {
    if (state.teams.length === 0) await loadTeams();
    await refresh();
  } catch (error) {
    showError($("error"), error);
  }
}

start();
