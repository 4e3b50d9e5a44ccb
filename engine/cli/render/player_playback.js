  // Drawing on demand and playback, shared by the planar and the space players (the page
  // includes this file at its mark): a draw waits for the next animation frame or a timer,
  // whichever comes first (for hidden or headless pages); the frame follows the clock
  // (fps x speed), looping, and frames are skipped, never queued.
  let pending = false, drawRaf = 0, drawTimer = 0;
  function requestDraw() {
    if (pending) return;
    pending = true;
    drawRaf = requestAnimationFrame(flush); drawTimer = setTimeout(flush, 50);
  }
  function flush() { cancelAnimationFrame(drawRaf); clearTimeout(drawTimer); pending = false; draw(); }

  let playing = false, speed = 1, t0 = 0, f0 = 0, loopRaf = 0, loopTimer = 0;
  function loop() {
    cancelAnimationFrame(loopRaf); clearTimeout(loopTimer);
    if (!playing) return;
    const k = (f0 + Math.floor(((performance.now() - t0) / 1000) * D.fps * speed)) % F;
    if (k !== cur) { cur = k; draw(); }
    loopRaf = requestAnimationFrame(loop); loopTimer = setTimeout(loop, 30);
  }
  function setPlaying(on) {
    playing = on && F > 1;
    playBtn.textContent = playing ? "Pause" : "Play";
    if (playing) { t0 = performance.now(); f0 = cur; loop(); } else { cancelAnimationFrame(loopRaf); clearTimeout(loopTimer); }
  }
  function seek(k) {
    cur = Math.max(0, Math.min(F - 1, k));
    if (playing) { t0 = performance.now(); f0 = cur; }
    draw();
  }

  playBtn.addEventListener("click", () => setPlaying(!playing));
  $("back").addEventListener("click", () => seek(cur - 1));
  $("next").addEventListener("click", () => seek(cur + 1));
  scrub.addEventListener("input", () => seek(Number(scrub.value)));
  speedSel.addEventListener("change", () => {
    speed = Number(speedSel.value) || 1;
    if (playing) { t0 = performance.now(); f0 = cur; }
  });
