/**
 * Every file servebench reads has a size cap and is validated: for each reader, an oversized file
 * (a sparse file one byte over the cap: refused by size before anything is read), a malformed one,
 * a FIFO (refused without blocking) and bad UTF-8 all give one-line InputFileErrors naming the
 * file, the line or JSON path, and the reason.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputFileError, UsageError } from '../../src/util/errors.js';
import { readInputFile } from '../../src/util/read-file.js';
import { MAX_RESULT_BYTES, readResultFile } from '../../src/result/io.js';
import { loadDataset, MAX_DATASET_BYTES } from '../../src/config/dataset-file.js';
import { loadTrace, MAX_TRACE_BYTES } from '../../src/schedule/trace.js';
import { loadManifestTier, MAX_MANIFEST_BYTES } from '../../src/config/manifest.js';
import { loadSimConfigFile, MAX_SIM_CONFIG_BYTES } from '../../src/sim/config.js';
import { MAX_BUCKET_FILE_BYTES, parseContextBuckets } from '../../src/config/buckets-file.js';
import { loadHfTokenizer, MAX_TOKENIZER_BYTES } from '../../src/target/tokenizer-file.js';
import { MAX_API_KEY_FILE_BYTES, readApiKeyFile, resolveApiKey } from '../../src/config/api-key.js';
import { MAX_JOURNAL_BYTES } from '../../src/report/open-input.js';
import { main } from '../../src/cli/main.js';
import { parseFlags } from '../../src/cli/parse.js';
import { RUN_FLAGS } from '../../src/cli/options.js';
import { resolveRunConfig } from '../../src/config/run-config.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-inputs-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** A new file holding `content`, or a sparse file of `size` bytes. */
function file(content: string | Buffer | { size: number }, name = `f${n++}`): string {
  const path = join(dir, name);
  if (typeof content === 'object' && !Buffer.isBuffer(content)) {
    writeFileSync(path, '');
    truncateSync(path, content.size);
  } else {
    writeFileSync(path, content);
  }
  return path;
}
function fifo(): string {
  const path = join(dir, `fifo${n++}`);
  execFileSync('mkfifo', [path]);
  return path;
}

/** Runs `read` (sync or async) and checks the InputFileError: one line, names `where`, problem matches. */
async function refused(read: () => unknown, where: string, problem: RegExp): Promise<void> {
  let caught: unknown = null;
  try {
    await read();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof InputFileError, `expected InputFileError, got ${String(caught)}`);
  assert.ok(caught.file.startsWith(where), `${caught.file} names ${where}`);
  assert.match(caught.problem, problem);
  assert.ok(!caught.message.includes('\n'), 'one line');
}

/** Runs `servebench rebuild FILE` in process; returns exit code and stderr. */
async function rebuild(path: string): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main(['rebuild', path, '--output', join(dir, `rebuilt${n++}.json`)], {
    stdout: () => {},
    stderr: (t) => (stderr += t),
    env: {},
    cwd: dir,
    isTTY: false,
    onSignal: () => () => {},
    now: () => new Date(),
  });
  return { code, stderr };
}

interface Reader {
  name: string;
  cap: number;
  read: (path: string) => unknown;
  malformed: { content: string; where: (path: string) => string; problem: RegExp };
}

