/* The labelling page's editor (templates/labels.html, web/labels_page.py). Plain JS, no build step.
 *
 * The mask lives in an off-screen canvas the size of the capture: opaque white where there is nail, transparent
 * elsewhere. The visible canvas shows the photo with the mask tinted over it through one view transform (zoom,
 * pan). Every change snapshots the mask first, so undo and redo are whole-mask steps. On accept the mask goes to
 * HQ as an 8-bit greyscale PNG (0 / 255, one channel: what HQ keeps and exports) in the form's `mask` field.
 */
(function () {
  "use strict";
  const root = document.getElementById("labeller");
  if (!root) return;
  const W = Number(root.dataset.width), H = Number(root.dataset.height);
  const canvas = document.getElementById("label-canvas");
  const ctx = canvas.getContext("2d");
  const mask = document.createElement("canvas");
  mask.width = W; mask.height = H;
  const mctx = mask.getContext("2d", { willReadFrequently: true });
  const tint = document.createElement("canvas");
  tint.width = W; tint.height = H;
  const tctx = tint.getContext("2d");
  const photo = new Image();
  const errorLine = document.getElementById("label-error");
  const form = document.getElementById("label-form");
  const sizeInput = document.getElementById("brush-size");
  const UNDO_LIMIT = 40;

  const state = { tool: "brush", undo: [], redo: [], poly: [], stroke: null, pan: null, space: false };
  const view = { scale: 1, x: 0, y: 0 };

  // ---- view ---------------------------------------------------------------------------------------------------
  function fit() {
    view.scale = Math.min(canvas.width / W, canvas.height / H);
    view.x = (canvas.width - W * view.scale) / 2;
    view.y = (canvas.height - H * view.scale) / 2;
    render();
  }

  function zoomAt(factor, cx, cy) {
    const scale = Math.min(64, Math.max(0.1, view.scale * factor));
    view.x = cx - (cx - view.x) * (scale / view.scale);
    view.y = cy - (cy - view.y) * (scale / view.scale);
    view.scale = scale;
    render();
  }

  function zoomTo(box) {  // [left, top, right, bottom] in capture pixels, with a margin
    const [l, t, r, b] = box;
    const w = Math.max(8, r - l), h = Math.max(8, b - t);
    view.scale = Math.min(canvas.width / (w * 1.8), canvas.height / (h * 1.8), 64);
    view.x = canvas.width / 2 - (l + w / 2) * view.scale;
    view.y = canvas.height / 2 - (t + h / 2) * view.scale;
    render();
  }

  function canvasPoint(event) {  // the event in canvas pixels
    const rect = canvas.getBoundingClientRect();
    return [(event.clientX - rect.left) * (canvas.width / rect.width),
            (event.clientY - rect.top) * (canvas.height / rect.height)];
  }

  function toImage(p) {
    return [(p[0] - view.x) / view.scale, (p[1] - view.y) / view.scale];
  }

  function render() {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.setTransform(view.scale, 0, 0, view.scale, view.x, view.y);
    ctx.imageSmoothingEnabled = view.scale < 2;
    if (photo.complete && photo.naturalWidth) ctx.drawImage(photo, 0, 0, W, H);
    tctx.globalCompositeOperation = "copy";
    tctx.drawImage(mask, 0, 0);
    tctx.globalCompositeOperation = "source-in";
    tctx.fillStyle = "rgb(255, 0, 140)";
    tctx.fillRect(0, 0, W, H);
    ctx.globalAlpha = 0.45;
    ctx.drawImage(tint, 0, 0);
    ctx.globalAlpha = 1;
    if (state.poly.length) {
      ctx.lineWidth = 1.5 / view.scale;
      ctx.strokeStyle = "#00e0ff";
      ctx.beginPath();
      state.poly.forEach((p, i) => (i ? ctx.lineTo(p[0], p[1]) : ctx.moveTo(p[0], p[1])));
      ctx.stroke();
      ctx.fillStyle = "#00e0ff";
      for (const p of state.poly) ctx.fillRect(p[0] - 2 / view.scale, p[1] - 2 / view.scale, 4 / view.scale, 4 / view.scale);
    }
  }

  // ---- editing ------------------------------------------------------------------------------------------------
  function snapshot() {
    state.undo.push(mctx.getImageData(0, 0, W, H));
    if (state.undo.length > UNDO_LIMIT) state.undo.shift();
    state.redo = [];
  }

  function undo() {
    if (state.poly.length) { state.poly = []; render(); return; }
    if (!state.undo.length) return;
    state.redo.push(mctx.getImageData(0, 0, W, H));
    mctx.putImageData(state.undo.pop(), 0, 0);
    render();
  }

  function redo() {
    if (!state.redo.length) return;
    state.undo.push(mctx.getImageData(0, 0, W, H));
    mctx.putImageData(state.redo.pop(), 0, 0);
    render();
  }

  function paintTo(p) {
    mctx.globalCompositeOperation = state.tool === "eraser" ? "destination-out" : "source-over";
    mctx.strokeStyle = mctx.fillStyle = "#fff";
    mctx.lineWidth = Number(sizeInput.value);
    mctx.lineCap = mctx.lineJoin = "round";
    const from = state.stroke || p;
    mctx.beginPath();
    mctx.moveTo(from[0], from[1]);
    mctx.lineTo(p[0] + 0.01, p[1]);
    mctx.stroke();
    state.stroke = p;
    render();
  }

  function closePolygon() {
    if (state.poly.length < 3) return;
    snapshot();
    mctx.globalCompositeOperation = "source-over";
    mctx.fillStyle = "#fff";
    mctx.beginPath();
    state.poly.forEach((p, i) => (i ? mctx.lineTo(p[0], p[1]) : mctx.moveTo(p[0], p[1])));
    mctx.closePath();
    mctx.fill();
    state.poly = [];
    render();
  }

  function setTool(tool) {
    state.tool = tool;
    state.poly = [];
    for (const b of document.querySelectorAll("button.tool")) b.classList.toggle("active", b.dataset.tool === tool);
    render();
  }

  canvas.addEventListener("pointerdown", (event) => {
    const p = canvasPoint(event);
    canvas.focus({ preventScroll: true });
    if (event.button === 1 || state.space) {
      state.pan = { from: p, x: view.x, y: view.y };
      canvas.classList.add("panning");
      canvas.setPointerCapture(event.pointerId);
      event.preventDefault();
      return;
    }
    if (event.button !== 0) return;
    const q = toImage(p);
    if (state.tool === "polygon") {
      const first = state.poly[0];
      if (first && state.poly.length >= 3 && Math.hypot((first[0] - q[0]) * view.scale, (first[1] - q[1]) * view.scale) < 8) {
        closePolygon();
      } else {
        state.poly.push(q);
        render();
      }
      return;
    }
    snapshot();
    state.stroke = null;
    canvas.setPointerCapture(event.pointerId);
    paintTo(q);
  });

  canvas.addEventListener("pointermove", (event) => {
    const p = canvasPoint(event);
    if (state.pan) {
      view.x = state.pan.x + p[0] - state.pan.from[0];
      view.y = state.pan.y + p[1] - state.pan.from[1];
      render();
    } else if (state.stroke) {
      paintTo(toImage(p));
    }
  });

  function endPointer() {
    state.stroke = null;
    state.pan = null;
    canvas.classList.remove("panning");
  }
  canvas.addEventListener("pointerup", endPointer);
  canvas.addEventListener("pointercancel", endPointer);
  canvas.addEventListener("auxclick", (event) => event.preventDefault());
  canvas.addEventListener("wheel", (event) => {
    event.preventDefault();
    const p = canvasPoint(event);
    zoomAt(event.deltaY < 0 ? 1.2 : 1 / 1.2, p[0], p[1]);
  }, { passive: false });

  // ---- deciding -----------------------------------------------------------------------------------------------
  const CRC = (() => {
    const table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
    return table;
  })();

  function crc32(bytes) {
    let c = 0xffffffff;
    for (let i = 0; i < bytes.length; i++) c = CRC[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  }

  function chunk(type, data) {
    const out = new Uint8Array(12 + data.length);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, data.length);
    for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
    out.set(data, 8);
    dv.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
    return out;
  }

  async function maskDataUrl() {  // the mask as an 8-bit greyscale PNG: 255 nail, 0 not
    const rgba = mctx.getImageData(0, 0, W, H).data;
    const raw = new Uint8Array(H * (W + 1));
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) raw[y * (W + 1) + 1 + x] = rgba[(y * W + x) * 4 + 3] >= 128 ? 255 : 0;
    }
    const stream = new Blob([raw]).stream().pipeThrough(new CompressionStream("deflate"));
    const idat = new Uint8Array(await new Response(stream).arrayBuffer());
    const header = new Uint8Array(13);
    const hv = new DataView(header.buffer);
    hv.setUint32(0, W); hv.setUint32(4, H); header[8] = 8; header[9] = 0;
    const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", idat),
                   chunk("IEND", new Uint8Array(0))];
    let binary = "";
    for (const part of parts) {
      for (let i = 0; i < part.length; i += 0x8000) binary += String.fromCharCode.apply(null, part.subarray(i, i + 0x8000));
    }
    return "data:image/png;base64," + btoa(binary);
  }

  function refuse(message, focus) {
    errorLine.textContent = message;
    if (focus) focus.focus();
  }

  async function decide(decision) {
    errorLine.textContent = "";
    const skin = document.getElementById("skin-tone"), kind = document.getElementById("nail-kind");
    const reason = document.getElementById("reject-reason");
    if (decision === "accepted" && (!skin.value || !kind.value)) {
      refuse(root.dataset.needFacts, skin.value ? kind : skin);
      return;
    }
    if (decision === "rejected" && !reason.value) {
      refuse(root.dataset.needReason, reason);
      return;
    }
    if (decision !== "rejected") reason.value = "";
    document.getElementById("decision").value = decision;
    document.getElementById("mask").value = decision === "accepted" ? await maskDataUrl() : "";
    form.submit();
  }

  // ---- controls and keys --------------------------------------------------------------------------------------
  for (const b of document.querySelectorAll("button.tool")) b.addEventListener("click", () => setTool(b.dataset.tool));
  for (const b of document.querySelectorAll("button.nail")) {
    b.addEventListener("click", () => zoomTo(b.dataset.box.split(",").map(Number)));
  }
  for (const id of ["skin-tone", "nail-kind", "reject-reason"]) {
    document.getElementById(id).addEventListener("change", () => { errorLine.textContent = ""; });
  }
  sizeInput.addEventListener("input", () => { document.getElementById("brush-size-value").textContent = sizeInput.value; });
  document.getElementById("undo").addEventListener("click", undo);
  document.getElementById("redo").addEventListener("click", redo);
  document.getElementById("zoom-in").addEventListener("click", () => zoomAt(1.25, canvas.width / 2, canvas.height / 2));
  document.getElementById("zoom-out").addEventListener("click", () => zoomAt(0.8, canvas.width / 2, canvas.height / 2));
  document.getElementById("zoom-fit").addEventListener("click", fit);
  document.getElementById("accept").addEventListener("click", () => decide("accepted"));
  document.getElementById("skip").addEventListener("click", () => decide("skipped"));
  document.getElementById("reject").addEventListener("click", () => decide("rejected"));

  document.addEventListener("keydown", (event) => {
    const typing = event.target.closest && event.target.closest("input, select, textarea");
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    const key = event.key.toLowerCase();
    const actions = {
      b: () => setTool("brush"), e: () => setTool("eraser"), p: () => setTool("polygon"),
      z: () => (event.shiftKey ? redo() : undo()), a: () => decide("accepted"), s: () => decide("skipped"),
      r: () => decide("rejected"), "+": () => zoomAt(1.25, canvas.width / 2, canvas.height / 2),
      "=": () => zoomAt(1.25, canvas.width / 2, canvas.height / 2), "-": () => zoomAt(0.8, canvas.width / 2, canvas.height / 2),
      "0": fit, enter: closePolygon, escape: () => { state.poly = []; render(); },
    };
    if (key === " ") {
      state.space = true;
      canvas.classList.add("panning");
      event.preventDefault();
      return;
    }
    if (actions[key]) {
      event.preventDefault();
      actions[key]();
    }
  });
  document.addEventListener("keyup", (event) => {
    if (event.key === " ") {
      state.space = false;
      if (!state.pan) canvas.classList.remove("panning");
    }
  });

  // ---- start: the photo, then the mask to start from (the newest label, the kiosk's proposal, or none) ---------
  function loadStart() {
    if (!root.dataset.start) { root.dataset.ready = "1"; return; }
    const start = new Image();
    start.onload = () => {
      const scratch = document.createElement("canvas");
      scratch.width = W; scratch.height = H;
      const sctx = scratch.getContext("2d", { willReadFrequently: true });
      sctx.drawImage(start, 0, 0, W, H);
      const pixels = sctx.getImageData(0, 0, W, H);
      const d = pixels.data;
      for (let i = 0; i < d.length; i += 4) {
        const on = d[i] >= 128 && d[i + 3] >= 128;
        d[i] = d[i + 1] = d[i + 2] = 255;
        d[i + 3] = on ? 255 : 0;
      }
      mctx.putImageData(pixels, 0, 0);
      render();
      root.dataset.ready = "1";
    };
    start.onerror = () => { root.dataset.ready = "1"; };
    start.src = root.dataset.start;
  }

  photo.onload = () => { fit(); loadStart(); };
  photo.onerror = () => { fit(); loadStart(); };
  photo.src = root.dataset.image;
  // For the browser test: where a capture pixel is on the canvas element (CSS pixels from its top-left).
  window.nmLabel = {
    toCanvas: (x, y) => {
      const rect = canvas.getBoundingClientRect();
      return [(x * view.scale + view.x) * (rect.width / canvas.width), (y * view.scale + view.y) * (rect.height / canvas.height)];
    },
  };
})();
