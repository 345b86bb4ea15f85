// Streams placeholder tokens at the engine's estimated decode rate, after the
// estimated time to first token, so the speed can be felt, not just read.
import { noSpeedNote } from './speed-text.js';

const WORDS = ['the', 'model', 'streams', 'tokens', 'at', 'this', 'rate', 'once', 'the', 'prompt', 'is', 'read;',
  'each', 'word', 'here', 'stands', 'for', 'one', 'token', 'of', 'output', 'from', 'your', 'hardware.'];

export class TokenStream {
  constructor(target) {
    this.target = target;
    this.timer = null;
  }

  toggle(result, button) {
    if (this.timer) {
      this.stop(button);
      return;
    }
    const rate = result?.speed?.decode_tokens_per_s;
    if (!rate) {
      this.target.textContent = result?.memory?.fits === false
        ? 'As set it does not fit: apply a change listed under the verdict to hear its speed.'
        : noSpeedNote(result?.memory?.fits, Boolean(result?.scenario?.gpu));
      return;
    }
    button.textContent = 'Stop';
    this.target.textContent = '';
    let count = 0;
    const started = performance.now() + (result.speed.ttft_s || 0) * 1000;
    const tick = () => {
      const due = Math.floor(((performance.now() - started) / 1000) * rate);
      while (count < due && count < 600) {
        this.target.append(`${WORDS[count % WORDS.length]} `);
        count += 1;
      }
      if (count >= 600) this.stop(button);
    };
    this.timer = setInterval(tick, 50);
  }

  stop(button) {
    clearInterval(this.timer);
    this.timer = null;
    button.textContent = 'Play';
  }
}
