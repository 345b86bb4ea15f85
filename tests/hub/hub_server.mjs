// A stand-in for the Hugging Face Hub over a folder of repos (ROOT/owner/repo/...),
// in the Hub's URL layout, for tests without the network:
//   GET /api/models/OWNER/REPO/tree/main?recursive=true  the file list (lfs.size for large files)
//   GET /OWNER/REPO/resolve/main/PATH                     the file, with Range; files over 1 MiB
//                                                         redirect to another host (/cdn/...), as the Hub's CDN
// Owners with a meaning: "gated" answers 401 without `Authorization: Bearer test-token`,
// "private" 403 always, "busy" 429. Prints "hub: http://127.0.0.1:PORT/" once listening.
//   node tests/hub/hub_server.mjs ROOT [--port 0]
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, normalize, sep } from 'node:path';

const root = process.argv[2];
const portAt = process.argv.indexOf('--port');
const port = portAt > 0 ? Number(process.argv[portAt + 1]) : 0;
const LARGE = 1 << 20;
const NAME = /^[A-Za-z0-9._-]+$/;

// A path below root made of allowed segments, or null.
function inside(...segments) {
  if (!segments.every((s) => NAME.test(s) && s !== '.' && s !== '..')) return null;
  const path = normalize(join(root, ...segments));
  return path.startsWith(normalize(root) + sep) ? path : null;
}

function files(dir, prefix = '') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) return [{ type: 'directory', path }, ...files(join(dir, e.name), path)];
    const size = statSync(join(dir, e.name)).size;
    return [size > LARGE ? { type: 'file', path, size: 134, lfs: { size } } : { type: 'file', path, size }];
  });
}

// The Hub answers pages of any origin (CORS), as huggingface.co does.
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'range, authorization',
  'access-control-expose-headers': 'content-range, content-length',
};

function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...CORS, ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

function serveFile(req, res, path) {
  let size;
  try {
    const info = statSync(path);
    if (!info.isFile()) return send(res, 404, { error: 'Entry not found' });
    size = info.size;
  } catch {
    return send(res, 404, { error: 'Entry not found' });
  }
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (!range) {
    res.writeHead(200, { 'content-length': size, 'accept-ranges': 'bytes', ...CORS });
    return createReadStream(path).pipe(res);
  }
  const start = Number(range[1]);
  const end = Math.min(range[2] === '' ? size - 1 : Number(range[2]), size - 1);
  if (start >= size || end < start) return send(res, 416, '', { 'content-range': `bytes */${size}` });
  res.writeHead(206, { 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${size}`, ...CORS });
  createReadStream(path, { start, end }).pipe(res);
}

// The owner's rule: null to go on, else the status to answer.
function refused(owner, req) {
  if (owner === 'busy') return 429;
  if (owner === 'private') return 403;
  if (owner === 'gated' && req.headers.authorization !== 'Bearer test-token') return 401;
  return null;
}

const server = createServer((req, res) => {
  if (req.method === 'OPTIONS') return send(res, 204, '');
  const url = new URL(req.url, 'http://hub');
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'api' && parts[1] === 'models' && parts[4] === 'tree' && parts[5] === 'main' && parts.length === 6) {
    const status = refused(parts[2], req);
    if (status) return send(res, status, { error: 'refused' });
    const dir = inside(parts[2], parts[3]);
    if (!dir) return send(res, 404, { error: 'Repository not found' });
    try {
      return send(res, 200, files(dir));
    } catch {
      return send(res, 404, { error: 'Repository not found' });
    }
  }
  if (parts[0] === 'cdn' && parts.length >= 4) {
    // The Hub's token is for the Hub's host only.
    if (req.headers.authorization) return send(res, 400, { error: 'a token was sent to the CDN host' });
    const path = inside(...parts.slice(1));
    return path ? serveFile(req, res, path) : send(res, 404, { error: 'Entry not found' });
  }
  if (parts.length >= 5 && parts[2] === 'resolve' && parts[3] === 'main') {
    const status = refused(parts[0], req);
    if (status) return send(res, status, { error: 'refused' });
    const path = inside(parts[0], parts[1], ...parts.slice(4));
    if (!path) return send(res, 404, { error: 'Entry not found' });
    let size = -1;
    try {
      size = statSync(path).size;
    } catch {
      return send(res, 404, { error: 'Entry not found' });
    }
    if (size > LARGE) {
      // Another host name for the same server: a client must follow, and must not send the token there.
      const cdn = `http://localhost:${server.address().port}/cdn/${[parts[0], parts[1], ...parts.slice(4)].map(encodeURIComponent).join('/')}`;
      return send(res, 302, '', { location: cdn });
    }
    return serveFile(req, res, path);
  }
  send(res, 404, { error: 'Not found' });
});

server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`hub: http://127.0.0.1:${server.address().port}/\n`);
});
