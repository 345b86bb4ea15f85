// Models on the Hugging Face Hub, read in place by the page: the engine plans
// which files to read (hubPlan), this module fetches them (the repo's file
// list, then byte ranges of the headers) from the Hub's hosts only, and only
// when the reader asks. Nothing is uploaded; answers are kept for the session.
import { SizerError, readGgufHeaders, readSafetensorsHeaders } from './engine.js';

// The Hub's address; tests set globalThis.LLMSIZER_HUB_URL to a stand-in.
export function hubBase() {
  return globalThis.LLMSIZER_HUB_URL ?? 'https://huggingface.co';
}

// owner/repo[:QUANT] or a huggingface.co link: what the model search offers to read.
const NAME = /^(?:(?:https?:\/\/)?(?:huggingface\.co|hf\.co)\/)?[A-Za-z0-9._-]{1,96}\/[A-Za-z0-9._-]{1,96}(?::[A-Za-z0-9._-]{1,40}|\/[A-Za-z0-9._\/-]*)?\/?$/;
export function looksLikeHubName(text) {
  return NAME.test(text.trim());
}

function refused(status, what) {
  if (status === 401 || status === 403) {
    return new SizerError('hub.gated', `${what} is gated or private (HTTP ${status}): accept its licence on the Hub, then paste its config.json below`);
  }
  if (status === 404) return new SizerError('hub.not_found', `${what} is not on the Hub (HTTP 404): check the name`);
  if (status === 429) return new SizerError('hub.rate_limited', 'the Hub is limiting requests (HTTP 429): wait a minute and try again');
  return new SizerError('hub.http', `the Hub answered HTTP ${status} for ${what}`);
}

async function get(url, what, init) {
  let answer;
  try {
    answer = await fetch(url, { credentials: 'omit', ...init });
  } catch {
    throw new SizerError('hub.network', `cannot reach ${new URL(url).host} for ${what}`);
  }
  if (answer.status !== 200 && answer.status !== 206) throw refused(answer.status, what);
  return answer;
}

// At most n bytes of an answer's body: a server that ignores the range sends
// the whole file, which is not read past what is needed.
async function leading(answer, n) {
  const reader = answer.body.getReader();
  const out = new Uint8Array(n);
  let have = 0;
  while (have < n) {
    const { value, done } = await reader.read();
    if (done) break;
    const take = Math.min(value.length, n - have);
    out.set(value.subarray(0, take), have);
    have += take;
  }
  await reader.cancel().catch(() => {});
  return out.buffer.slice(0, have);
}

// A file of the repo as the header readers use a local File: name, size and
// slices, each a range request. counter.requests counts them (the progress line).
function hubFile(base, entry, what, counter) {
  const url = base + entry.file_path;
  return {
    name: entry.path.split('/').pop(),
    size: entry.size,
    // A safetensors header is usually a few KB; a GGUF's holds its vocabulary (MBs).
    firstRead: entry.path.endsWith('.gguf') ? 1 << 20 : 1 << 16,
    slice(start, end) {
      return {
        async arrayBuffer() {
          counter.requests += 1;
          const answer = await get(url, what, { headers: { Range: `bytes=${start}-${end - 1}` } });
          if (answer.status === 200 && start > 0) throw new SizerError('hub.http', `${new URL(answer.url).host} ignored the byte range asked for ${what}`);
          return leading(answer, end - start);
        },
      };
    },
  };
}

async function text(url, what, counter) {
  counter.requests += 1;
  const answer = await get(url, what);
  return answer.text();
}

const cache = new Map();

// The model a Hub name stands for, read with the scenario's request:
// {kind: 'gguf' | 'safetensors' | 'config', label, ...the header readers' answer}
// or {kind: 'choose', quants, message}. progress(text) says what is being read.
export async function readHub(engine, name, request, progress = () => {}) {
  const key = `${hubBase()}|${name.trim()}`;
  if (cache.has(key)) return cache.get(key);
  await engine.loadFull();
  const base = hubBase();
  const first = engine.hubPlan({ name: name.trim() });
  const counter = { requests: 0 };
  progress(`Listing the files of ${first.repo}…`);
  const tree = await text(base + first.tree_path, `the repo ${first.repo}`, counter);
  const plan = engine.hubPlan({ name: name.trim(), tree });
  let read;
  if (plan.kind === 'choose') {
    read = { kind: 'choose', repo: first.repo, quants: plan.quants, message: plan.message };
  } else if (plan.kind === 'gguf') {
    progress(`Reading the GGUF header of ${plan.label} (${plan.headers.length} file${plan.headers.length > 1 ? 's' : ''})…`);
    const files = plan.headers.map((h) => hubFile(base, h, `${first.repo}/${h.path}`, counter));
    read = { kind: 'gguf', ...(await readGgufHeaders(engine, files, request)) };
  } else {
    progress(`Reading ${first.repo}/config.json…`);
    const config = await text(base + plan.config_path, `${first.repo}/config.json`, counter);
    if (plan.kind === 'config') {
      read = { kind: 'config', config };
    } else {
      const files = [new File([config], 'config.json')];
      if (plan.index_path) files.push(new File([await text(base + plan.index_path, `${first.repo}/model.safetensors.index.json`, counter)], 'model.safetensors.index.json'));
      progress(`Reading the safetensors headers of ${first.repo} (${plan.headers.length} file${plan.headers.length === 1 ? '' : 's'})…`);
      files.push(...plan.headers.map((h) => hubFile(base, h, `${first.repo}/${h.path}`, counter)));
      read = { kind: 'safetensors', ...(await readSafetensorsHeaders(engine, files, request)) };
    }
  }
  const answer = { ...read, label: plan.label, repo: first.repo, requests: counter.requests };
  cache.set(key, answer);
  return answer;
}
