"""A following student's step, drawn in the browser from the class's step route.

A student following a class sees each step the instructor takes. Drawn by a script run of the
student's own session, a step costs the server a run and its elements per student (10–16 ms
each: a hall of 100 is more than a second of CPU per step). While the app is served with the
step route (``serve.py``, ``svmviz_app.step_feed``), a student's stepper draws this element
instead: it long-polls the route, and a new version that changes only this stepper's step and
the values its view binds (the instructor's page says which: each step's ``scope``), on the same
page, data, question and presence, is drawn by the browser from the payload every student of
the room is sent — the step's line and its figure, as the instructor's page drew them — with no
script run. Anything else (another page, a question asked, the reveal, the instructor away, the
class ended) sets the element's trigger, and the session takes it as a poll does
(``live.poll``), its page redrawn by Streamlit.

The element keeps the page's URL on the step it shows (the stepper's keys, as ``state``'s link
writes them), so a link copied from the address bar opens that step.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

# The script runs when the element mounts and again whenever its data changes, without the old
# run's cleanup: each run counts itself on the host and a loop ends once a newer run started.
_JS = r"""
export default function (component) {
    const d = component.data, host = component.parentElement;
    const gen = (host.svmvizStepGen || 0) + 1;
    host.svmvizStepGen = gen;
    if (host.svmvizStepAbort) host.svmvizStepAbort.abort();
    const abort = new AbortController();
    host.svmvizStepAbort = abort;
    const current = () => host.svmvizStepGen === gen;
    let root = host.querySelector(".svmviz-step");
    if (!root) {
        root = document.createElement("div");
        root.className = "svmviz-step";
        const line = document.createElement("p"), fig = document.createElement("div");
        line.className = "svmviz-step-line";
        fig.className = "svmviz-step-figure";
        root.append(line, fig);
        host.appendChild(root);
    }
    const line = root.querySelector(".svmviz-step-line"), fig = root.querySelector(".svmviz-step-figure");
    root.style.display = d.draw ? "" : "none";
    const canon = (v) => v === undefined ? "undefined" : JSON.stringify(v, (k, x) =>
        x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x);
    const qkey = (q) => q ? `${q.qid}.${q.revealed ? 1 : 0}` : "none";
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

    // "draw": the new version changes this stepper's step and what its view binds alone; "wait":
    // so far as it says, but the instructor's page has not drawn that step yet; "news": anything else
    function judge(p) {
        if (!d.draw)   // the page draws the steps: the session takes every change
            return p.version !== d.version || qkey(p.question) !== d.q || p.away !== d.away ? "news" : "wait";
        if (p.frame !== d.frame || qkey(p.question) !== d.q || p.away !== d.away) return "news";
        const s = p.steps && p.steps[d.step_key];
        const scope = new Set([d.step_key, ...(s ? s.scope : d.scope)]);
        for (const k of Object.keys(d.state)) if (!(k in p.state)) return "news";
        for (const k of Object.keys(p.state)) if (!scope.has(k) && canon(p.state[k]) !== canon(d.state[k])) return "news";
        return s && s.figure && s.k === p.state[d.step_key] ? "draw" : "wait";
    }
    function plotly() {
        if (window.Plotly) return Promise.resolve();
        if (!window.svmvizPlotly) window.svmvizPlotly = new Promise((ok, fail) => {
            const s = document.createElement("script");
            s.src = d.plotly; s.onload = ok; s.onerror = fail;
            document.head.appendChild(s);
        });
        return window.svmvizPlotly;
    }
    function keepUrl(state) {   // the address bar names the step shown, as the app's link does
        const url = new URL(window.location.href);
        for (const [k, dflt] of Object.entries(d.url)) {
            const v = state[k];
            if (v === undefined || v === dflt) url.searchParams.delete(k);
            else url.searchParams.set(k, typeof v === "boolean" ? (v ? "1" : "0") : String(v));
        }
        if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url.href);
    }
    async function draw(p) {
        const s = p.steps[d.step_key];
        await plotly();
        if (!current()) return;
        line.textContent = s.line;
        const layout = Object.assign({}, s.figure.layout, {autosize: true});
        await window.Plotly.react(fig, s.figure.data || [], layout, {responsive: true, displaylogo: false});
        fig.dataset.step = String(s.k);   // what the page shows (tests read it)
        keepUrl(p.state);
    }
    async function follow() {
        let since = null, figures = null;   // the first request answers at once: the class's step now
        while (current()) {
            const q = `?sid=${encodeURIComponent(d.sid)}` + (since === null ? "" : `&since=${since}&q=${d.q}&f=${figures}`);
            let r;
            try {
                r = await fetch(d.route + q, {signal: abort.signal, cache: "no-store"});
            } catch (e) {
                if (!current()) return;
                await sleep(2000);   // the network dropped: ask again
                continue;
            }
            if (!current()) return;
            // the class ended, or the seat is gone: the session says so
            if (r.status === 404 || r.status === 409) { component.setTriggerValue("news", Date.now()); return; }
            let p = null;
            if (r.ok) { try { p = await r.json(); } catch (e) { p = null; } }
            if (!current()) return;
            if (!p || typeof p.version !== "number") { await sleep(2000); continue; }   // the store is away: later
            if (p.version === since && p.figures === figures && qkey(p.question) === d.q && p.away === d.away) continue;   // the wait ran out
            const verdict = judge(p);
            since = p.version;
            figures = p.figures;
            if (verdict === "draw") {
                try { await draw(p); } catch (e) { component.setTriggerValue("news", p.version); return; }
            } else if (verdict === "news") {
                component.setTriggerValue("news", p.version);   // the session takes it; a redraw starts anew
                await sleep(2000);
            }
        }
    }
    follow();
    return () => { if (current()) abort.abort(); };
}
"""

_CSS = """
.svmviz-step-line { margin: 0 0 0.5rem 0; font-weight: 600; }
.svmviz-step-figure { width: 100%; min-height: 450px; }
"""

_element = st.components.v2.component("svmviz_live_step", js=_JS, css=_CSS, isolate_styles=False)


def draw(data: dict, on_news: Callable[[], None]) -> None:
    """The element, with ``data``: ``route`` (the step route of the class), ``plotly`` (the path of
    Plotly's script), ``step_key``, ``draw`` (the element draws the steps; else it only tells the
    session of every change: the page draws them), ``version`` (of the view the page was drawn
    with), ``frame`` (``step_feed.frame_digest`` of the view the page was
    drawn with), ``state`` (that view's bound values), ``q`` (its question, ``<qid>.<0|1>`` or
    ``none``), ``away``, ``sid`` (the student's client id: each request keeps their seat) and ``url`` ({key: default} of the keys the element keeps in the URL).
    ``on_news`` takes what the element cannot draw."""
    _element(data=data, key=f"live_step_{data['step_key']}", on_news_change=on_news)
