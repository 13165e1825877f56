// The page of `cpsudoku serve`: plain JavaScript, no build step. Each part of the
// page updates as its answer arrives: rules as read, the drawing, the status with
// its explanation, the true candidates, a count's progress.
"use strict";

const $ = (id) => document.getElementById(id);
let generation = 0;  // answers to an older puzzle are dropped
let controllers = [];

function body() {
  const text = $("puzzle").value.trim();
  return { puzzle: text };
}

async function post(name, payload, signal) {
  const response = await fetch("/api/" + name, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(payload),
    signal,
  });
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("svg") ? { svg: await response.text() } : await response.json();
  data.httpStatus = response.status;
  return data;
}

function setStatus(word, text) {
  const el = $("status");
  el.className = "status " + word;
  el.dataset.status = word;
  el.textContent = text;
}

function list(el, lines) {
  el.replaceChildren(...lines.map((line) => {
    const li = document.createElement("li");
    li.textContent = line;
    return li;
  }));
}

function showSvg(svg) {
  $("picture").innerHTML = svg;
}

function abortAll() {
  for (const c of controllers) c.abort();
  controllers = [];
}

async function read() {
  abortAll();
  const mine = ++generation;
  const controller = new AbortController();
  controllers.push(controller);
  const signal = controller.signal;
  const payload = body();
  $("counted").textContent = "";
  $("download").replaceChildren();
  list($("explain"), []);
  setStatus("working", "reading...");
  try {
    const shown = await post("show", payload, signal);
    if (mine !== generation) return;
    if (shown.httpStatus !== 200) {
      setStatus("invalid", "invalid: " + shown.error);
      list($("rules"), []);
      $("picture").replaceChildren();
      return;
    }
    $("title").textContent = shown.title || "";
    list($("rules"), shown.lines);
    list($("notes"), shown.notes || []);
    $("json").textContent = JSON.stringify({ rules: shown.rules, puzzle: shown.puzzle });
    const drawn = await post("draw", payload, signal);
    if (mine !== generation) return;
    if (drawn.svg) showSvg(drawn.svg);
    setStatus("working", "solving...");
    const why = await post("explain", payload, signal);
    if (mine !== generation) return;
    if (why.httpStatus !== 200) {
      setStatus("invalid", "invalid: " + why.error);
      return;
    }
    setStatus(why.status, why.lines[0]);
    list($("explain"), why.lines);
    if (why.status === "unsolvable" || why.status === "multiple") showSvg(why.svg);
    if ($("marks").checked && why.status !== "unsolvable") {
      // Pencil marks, with the cells the explanation points at still highlighted.
      const highlight = why.cells || [];
      const marked = await post("draw", { ...payload, candidates: true, highlight }, signal);
      if (mine !== generation) return;
      if (marked.svg) showSvg(marked.svg);
      $("picture").dataset.candidates = "shown";
    }
  } catch (err) {
    if (err.name !== "AbortError") setStatus("invalid", "error: " + err.message);
  }
}

async function count() {
  const controller = new AbortController();
  controllers.push(controller);
  const out = $("counted");
  out.textContent = "counting...";
  try {
    const response = await fetch("/api/count", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...body(), limit: 0 }),
      signal: controller.signal,
    });
    if (response.status !== 200) {
      out.textContent = "invalid: " + (await response.json()).error;
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let nl;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const msg = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if ("progress" in msg) out.textContent = "found " + msg.progress + " solutions so far...";
        else if (msg.status === "timeout") out.textContent = "time limit reached: " + (msg.count ?? "some") + " solutions at least";
        else if (msg.complete) out.textContent = "exactly " + msg.count + " solution" + (msg.count === 1 ? "" : "s");
        else if ("count" in msg) out.textContent = "at least " + msg.count + " solutions";
      }
    }
  } catch (err) {
    if (err.name !== "AbortError") out.textContent = "error: " + err.message;
  }
}

async function certify() {
  const where = $("download");
  where.textContent = "making the certificate...";
  const answer = await post("certify", body());
  if (!answer.certified) {
    where.textContent = "no certificate: " + (answer.reason || answer.error);
    return;
  }
  const link = document.createElement("a");
  link.href = "data:application/zip;base64," + answer.zip;
  link.download = "certificate.zip";
  link.textContent = "download the certificate (" + answer.proof_bytes + " bytes of proof; " + answer.verdict + ")";
  where.replaceChildren(link);
}

let timer = null;
$("puzzle").addEventListener("input", () => {
  clearTimeout(timer);
  timer = setTimeout(read, 400);
});
$("read").addEventListener("click", () => {
  clearTimeout(timer);  // the pending read of the same text is this one
  read();
});
$("count").addEventListener("click", count);
$("certify").addEventListener("click", certify);
$("marks").addEventListener("change", read);
