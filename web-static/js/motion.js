// @ts-check
/**
 * Shake detection from DeviceMotion. iOS asks for permission, and only from a
 * user gesture, so `needsPermission()` tells the page to show a button whose
 * click calls `enable()`.
 */

const THRESHOLD = 14; // m/s², acceleration beyond gravity that counts as a jolt
const JOLTS = 3; // jolts within WINDOW_MS make a shake
const WINDOW_MS = 900;
const COOLDOWN_MS = 1800;

export class ShakeDetector {
  /** @param {() => void} onShake */
  constructor(onShake) {
    this.onShake = onShake;
    /** @type {number[]} */
    this.jolts = [];
    this.last = 0;
    this.listening = false;
    this.handler = (/** @type {DeviceMotionEvent} */ e) => this.motion(e);
  }

  /** Phones and tablets only: a desktop has no motion worth asking about. */
  static available() {
    return typeof window.DeviceMotionEvent !== "undefined" && window.matchMedia("(pointer: coarse)").matches;
  }

  static needsPermission() {
    return ShakeDetector.available() && typeof (/** @type {any} */ (window.DeviceMotionEvent)).requestPermission === "function";
  }

  /** Starts listening; on iOS call it from a click. @returns {Promise<boolean>} */
  async enable() {
    if (!ShakeDetector.available()) return false;
    if (ShakeDetector.needsPermission()) {
      try {
        const answer = await (/** @type {any} */ (window.DeviceMotionEvent)).requestPermission();
        if (answer !== "granted") return false;
      } catch {
        return false;
      }
    }
    if (!this.listening) {
      window.addEventListener("devicemotion", this.handler);
      this.listening = true;
    }
    return true;
  }

  disable() {
    window.removeEventListener("devicemotion", this.handler);
    this.listening = false;
  }

  /** @param {DeviceMotionEvent} e */
  motion(e) {
    let magnitude;
    const a = e.acceleration;
    if (a && a.x !== null && a.y !== null && a.z !== null) {
      magnitude = Math.hypot(a.x, a.y, a.z);
    } else {
      const g = e.accelerationIncludingGravity;
      if (!g || g.x === null || g.y === null || g.z === null) return;
      magnitude = Math.abs(Math.hypot(g.x, g.y, g.z) - 9.81);
    }
    if (magnitude < THRESHOLD) return;
    const now = performance.now();
    this.jolts = this.jolts.filter((t) => now - t < WINDOW_MS);
    this.jolts.push(now);
    if (this.jolts.length >= JOLTS && now - this.last > COOLDOWN_MS) {
      this.last = now;
      this.jolts = [];
      this.onShake();
    }
  }
}
