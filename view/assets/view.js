// ocbench view: draws the trace in window.ocbData (view.Data) and exposes
// what it drew, and the state under the cursor, as window.ocbView.
"use strict";
(function () {
  const D = window.ocbData;
  const K = { REQUEST: 0, ENTER: 1, EXIT: 2, SEND: 3, RECV: 4, DROP: 5, CRASH: 6, RECOVER: 7, FATHER: 8, FAULT: 9, CORRUPT: 10, LEGIT: 11, DESTROY: 12 };
  const KNAME = ["request", "enter", "exit", "send", "recv", "drop", "crash", "recover", "father", "fault", "corrupt", "legitimate", "destroy"];
  const N = D.nodes, nE = D.t.length, nM = D.msgId.length;
  const T = D.t, KIND = D.kind, NODE = D.node, ARG = D.arg;
  const DELTA = D.delta > 0 ? D.delta : 1e-3; // δ in seconds (view.Data.Delta)
  const isTok = new Uint8Array(D.types.length);
  D.tokenTypes.forEach(function (k) { isTok[k] = 1; });
  // A type's colour is fixed by its name (Go's palette.Message), the same in every page.
  function typeColor(ty) { return D.typeColors[ty]; }
  const $ = function (id) { return document.getElementById(id); };

  // ---- the messages' times ----
  const mS = new Float64Array(nM), mE = new Float64Array(nM), mFate = new Uint8Array(nM); // fate: 0 received, 1 dropped, 2 in flight, 3 destroyed
  // maxDelay bounds how long before a window a message that reaches it
  // was sent, but for the few still in flight at the end (openMsgs).
  let maxDelay = 0;
  const openMsgs = [];
  for (let m = 0; m < nM; m++) {
    mS[m] = T[D.msgSend[m]];
    const e = D.msgEnd[m];
    if (e < 0) { mE[m] = D.end; mFate[m] = 2; openMsgs.push(m); continue; }
    mE[m] = T[e]; mFate[m] = KIND[e] === K.DROP ? 1 : KIND[e] === K.DESTROY ? 3 : 0;
    maxDelay = Math.max(maxDelay, mE[m] - mS[m]);
  }
  // visibleMsgs calls f for every message whose arrow crosses [a, b].
  function visibleMsgs(a, b, f) {
    const lo = lowerBound(mS, a - maxDelay, 0, nM), hi = upperBound(mS, b, lo, nM);
    for (const m of openMsgs) if (m < lo && mE[m] >= a) f(m);
    for (let m = lo; m < hi; m++) if (mE[m] >= a) f(m);
  }

  // ---- the state of the run after an event ----
  function newState() {
    return { father: new Int32Array(N).fill(-1), down: new Uint8Array(N), inCS: new Uint8Array(N), waiting: new Uint8Array(N), hold: new Uint8Array(N), regen: 0 };
  }
  function copyState(s) {
    return { father: s.father.slice(), down: s.down.slice(), inCS: s.inCS.slice(), waiting: s.waiting.slice(), hold: s.hold.slice(), regen: s.regen };
  }
  // The token's holder: before any token moves, the sender of the first
  // token message (if it is sent before any is received); then the node
  // that last received one, until it sends it on or crashes. A token sent
  // by a node that did not hold it was regenerated there.
  let initialHolder = -1;
  for (let k = 0; k < nE; k++) {
    const kd = KIND[k];
    if ((kd === K.SEND || kd === K.RECV || kd === K.DROP || kd === K.DESTROY) && isTok[D.msgType[ARG[k]]]) {
      if (kd === K.SEND) initialHolder = NODE[k];
      break;
    }
  }
  function apply(s, k) {
    const n = NODE[k];
    switch (KIND[k]) {
      case K.REQUEST: s.waiting[n] = 1; break;
      case K.ENTER: s.waiting[n] = 0; s.inCS[n] = 1; break;
      case K.EXIT: s.inCS[n] = 0; break;
      case K.SEND:
        if (isTok[D.msgType[ARG[k]]]) { if (!s.hold[n]) s.regen++; s.hold[n] = 0; }
        break;
      case K.RECV:
        if (isTok[D.msgType[ARG[k]]]) s.hold[n] = 1;
        break;
      case K.CRASH: s.down[n] = 1; s.inCS[n] = 0; s.waiting[n] = 0; s.hold[n] = 0; break;
      case K.RECOVER: s.down[n] = 0; break;
      case K.FATHER: s.father[n] = ARG[k]; break;
    }
  }
  const s0 = newState();
  if (initialHolder >= 0) s0.hold[initialHolder] = 1;
  // Checkpoints: the state before event c·C, so that any instant is at
  // most C events of replay away.
  const C = Math.max(256, Math.ceil(nE * Math.max(N, 1) / 4e6));
  const checkpoints = [];
  const intervals = { cs: [], down: [], hold: [] }; // [node, from, to] as flat triples
  const crashes = [], recovers = [], requests = [], regens = [], sysEvents = [];
  (function scan() {
    const s = copyState(s0);
    const csFrom = new Float64Array(N).fill(-1), downFrom = new Float64Array(N).fill(-1), holdFrom = new Float64Array(N).fill(-1);
    if (initialHolder >= 0) holdFrom[initialHolder] = T[0];
    function close(list, from, n, t) { if (from[n] >= 0) { list.push(n, from[n], t); from[n] = -1; } }
    for (let k = 0; k < nE; k++) {
      if (k % C === 0) checkpoints.push(copyState(s));
      const n = NODE[k], t = T[k], kd = KIND[k];
      const wasHolding = n >= 0 ? s.hold[n] : 0;
      const regenBefore = s.regen;
      apply(s, k);
      switch (kd) {
        case K.ENTER: csFrom[n] = t; break;
        case K.EXIT: close(intervals.cs, csFrom, n, t); break;
        case K.CRASH: close(intervals.cs, csFrom, n, t); close(intervals.hold, holdFrom, n, t); downFrom[n] = t; crashes.push(k); break;
        case K.RECOVER: close(intervals.down, downFrom, n, t); recovers.push(k); break;
        case K.REQUEST: requests.push(k); break;
        case K.SEND: if (wasHolding && !s.hold[n]) close(intervals.hold, holdFrom, n, t); if (s.regen > regenBefore) regens.push(k); break;
        case K.RECV: if (s.hold[n] && holdFrom[n] < 0) holdFrom[n] = t; break;
        case K.FAULT: case K.LEGIT: case K.CORRUPT: sysEvents.push(k); break;
      }
    }
    for (let n = 0; n < N; n++) {
      close(intervals.cs, csFrom, n, D.end);
      close(intervals.down, downFrom, n, D.end);
      close(intervals.hold, holdFrom, n, D.end);
    }
  })();
  function stateAt(idx) { // after event idx (-1: before the first)
    const c = Math.floor((idx + 1) / C);
    const s = c < checkpoints.length ? copyState(checkpoints[c]) : copyState(s0);
    for (let k = c < checkpoints.length ? c * C : 0; k <= idx; k++) apply(s, k);
    return s;
  }
  function upperBound(arr, x, lo, hi) { // first index in [lo,hi) with arr[i] > x
    while (lo < hi) { const mid = (lo + hi) >> 1; if (arr[mid] > x) hi = mid; else lo = mid + 1; }
    return lo;
  }
  function lowerBound(arr, x, lo, hi) { // first index with arr[i] >= x
    while (lo < hi) { const mid = (lo + hi) >> 1; if (arr[mid] >= x) hi = mid; else lo = mid + 1; }
    return lo;
  }

  // ---- the view ----
  let lead = 0; // the father lines at the start: the initial tree
  while (lead < nE && KIND[lead] === K.FATHER && T[lead] === T[0]) lead++;
  const V = {
    v0: 0, v1: 1, row0: 0, rowH: 12, idx: lead - 1, state: null, hoverT: null,
    selNode: -1, selMsg: -1, typeFilter: -1, playing: false, speed: 1, lastFrame: 0,
  };
  V.state = stateAt(V.idx);
  const st = $("st"), tree = $("tree");
  const LEFT = 46, TOP = 22, RIGHT = 10, BOTTOM = 6;
  let W = 0, H = 0, dpr = 1;

  function fitTime() {
    const a = T[0], b = D.end, span = b > a ? b - a : 1e-3;
    V.v0 = a - 0.02 * span; V.v1 = b + 0.02 * span;
  }
  function availRows() { return H - TOP - BOTTOM; }
  function fitRows() {
    V.rowH = Math.max(3, Math.min(90, availRows() / Math.max(N, 1)));
    V.row0 = 0;
  }
  function xOf(t) { return LEFT + (t - V.v0) / (V.v1 - V.v0) * (W - LEFT - RIGHT); }
  function tOf(x) { return V.v0 + (x - LEFT) / (W - LEFT - RIGHT) * (V.v1 - V.v0); }
  function yOf(n) { return TOP + (n - V.row0) * V.rowH + V.rowH / 2; }
  function rowVisible(n) { const y = yOf(n); return y >= TOP - V.rowH && y <= H + V.rowH; }
  function clampRows() {
    const maxRow0 = Math.max(0, N - availRows() / V.rowH);
    V.row0 = Math.min(Math.max(0, V.row0), maxRow0);
  }
  // A trace's times are seconds; the page gives them in δ, the unit of
  // the run's tables (fmtT), and δ's value in seconds.
  function fmtT(t) { return +(t / DELTA).toPrecision(6) + "δ"; }
  function fmtSeconds(s) {
    const a = Math.abs(s);
    if (a < 1e-3) return +(s * 1e6).toPrecision(4) + " µs";
    if (a < 1) return +(s * 1e3).toPrecision(5) + " ms";
    return +s.toPrecision(6) + " s";
  }
  function niceStep(span, px) {
    const raw = span / Math.max(1, px / 90), p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const f of [1, 2, 5, 10]) if (f * p >= raw) return f * p;
    return 10 * p;
  }

  const drawn = { messages: 0, crashes: [], recovers: 0, cs: 0, tokenHolds: 0, ms: 0, treeNodes: 0, treeEdges: 0, ticks: [] };
  function resize() {
    dpr = window.devicePixelRatio || 1;
    const r = st.parentElement.getBoundingClientRect();
    W = Math.max(200, r.width); H = Math.max(120, r.height);
    st.width = Math.round(W * dpr); st.height = Math.round(H * dpr);
    const tr = tree.getBoundingClientRect();
    tree.width = Math.round(tr.width * dpr); tree.height = Math.round(tr.height * dpr);
  }

  function draw() {
    const t0 = performance.now();
    const g = st.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, W, H);
    g.fillStyle = "#fff"; g.fillRect(0, 0, W, H);
    const x0 = LEFT, x1 = W - RIGHT;
    // the time axis, its ticks at round numbers of δ
    const step = niceStep((V.v1 - V.v0) / DELTA, x1 - x0) * DELTA;
    g.font = "11px system-ui, sans-serif"; g.fillStyle = "#555"; g.strokeStyle = "#eee"; g.lineWidth = 1;
    g.textAlign = "center";
    drawn.ticks = [];
    for (let t = Math.ceil(V.v0 / step) * step; t <= V.v1; t += step) {
      const x = xOf(t);
      g.beginPath(); g.moveTo(x, TOP - 4); g.lineTo(x, H); g.stroke();
      g.fillText(fmtT(t), x, 13);
      drawn.ticks.push(fmtT(t));
    }
    // the node lines
    const rFirst = Math.max(0, Math.floor(V.row0)), rLast = Math.min(N - 1, Math.ceil(V.row0 + availRows() / V.rowH));
    g.textAlign = "right"; g.textBaseline = "middle";
    const labelEvery = Math.max(1, Math.ceil(11 / V.rowH));
    for (let n = rFirst; n <= rLast; n++) {
      const y = yOf(n);
      if (n === V.selNode) { g.fillStyle = "#fff59d"; g.fillRect(0, y - V.rowH / 2, W, V.rowH); }
      g.strokeStyle = "#ccc"; g.beginPath(); g.moveTo(x0, y); g.lineTo(x1, y); g.stroke();
      if (n % labelEvery === 0 || n === V.selNode) { g.fillStyle = "#333"; g.fillText(String(n), LEFT - 6, y); }
    }
    g.save();
    g.beginPath(); g.rect(x0, TOP - 2, x1 - x0, H - TOP); g.clip();
    // down intervals, token holds, critical sections
    function bars(list, color, h, dy, dash) {
      let count = 0;
      g.fillStyle = color;
      for (let i = 0; i < list.length; i += 3) {
        const n = list[i], a = list[i + 1], b = list[i + 2];
        if (b < V.v0 || a > V.v1 || n < rFirst || n > rLast) continue;
        const xa = Math.max(x0 - 2, xOf(a)), xb = Math.min(x1 + 2, xOf(b));
        if (dash) {
          g.strokeStyle = color; g.setLineDash([4, 3]); g.lineWidth = Math.max(1, h);
          g.beginPath(); g.moveTo(xa, yOf(n) + dy); g.lineTo(xb, yOf(n) + dy); g.stroke(); g.setLineDash([]);
        } else {
          g.fillRect(xa, yOf(n) + dy - h / 2, Math.max(1, xb - xa), h);
        }
        count++;
      }
      return count;
    }
    const hb = Math.max(2, Math.min(8, V.rowH * 0.45));
    bars(intervals.down, "#9e9e9e", Math.max(1, hb / 3), 0, true);
    drawn.tokenHolds = bars(intervals.hold, "rgba(255,193,7,0.55)", hb * 1.4, 0, false);
    drawn.cs = bars(intervals.cs, "#111", hb * 0.7, 0, false);
    // requests: a small tick above the line
    g.strokeStyle = "#1565c0"; g.lineWidth = 1; g.beginPath();
    for (const k of requests) {
      const t = T[k], n = NODE[k];
      if (t < V.v0 || t > V.v1 || n < rFirst || n > rLast) continue;
      const x = xOf(t), y = yOf(n);
      g.moveTo(x, y); g.lineTo(x, y - Math.max(3, hb));
    }
    g.stroke();
    // messages, a path per type
    const byType = D.types.map(function () { return []; });
    let count = 0;
    visibleMsgs(V.v0, V.v1, function (m) {
      const a = D.msgFrom[m], b = D.msgTo[m];
      if ((a < rFirst && b < rFirst) || (a > rLast && b > rLast)) return;
      byType[D.msgType[m]].push(m);
      count++;
    });
    const heads = count < 4000;
    const ends = [];
    // Thousands of arrows overlap: fainter, so that density shows.
    const alpha = Math.max(0.2, Math.min(1, 1500 / Math.max(1, count)));
    for (let ty = 0; ty < byType.length; ty++) {
      const list = byType[ty];
      if (!list.length) continue;
      g.globalAlpha = V.typeFilter >= 0 && V.typeFilter !== ty ? 0.12 * alpha : alpha;
      g.strokeStyle = typeColor(ty); g.fillStyle = g.strokeStyle;
      g.lineWidth = isTok[ty] ? 2.2 : 1;
      g.beginPath();
      for (const m of list) {
        const xa = xOf(mS[m]), ya = yOf(D.msgFrom[m]), xb = xOf(mE[m]), yb = yOf(D.msgTo[m]);
        g.moveTo(xa, ya); g.lineTo(xb, yb);
        if (mFate[m] !== 0) ends.push(m);
      }
      g.stroke();
      if (heads) {
        g.beginPath();
        for (const m of list) {
          if (mFate[m] === 2) continue;
          const xa = xOf(mS[m]), ya = yOf(D.msgFrom[m]), xb = xOf(mE[m]), yb = yOf(D.msgTo[m]);
          const len = Math.hypot(xb - xa, yb - ya);
          if (len < 10) continue;
          const ux = (xb - xa) / len, uy = (yb - ya) / len, s = isTok[ty] ? 7 : 5;
          g.moveTo(xb, yb); g.lineTo(xb - s * ux + s * 0.45 * uy, yb - s * uy - s * 0.45 * ux);
          g.lineTo(xb - s * ux - s * 0.45 * uy, yb - s * uy + s * 0.45 * ux); g.closePath();
        }
        g.fill();
      }
    }
    g.globalAlpha = 1;
    drawn.messages = count;
    // drops (×) and messages still in flight at the end (○)
    g.lineWidth = 1.5;
    for (const m of ends) {
      const x = xOf(mE[m]), y = yOf(D.msgTo[m]);
      g.strokeStyle = mFate[m] === 3 ? "#6a1b9a" : "#d32f2f"; g.beginPath();
      if (mFate[m] === 1 || mFate[m] === 3) { g.moveTo(x - 3, y - 3); g.lineTo(x + 3, y + 3); g.moveTo(x + 3, y - 3); g.lineTo(x - 3, y + 3); } else { g.arc(x, y, 3, 0, 2 * Math.PI); }
      g.stroke();
    }
    // the selected message
    if (V.selMsg >= 0) {
      const m = V.selMsg;
      g.strokeStyle = "#000"; g.lineWidth = 3.5;
      g.beginPath(); g.moveTo(xOf(mS[m]), yOf(D.msgFrom[m])); g.lineTo(xOf(mE[m]), yOf(D.msgTo[m])); g.stroke();
    }
    // token regenerations (◆), crashes (✕), recoveries (○)
    const ms = Math.max(4, Math.min(8, V.rowH * 0.6));
    g.fillStyle = "#c88a00";
    for (const k of regens) {
      const x = xOf(T[k]), y = yOf(NODE[k]);
      if (T[k] < V.v0 || T[k] > V.v1 || !rowVisible(NODE[k])) continue;
      g.beginPath(); g.moveTo(x, y - ms); g.lineTo(x + ms, y); g.lineTo(x, y + ms); g.lineTo(x - ms, y); g.closePath(); g.fill();
    }
    drawn.crashes = [];
    g.strokeStyle = "#d32f2f"; g.lineWidth = 2.5;
    for (const k of crashes) {
      const n = NODE[k], t = T[k];
      if (t < V.v0 || t > V.v1 || n < rFirst || n > rLast) continue;
      const x = xOf(t), y = yOf(n);
      g.beginPath(); g.moveTo(x - ms, y - ms); g.lineTo(x + ms, y + ms); g.moveTo(x + ms, y - ms); g.lineTo(x - ms, y + ms); g.stroke();
      drawn.crashes.push([n, t]);
    }
    drawn.recovers = 0;
    g.strokeStyle = "#2e7d32"; g.lineWidth = 2;
    for (const k of recovers) {
      const n = NODE[k], t = T[k];
      if (t < V.v0 || t > V.v1 || n < rFirst || n > rLast) continue;
      g.beginPath(); g.arc(xOf(t), yOf(n), ms * 0.8, 0, 2 * Math.PI); g.stroke();
      drawn.recovers++;
    }
    // events of the whole system (transient faults, legitimacy)
    for (const k of sysEvents) {
      if (NODE[k] >= 0 || T[k] < V.v0 || T[k] > V.v1) continue;
      g.strokeStyle = KIND[k] === K.FAULT ? "#d32f2f" : "#2e7d32"; g.lineWidth = 1; g.setLineDash([2, 2]);
      g.beginPath(); g.moveTo(xOf(T[k]), TOP); g.lineTo(xOf(T[k]), H); g.stroke(); g.setLineDash([]);
    }
    // the cursor, and the time under the mouse
    if (V.idx >= 0) {
      const x = xOf(T[V.idx]);
      g.strokeStyle = "#1565c0"; g.lineWidth = 1.5;
      g.beginPath(); g.moveTo(x, TOP - 4); g.lineTo(x, H); g.stroke();
      if (NODE[V.idx] >= 0 && rowVisible(NODE[V.idx])) {
        g.beginPath(); g.arc(x, yOf(NODE[V.idx]), ms, 0, 2 * Math.PI); g.stroke();
      }
    }
    g.restore();
    drawn.ms = performance.now() - t0;
    drawTree();
    showState();
  }

  // ---- the tree ----
  function drawTree() {
    const g = tree.getContext("2d");
    const w = tree.width / dpr, h = tree.height / dpr, s = V.state;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    g.fillStyle = "#fff"; g.fillRect(0, 0, w, h);
    g.font = "12px system-ui, sans-serif"; g.fillStyle = "#333"; g.textAlign = "left"; g.textBaseline = "top";
    drawn.treeNodes = 0; drawn.treeEdges = 0;
    if (!D.fathers) {
      g.fillText("No father lines in this trace: the tree is not recorded", 8, 6);
      g.fillText("(the simulator and MPI in virtual time write them for the", 8, 22);
      g.fillText("token-and-tree algorithms). The nodes' states:", 8, 38);
      if (N > 1024) return;
      const cols = Math.ceil(Math.sqrt(N)), rows = Math.ceil(N / cols);
      const cw = (w - 16) / cols, ch = Math.min(cw, (h - 60) / rows), r = Math.max(2, Math.min(10, Math.min(cw, ch) * 0.4));
      for (let n = 0; n < N; n++) node(g, n, 8 + cw * (n % cols + 0.5), 56 + ch * (Math.floor(n / cols) + 0.5), r);
      return;
    }
    if (N > 1024) { g.fillText("N = " + N + ": the tree is drawn for N ≤ 1024.", 8, 8); return; }
    const t = V.idx >= 0 ? T[V.idx] : T[0];
    g.fillText("father relation at t = " + fmtT(t), 8, 6);
    // children lists; roots: no father (or a father out of range); nodes on
    // a cycle of fathers, which no root reaches, start a tree of their own
    const kids = [];
    for (let n = 0; n < N; n++) kids.push([]);
    const roots = [];
    for (let n = 0; n < N; n++) {
      const f = s.father[n];
      if (f < 0 || f >= N || f === n) roots.push(n); else kids[f].push(n);
    }
    const depth = new Int32Array(N).fill(-1), xs = new Float64Array(N);
    let leaves = 0, maxDepth = 0;
    function place(root) {
      const stack = [[root, 0, 0]]; // node, depth, next child
      depth[root] = 0;
      while (stack.length) {
        const top = stack[stack.length - 1], n = top[0];
        if (top[2] < kids[n].length) {
          const c = kids[n][top[2]++];
          if (depth[c] >= 0) continue;
          depth[c] = top[1] + 1; maxDepth = Math.max(maxDepth, depth[c]);
          stack.push([c, top[1] + 1, 0]);
          continue;
        }
        let sum = 0, cnt = 0;
        for (const c of kids[n]) if (depth[c] === top[1] + 1) { sum += xs[c]; cnt++; }
        xs[n] = cnt ? sum / cnt : leaves++;
        stack.pop();
      }
    }
    for (const r of roots) place(r);
    let cycles = 0;
    for (let n = 0; n < N; n++) if (depth[n] < 0) { cycles++; roots.push(n); place(n); }
    const padX = 14, padTop = 30, padBottom = 14;
    const sx = leaves > 1 ? (w - 2 * padX) / (leaves - 1) : 0, sy = maxDepth > 0 ? Math.min(48, (h - padTop - padBottom) / maxDepth) : 0;
    const px = function (n) { return leaves > 1 ? padX + xs[n] * sx : w / 2; };
    const py = function (n) { return padTop + depth[n] * sy; };
    g.lineWidth = 1;
    for (let n = 0; n < N; n++) {
      const f = s.father[n];
      if (f < 0 || f >= N || f === n || depth[n] !== depth[f] + 1) continue;
      g.strokeStyle = s.down[n] || s.down[f] ? "#bbb" : "#607d8b";
      g.beginPath(); g.moveTo(px(n), py(n)); g.lineTo(px(f), py(f)); g.stroke();
      drawn.treeEdges++;
    }
    const r = Math.max(2, Math.min(10, sx * 0.42 || 10));
    for (let n = 0; n < N; n++) node(g, n, px(n), py(n), r);
    g.textAlign = "right"; g.textBaseline = "top"; g.fillStyle = "#555"; g.font = "11px system-ui, sans-serif";
    g.fillText(roots.length + (roots.length === 1 ? " root" : " roots") + (cycles ? ", " + cycles + " on cycles" : ""), w - 8, 6);
  }
  // node draws node n at (x, y), radius r, filled by its state.
  function node(g, n, x, y, r) {
    const s = V.state;
    g.textAlign = "center"; g.textBaseline = "middle"; g.font = (r >= 7 ? 10 : 8) + "px system-ui, sans-serif";
    g.fillStyle = s.down[n] ? "#bdbdbd" : s.hold[n] ? "#ffc107" : s.inCS[n] ? "#111" : s.waiting[n] ? "#90caf9" : "#fff";
    g.strokeStyle = n === V.selNode ? "#e65100" : s.inCS[n] ? "#111" : "#37474f";
    g.lineWidth = n === V.selNode || s.inCS[n] ? 2.5 : 1;
    g.beginPath(); g.arc(x, y, r, 0, 2 * Math.PI); g.fill(); g.stroke();
    if (s.down[n]) { g.strokeStyle = "#d32f2f"; g.lineWidth = 1.5; g.beginPath(); g.moveTo(x - r, y - r); g.lineTo(x + r, y + r); g.moveTo(x + r, y - r); g.lineTo(x - r, y + r); g.stroke(); }
    if (r >= 6) { g.fillStyle = s.inCS[n] && !s.hold[n] && !s.down[n] ? "#fff" : "#000"; g.fillText(String(n), x, y + 0.5); }
    drawn.treeNodes++;
  }


  // ---- text ----
  function describe(k) {
    if (k < 0) return "before the first event";
    const kd = KIND[k], n = NODE[k];
    let s = "#" + k + "  t=" + fmtT(T[k]) + "  " + (n >= 0 ? "node " + n + " " : "system ") + KNAME[kd];
    if (kd === K.SEND || kd === K.RECV || kd === K.DROP || kd === K.DESTROY) {
      const m = ARG[k];
      s += " " + D.types[D.msgType[m]] + " " + D.msgFrom[m] + "→" + D.msgTo[m] + " (msg " + D.msgId[m] + ")";
    } else if (kd === K.FATHER) {
      s += " := " + (ARG[k] < 0 ? "none" : ARG[k]);
    }
    return s;
  }
  function holders() { const h = []; for (let n = 0; n < N; n++) if (V.state.hold[n]) h.push(n); return h; }
  function listOf(a) { const out = []; for (let n = 0; n < N; n++) if (a[n]) out.push(n); return out; }
  function short(list) { return list.length > 24 ? list.slice(0, 24).join(" ") + " … (" + list.length + ")" : list.join(" ") || "none"; }
  function tokensInFlight() {
    const out = [];
    const t = V.idx >= 0 ? T[V.idx] : -Infinity;
    visibleMsgs(t, t, function (m) {
      if (!isTok[D.msgType[m]] || D.msgSend[m] > V.idx) return;
      const e = D.msgEnd[m];
      if (e < 0 || e > V.idx) out.push(D.msgFrom[m] + "→" + D.msgTo[m]);
    });
    return out;
  }
  function showState() {
    const s = V.state, h = holders(), fl = tokensInFlight();
    let txt = describe(V.idx) + "\n\n";
    txt += "token at:     " + (h.length ? h.join(" ") : fl.length ? "in flight " + fl.join(", ") : D.tokenTypes.length ? "nowhere (lost, or not yet regenerated)" : "(no token type)") + "\n";
    if (h.length && fl.length) txt += "in flight:    " + fl.join(", ") + "\n";
    txt += "in CS:        " + short(listOf(s.inCS)) + "\n";
    txt += "requesting:   " + short(listOf(s.waiting)) + "\n";
    txt += "down:         " + short(listOf(s.down)) + "\n";
    if (D.fathers && N <= 64) {
      const f = [];
      for (let n = 0; n < N; n++) f.push(n + "→" + (s.father[n] < 0 ? "·" : s.father[n]));
      txt += "fathers:      " + f.join(" ") + "\n";
    }
    txt += "regenerated:  " + s.regen + " token(s) so far\n";
    $("state").textContent = txt;
    $("summary").textContent = N + " nodes · " + nE + " events · " + nM + " messages · " + crashes.length + " crashes · to t=" + fmtT(D.end) + " · δ = " + fmtSeconds(DELTA);
  }
  function legend() {
    const el = $("legend");
    const parts = [];
    D.types.forEach(function (name, ty) {
      parts.push('<span class="sw" style="background:' + typeColor(ty) + '"></span>' + escapeHTML(name));
    });
    el.innerHTML = "messages: " + parts.join("") +
      '<br>nodes: <span class="sw" style="background:#111"></span>in CS<span class="sw" style="background:#ffc107"></span>token held' +
      '<span class="sw" style="background:#90caf9"></span>requesting (tree)<span class="sw" style="background:#9e9e9e"></span>down · <span style="color:#d32f2f">✕</span> crash · <span style="color:#2e7d32">○</span> recovery · <span style="color:#c88a00">◆</span> token regenerated · <span style="color:#d32f2f">× ○</span> <span style="color:#6a1b9a">×</span> at an arrow\'s end: dropped, in flight at the end, destroyed by a fault';
  }
  function escapeHTML(s) { return String(s).replace(/[&<>"']/g, function (c) { return "&#" + c.charCodeAt(0) + ";"; }); }

  // ---- the cursor ----
  function setIndex(i) {
    i = Math.max(-1, Math.min(nE - 1, i));
    if (i === V.idx) return;
    if (i === V.idx + 1) apply(V.state, i); else V.state = stateAt(i);
    V.idx = i;
  }
  function follow() { // keep the cursor in view
    if (V.idx < 0) return;
    const t = T[V.idx], span = V.v1 - V.v0;
    if (t < V.v0 || t > V.v1 - 0.05 * span) { V.v0 = t - 0.1 * span; V.v1 = V.v0 + span; }
  }
  let pending = false;
  function redraw() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; draw(); });
  }
  function step(d) { stop(); setIndex(V.idx + d); follow(); draw(); }
  function zoom(f, x) { // around x, or the cursor if it is in view, or the middle
    let t = tOf(x === undefined ? (LEFT + W - RIGHT) / 2 : x);
    if (x === undefined && V.idx >= 0 && T[V.idx] >= V.v0 && T[V.idx] <= V.v1) t = T[V.idx];
    V.v0 = t - (t - V.v0) * f; V.v1 = t + (V.v1 - t) * f;
    draw();
  }
  function play() {
    if (V.playing) { stop(); return; }
    if (V.idx >= nE - 1) setIndex(lead - 1);
    V.playing = true; $("play").textContent = "❚❚ pause"; V.lastFrame = performance.now();
    requestAnimationFrame(tick);
  }
  function stop() { V.playing = false; $("play").textContent = "▶ play"; }
  function tick(now) {
    if (!V.playing) return;
    const dt = Math.min(0.1, (now - V.lastFrame) / 1000);
    V.lastFrame = now;
    const tNow = (V.idx >= 0 ? T[V.idx] : T[0]) + dt * V.speed * (V.v1 - V.v0) / 10;
    const target = upperBound(T, tNow, 0, nE) - 1;
    let i = V.idx;
    while (i < target) setIndex(++i);
    if (target === V.idx && V.idx < nE - 1 && T[V.idx + 1] <= tNow) setIndex(V.idx + 1);
    follow(); draw();
    if (V.idx >= nE - 1) { stop(); return; }
    requestAnimationFrame(tick);
  }

  // ---- search ----
  function find(q) {
    q = q.trim();
    const out = $("found");
    V.selNode = -1; V.selMsg = -1; V.typeFilter = -1;
    if (q === "") { out.textContent = ""; draw(); return; }
    let m;
    if ((m = /^(?:node\s*|n)?(\d+)$/i.exec(q)) && +m[1] < N && !/^(msg|m|#)/i.test(q)) {
      const n = +m[1];
      V.selNode = n;
      const rows = availRows() / V.rowH;
      if (n < V.row0 || n > V.row0 + rows - 1) { V.row0 = n - rows / 2; clampRows(); }
      let req = 0, cs = 0, cr = 0, sent = 0;
      for (const k of requests) if (NODE[k] === n) req++;
      for (let i = 0; i < intervals.cs.length; i += 3) if (intervals.cs[i] === n) cs++;
      for (const k of crashes) if (NODE[k] === n) cr++;
      for (let i = 0; i < nM; i++) if (D.msgFrom[i] === n) sent++;
      out.textContent = "node " + n + ": " + req + " requests, " + cs + " critical sections, " + sent + " messages sent, " + cr + " crashes";
      draw();
      return;
    }
    if ((m = /^(?:msg\s*|m|#)?\s*(\d+)$/i.exec(q))) {
      const i = D.msgId.indexOf(m[1]);
      if (i >= 0) { selectMsg(i, true); return; }
    }
    const ty = D.types.findIndex(function (name) { return name.toLowerCase() === q.toLowerCase(); });
    if (ty >= 0) {
      let c = 0, first = -1;
      for (let i = 0; i < nM; i++) if (D.msgType[i] === ty) { c++; if (first < 0) first = i; }
      V.typeFilter = ty;
      out.textContent = c + " " + D.types[ty] + " messages (the others dimmed)";
      draw();
      return;
    }
    out.textContent = "no node (0…" + (N - 1) + "), message number or type (" + D.types.join(", ") + ") matches \u201c" + q + "\u201d";
    draw();
  }
  function selectMsg(i, center) {
    V.selMsg = i;
    const e = D.msgEnd[i];
    $("found").textContent = "msg " + D.msgId[i] + ": " + D.types[D.msgType[i]] + " " + D.msgFrom[i] + "→" + D.msgTo[i] +
      ", sent at " + fmtT(mS[i]) + (e < 0 ? ", in flight at the end" : [", received at ", ", dropped at ", "", ", destroyed by a fault at "][mFate[i]] + fmtT(mE[i]));
    if (center) {
      stop();
      setIndex(D.msgSend[i]);
      const span = Math.min(V.v1 - V.v0, Math.max(20 * (mE[i] - mS[i]), 1e-9));
      const mid = (mS[i] + mE[i]) / 2;
      V.v0 = mid - span / 2; V.v1 = mid + span / 2;
      const rows = availRows() / V.rowH, lo = Math.min(D.msgFrom[i], D.msgTo[i]), hi = Math.max(D.msgFrom[i], D.msgTo[i]);
      if (lo < V.row0 || hi > V.row0 + rows - 1) { V.row0 = (lo + hi) / 2 - rows / 2; clampRows(); }
    }
    draw();
  }
  function nearestMsg(x, y) {
    let best = -1, bd = 5;
    visibleMsgs(V.v0, V.v1, function (m) {
      const xa = xOf(mS[m]), ya = yOf(D.msgFrom[m]), xb = xOf(mE[m]), yb = yOf(D.msgTo[m]);
      const dx = xb - xa, dy = yb - ya, l2 = dx * dx + dy * dy;
      const u = l2 ? Math.max(0, Math.min(1, ((x - xa) * dx + (y - ya) * dy) / l2)) : 0;
      const d = Math.hypot(xa + u * dx - x, ya + u * dy - y);
      if (d < bd) { bd = d; best = m; }
    });
    return best;
  }

  // ---- input ----
  let drag = null;
  st.addEventListener("mousedown", function (e) { drag = { x: e.offsetX, y: e.offsetY, v0: V.v0, v1: V.v1, row0: V.row0, moved: false }; });
  window.addEventListener("mouseup", function (e) {
    if (drag && !drag.moved && e.target === st) {
      const m = nearestMsg(e.offsetX, e.offsetY);
      if (m >= 0) selectMsg(m, false);
    }
    drag = null;
  });
  st.addEventListener("mousemove", function (e) {
    if (drag) {
      const dx = e.offsetX - drag.x, dy = e.offsetY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        const dt = dx / (W - LEFT - RIGHT) * (drag.v1 - drag.v0);
        V.v0 = drag.v0 - dt; V.v1 = drag.v1 - dt; V.row0 = drag.row0 - dy / V.rowH; clampRows();
        redraw();
      }
      return;
    }
    if (V.playing || e.offsetX < LEFT) return;
    const i = upperBound(T, tOf(e.offsetX), 0, nE) - 1;
    if (i !== V.idx) { setIndex(i); redraw(); }
  });
  st.addEventListener("wheel", function (e) {
    e.preventDefault();
    if (e.shiftKey) { V.row0 += Math.sign(e.deltaY || e.deltaX) * Math.max(1, 3 * 12 / V.rowH); clampRows(); redraw(); return; }
    if (e.ctrlKey) { V.rowH = Math.max(3, Math.min(60, V.rowH * (e.deltaY > 0 ? 0.85 : 1.18))); clampRows(); redraw(); return; }
    zoom(e.deltaY > 0 ? 1.25 : 0.8, e.offsetX);
  }, { passive: false });
  $("first").onclick = function () { stop(); setIndex(lead - 1); fitTime(); draw(); };
  $("last").onclick = function () { stop(); setIndex(nE - 1); follow(); draw(); };
  $("prev").onclick = function () { step(-1); };
  $("next").onclick = function () { step(1); };
  $("play").onclick = play;
  $("speed").onchange = function () { V.speed = +this.value; };
  $("zoomin").onclick = function () { zoom(0.5); };
  $("zoomout").onclick = function () { zoom(2); };
  $("fit").onclick = function () { fitTime(); fitRows(); draw(); };
  $("find").onclick = function () { find($("search").value); };
  $("search").addEventListener("keydown", function (e) { if (e.key === "Enter") find(this.value); e.stopPropagation(); });
  window.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.target.tagName === "BUTTON" && (e.key === " " || e.key === "Enter")) return; // the button's own click
    const act = { ArrowRight: function () { step(1); }, ArrowLeft: function () { step(-1); }, " ": play, "+": function () { zoom(0.5); }, "=": function () { zoom(0.5); }, "-": function () { zoom(2); }, "0": function () { fitTime(); fitRows(); draw(); }, Home: function () { $("first").onclick(); }, End: function () { $("last").onclick(); } }[e.key];
    if (act) { e.preventDefault(); act(); }
  });
  window.addEventListener("resize", function () { resize(); clampRows(); draw(); });

  if (D.warning) { const w = $("warning"); w.textContent = "This trace breaks a check (it is drawn anyway): " + D.warning; w.hidden = false; }
  document.title = "ocbench view: " + D.title;
  resize(); fitTime(); fitRows(); legend(); draw();

  // What a test (or a console) can read: counts are the last draw's.
  window.ocbView = {
    ready: true,
    nodes: N, events: nE,
    drawn: drawn,
    cursor: function () { return { index: V.idx, t: V.idx >= 0 ? T[V.idx] : null, event: describe(V.idx) }; },
    holders: holders,
    fathers: function () { return Array.from(V.state.father); },
    down: function () { return listOf(V.state.down); },
    view: function () { return { t0: V.v0, t1: V.v1, row0: V.row0, rowH: V.rowH }; },
    timeAt: tOf, // the time at x pixels from the diagram's left edge
    nextTime: function () { return V.idx + 1 < nE ? T[V.idx + 1] : null; },
    playing: function () { return V.playing; },
    step: step, find: find, draw: draw,
  };
})();
