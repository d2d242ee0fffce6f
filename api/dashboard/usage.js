// Switchboard dashboard: usage over time (see app.js, window.switchboard).
// The Usage section reads GET /v1/usage: calls and errors over time as a chart
// (uPlot, vendored under /dashboard/vendor/), the slowest tools, the busiest
// servers and, for admins, the calls per person. A person sees their own calls;
// an admin everyone's. Tool, server and person names come from the servers and the
// provider: untrusted, shown as text only.
"use strict";
(() => {
  const sb = window.switchboard;
  const el = sb.el;
  const RANGES = { "1h": ["1h", "1m"], "24h": ["24h", "1h"], "7d": ["7d", "1d"], "30d": ["30d", "1d"] };
  const TOP = 10;

  const box = document.getElementById("usage");
  const range = document.getElementById("usage-range");
  const status = document.getElementById("usage-status");
  const chartBox = document.getElementById("usage-chart");
  let chart = null;
  let loading = null; // the AbortController of the reports under way
  let epoch = null;

  // data is what the chart shows, for whoever reads the page (and its tests):
  // [times in seconds, calls, errors] per bucket.
  const state = { data: null, reports: {} };
  sb.usage = state;

  async function report(by, since, bucket, signal) {
    const q = new URLSearchParams({ by, since, bucket });
    return sb.api("/v1/usage?" + q, { signal });
  }

  async function load() {
    if (loading) loading.abort();
    const ctl = (loading = new AbortController());
    const at = sb.epoch();
    const [since, bucket] = RANGES[range.value] || RANGES["24h"];
    const me = sb.me();
    const admin = !me || me.admin;
    status.textContent = "Loading…";
    box.setAttribute("aria-busy", "true");
    try {
      const wanted = ["tool", "server"].concat(admin ? ["person"] : []);
      const reps = await Promise.all(wanted.map((by) => report(by, since, bucket, ctl.signal)));
      if (ctl.signal.aborted || at !== sb.epoch()) return;
      state.reports = Object.fromEntries(wanted.map((by, i) => [by, reps[i]]));
      render(state.reports, admin);
      status.textContent = summary(reps[0]);
    } catch (e) {
      if (e.name === "AbortError") return;
      status.textContent = e.code === "not_found" ? "This service keeps no usage (its session store keeps none, or the retention is 0)." : "Usage: " + e.message;
      clearTables();
    } finally {
      if (loading === ctl) loading = null;
      box.removeAttribute("aria-busy");
    }
  }

  function summary(rep) {
    const t = rep.total;
    let s = `${sb.count(t.calls, "call")}, ${sb.count(t.errors, "error")}`;
    if (t.refused) s += `, ${t.refused} refused`;
    if (t.calls) s += `; median ${ms(t.p50Ms)}, 95th percentile ${ms(t.p95Ms)}`;
    if (rep.truncated) s += " (more calls than one report reads: the oldest shown)";
    return s + ".";
  }

  const ms = (x) => (x < 10 ? x.toFixed(1) : Math.round(x)) + " ms";

  function render(reps, admin) {
    const byTool = reps.tool;
    const xs = byTool.buckets.map((t) => Date.parse(t) / 1000);
    const calls = xs.map((_, i) => byTool.groups.reduce((n, g) => n + g.series[i].calls, 0));
    const errors = xs.map((_, i) => byTool.groups.reduce((n, g) => n + g.series[i].errors, 0));
    state.data = [xs, calls, errors];
    drawChart(state.data);

    const slow = byTool.groups.filter((g) => g.total.calls - g.total.refused > 0)
      .sort((a, b) => b.total.p95Ms - a.total.p95Ms).slice(0, TOP);
    fill("usage-slowest", slow, (g) => [g.key, String(g.total.calls), ms(g.total.p50Ms), ms(g.total.p95Ms)]);
    fill("usage-servers", reps.server.groups.slice(0, TOP), (g) => [g.key || "(no server: unknown tool)", String(g.total.calls), String(g.total.errors)]);
    const people = document.getElementById("usage-people-box");
    people.hidden = !admin;
    if (admin) fill("usage-people", reps.person.groups.slice(0, TOP), (g) => [g.key || "(no person)", String(g.total.calls), String(g.total.errors)]);
  }

  function fill(id, groups, cells) {
    const table = document.getElementById(id);
    const body = table.tBodies[0];
    body.replaceChildren(...groups.map((g) => el("tr", {}, ...cells(g).map((c, i) => el(i ? "td" : "th", i ? { text: c } : { scope: "row", text: c })))));
    table.hidden = groups.length === 0;
    table.nextElementSibling.hidden = groups.length !== 0; // its "none" note
  }

  function clearTables() {
    for (const id of ["usage-slowest", "usage-servers", "usage-people"]) {
      const t = document.getElementById(id);
      t.tBodies[0].replaceChildren();
      t.hidden = true;
    }
    state.data = null;
    if (chart) chart.setData([[], [], []]);
  }

  function drawChart(data) {
    const width = Math.max(320, chartBox.clientWidth || 640);
    if (chart) {
      chart.setSize({ width, height: 220 });
      chart.setData(data);
      return;
    }
    chart = new window.uPlot({
      width, height: 220,
      title: "Calls and errors",
      series: [
        {},
        { label: "Calls", stroke: "#2563eb", fill: "rgba(37, 99, 235, 0.12)", width: 2, points: { show: true } },
        { label: "Errors", stroke: "#dc2626", width: 2, points: { show: true } },
      ],
      axes: [{}, { label: "calls" }],
      scales: { y: { range: (u, min, max) => [0, Math.max(1, max)] } },
    }, data, chartBox);
  }

  range.addEventListener("change", load);
  document.getElementById("usage-refresh").addEventListener("click", load);
  window.addEventListener("resize", () => {
    if (chart && state.data) chart.setSize({ width: Math.max(320, chartBox.clientWidth), height: 220 });
  });
  // A snapshot comes at each (re)connection, with the person known: load then.
  sb.on("snapshot", () => {
    if (epoch !== sb.epoch()) {
      epoch = sb.epoch();
      load();
    }
  });
})();