const READERS: Reader[] = [
  {
    name: 'result file',
    cap: MAX_RESULT_BYTES,
    read: (p) => readResultFile(p),
    malformed: {
      content: '{"schema": "anvil-serving.benchmark/v1",\n "requests": }',
      where: (p) => p,
      problem: /not valid JSON/,
    },
  },
  {
    name: 'dataset (JSONL)',
    cap: MAX_DATASET_BYTES,
    read: (p) => loadDataset(p),
    malformed: {
      content: '{"prompt": "a"}\n{"prompt": 3}\n',
      where: (p) => `${p}:2`,
      problem: /field 'prompt' must be a string/,
    },
  },
  {
    name: 'dataset (ShareGPT)',
    cap: MAX_DATASET_BYTES,
    read: (p) => loadDataset(p),
    malformed: {
      content: '[{"conversations": [{"from": "alien", "value": "x"}]}]',
      where: (p) => `${p}[0]`,
      problem: /conversations\[0\]\.from': unknown speaker 'alien'/,
    },
  },
  {
    name: 'trace',
    cap: MAX_TRACE_BYTES,
    read: (p) => loadTrace(p),
    malformed: {
      content:
        '{"timestamp": 0, "input_length": 100, "output_length": 5}\n{"timestamp": 5, "input_length": -1, "output_length": 5}\n',
      where: (p) => `${p}:2`,
      problem: /field 'input_length' must be an integer ≥ 32/,
    },
  },
  {
    name: 'manifest',
    cap: MAX_MANIFEST_BYTES,
    read: (p) => loadManifestTier(p, 'fast'),
    malformed: { content: '[tiers.fast]\nport = "eight"\n', where: (p) => p, problem: /tier 'fast': port: / },
  },
  {
    name: 'sim config',
    cap: MAX_SIM_CONFIG_BYTES,
    read: (p) => loadSimConfigFile(p),
    malformed: {
      content: '{"prefix_cache": {"block_tokens": 0}}',
      where: (p) => p,
      problem: /^prefix_cache\.block_tokens: /,
    },
  },
  {
    name: 'context-bucket file',
    cap: MAX_BUCKET_FILE_BYTES,
    read: (p) => parseContextBuckets(p, (x) => x),
    malformed: {
      content: '[{"tokens": 4096, "up_to": 0.5}, {"tokens": "many", "up_to": 1}]',
      where: (p) => p,
      problem: /^\[1\]: needs numeric "tokens" and "up_to"/,
    },
  },
  {
    name: 'tokenizer.json',
    cap: MAX_TOKENIZER_BYTES,
    read: (p) => loadHfTokenizer(p),
    malformed: {
      content: '{"version": "1.0", "model": ',
      where: (p) => p,
      problem: /line 1 column \d+: not valid JSON/,
    },
  },
  {
    name: 'API key file',
    cap: MAX_API_KEY_FILE_BYTES,
    read: (p) => readApiKeyFile(p),
    malformed: {
      content: 'sk-first-line\nsk-second-line\n',
      where: (p) => p,
      problem: /must hold the key on one line/,
    },
  },
];

describe('every reader: oversized, malformed, FIFO, bad UTF-8', () => {
  for (const reader of READERS) {
    it(`${reader.name}: over the cap (${reader.cap} bytes) is refused by size`, async () => {
      const path = file({ size: reader.cap + 1 });
      await refused(() => reader.read(path), path, new RegExp(`^is ${reader.cap + 1} bytes, over the .* limit`));
    });
    it(`${reader.name}: malformed content names the place and the reason`, async () => {
      const path = file(reader.malformed.content);
      await refused(() => reader.read(path), reader.malformed.where(path), reader.malformed.problem);
    });
    it(`${reader.name}: a FIFO is refused without blocking`, async () => {
      const path = fifo();
      await refused(() => reader.read(path), path, /is not a regular file/);
    });
  }

  it('bad UTF-8 names its line (readers that decode text)', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"prompt": "ok"}\n{"prompt": "ok"}\n{"prompt": "'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}\n'),
    ]);
    const path = file(bytes);
    await refused(() => loadDataset(path), path, /^line 3: not valid UTF-8$/);
    await refused(() => loadTrace(path), path, /^line 3: not valid UTF-8$/);
    await refused(() => readApiKeyFile(path), path, /^line 3: not valid UTF-8$/);
  });

  it('journal (rebuild): oversized, malformed request line, bad header, FIFO → exit 2 with one line', async () => {
    const big = file({ size: MAX_JOURNAL_BYTES + 1 });
    let out = await rebuild(big);
    assert.equal(out.code, 2);
    assert.match(
      out.stderr,
      new RegExp(`${big}: is ${MAX_JOURNAL_BYTES + 1} bytes, over the 500 MiB limit for journal files`),
    );
    const header = JSON.stringify({
      type: 'header',
      schema: 'servebench.journal/v1',
      run: {
        meta: {
          runId: 'r',
          startedAt: '2026-01-01T00:00:00Z',
          baseUrl: 'http://127.0.0.1:1/v1',
          model: 'm',
          cachePolicy: 'warm',
        },
        servebench: {},
        shape: { mode: 'closed' },
      },
    });
    const badRequest = JSON.stringify({
      type: 'request',
      result: {
        requestIndex: 0,
        plannedContextTokens: 10,
        startOffsetMs: 0,
        ok: true,
        timeToFirstOutputS: 0.1,
        ttftS: 'soon',
        e2eS: 1,
        reasoningChunks: 0,
        contentChunks: 1,
        usage: null,
        finishReason: null,
        responseId: null,
        httpStatus: 200,
        error: null,
      },
    });
    const journal = file(`${header}\n${badRequest}\n{"type":"end","wall_s":1,"finished_at":"x","interrupted":false}\n`);
    out = await rebuild(journal);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /: line 2: result\.ttftS: /);
    assert.equal(out.stderr.trim().split('\n').length, 1);
    const noMeta = file(
      `${JSON.stringify({ type: 'header', schema: 'servebench.journal/v1', run: { meta: { runId: 'r' } } })}\n`,
    );
    out = await rebuild(noMeta);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /line 1: /);
    const pipe = fifo();
    out = await rebuild(pipe);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /is not a regular file/);
  });

  it('readInputFile: missing file and directory', () => {
    assert.throws(
      () => readInputFile(join(dir, 'nope'), 10, 'x'),
      (e: unknown) => e instanceof InputFileError && /no such file/.test(e.problem),
    );
    const sub = join(dir, `d${n++}`);
    mkdirSync(sub);
    assert.throws(
      () => readInputFile(sub, 10, 'x'),
      (e: unknown) => e instanceof InputFileError && /is a directory/.test(e.problem),
    );
  });
});

describe('--api-key-file', () => {
  it('reads a trimmed key; a symlink to a regular file is fine; mode 600 gives no warning', () => {
    const path = file('  sk-from-file-0123456789\n');
    chmodSync(path, 0o600);
    assert.deepEqual(readApiKeyFile(path), { key: 'sk-from-file-0123456789', warning: null });
    const link = join(dir, `link${n++}`);
    symlinkSync(path, link);
    assert.equal(readApiKeyFile(link).key, 'sk-from-file-0123456789');
  });

  it('warns when the group or everyone may read it, without naming the key', () => {
    const path = file('sk-readable-0123456789');
    chmodSync(path, 0o644);
    const { warning } = readApiKeyFile(path);
    assert.match(warning ?? '', /is accessible to its group and everyone \(mode 644\); chmod 600 it/);
    assert.ok(!warning!.includes('sk-readable'));
    chmodSync(path, 0o640);
    assert.match(readApiKeyFile(path).warning ?? '', /accessible to its group \(mode 640\)/);
  });

  it('an empty file, a directory, a missing file are refused; the error never holds the key', () => {
    const empty = file(' \n');
    assert.throws(
      () => readApiKeyFile(empty),
      (e: unknown) => e instanceof InputFileError && /is empty/.test(e.problem),
    );
    assert.throws(
      () => readApiKeyFile(dir),
      (e: unknown) => e instanceof InputFileError && /is a directory/.test(e.problem),
    );
    const twoLines = file('sk-line-one-secret\nsk-line-two-secret');
    assert.throws(
      () => readApiKeyFile(twoLines),
      (e: unknown) => e instanceof InputFileError && !e.message.includes('sk-line'),
    );
  });

  it('the run configuration checks it before any request, refuses both sources at once, and never holds the key', () => {
    const path = file('sk-config-check-0123456789');
    chmodSync(path, 0o600);
    const resolve = (args: string[], env: NodeJS.ProcessEnv = {}) => {
      const parsed = parseFlags(args, RUN_FLAGS);
      return resolveRunConfig(parsed.values, env, dir, parsed.given);
    };
    const config = resolve(['--api-key-file', path]);
    assert.equal(config.target.apiKeyFile, path);
    assert.ok(!JSON.stringify(config).includes('sk-config-check'));
    assert.equal(resolveApiKey(config.target, {}).key, 'sk-config-check-0123456789');
    assert.throws(
      () => resolve(['--api-key-file', path, '--api-key-env', 'K'], { K: 'x' }),
      (e: unknown) => e instanceof UsageError && /choose one/.test(e.message),
    );
    assert.throws(
      () => resolve(['--api-key-file', join(dir, 'absent')]),
      (e: unknown) => e instanceof InputFileError && /no such file/.test(e.message),
    );
    assert.throws(
      () => resolve(['--api-key-env', 'K'], { K: 'sk-a\nsk-b' }),
      (e: unknown) => e instanceof UsageError && /one line/.test(e.message) && !e.message.includes('sk-a'),
    );
  });
});
