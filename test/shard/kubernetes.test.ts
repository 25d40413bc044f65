/**
 * The Kubernetes manifests of `servebench k8s`: each one validates against the Kubernetes API
 * schema (kubernetes-models, generated from the API's OpenAPI document; a broken manifest fails
 * it, so the check can fail), the Indexed Job has the fields a sharded run needs, the pod args of
 * each index expand (as the kubelet expands them) to that shard's files, bad options are one line,
 * no secret reaches the output, and the CLI prints YAML that reads back as the same objects.
 */
import { gunzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import {
  CONFIGMAP_LIMIT_BYTES,
  KUBERNETES_DEFAULTS,
  kubernetesManifests,
  shardFilePaths,
  type KubernetesOptions,
  type Manifest,
} from '../../src/shard/kubernetes.js';
import { expandKubernetesReferences, podArgsForIndex } from '../../src/shard/kubernetes-args.js';
import { renderManifestsYaml } from '../../src/shard/kubernetes-yaml.js';
import { UsageError } from '../../src/util/errors.js';
import { runCli } from '../helpers/cli.js';
import { startSimProcess, type SimProcess } from '../helpers/sim-process.js';

const dir = mkdtempSync(join(tmpdir(), 'servebench-k8s-'));
const planFile = join(dir, 'plan.json');
let planJson = '';
let sim: SimProcess;

before(async () => {
  sim = await startSimProcess({ prefill_tok_s: 2000000, decode_step_ms: 2, max_num_seqs: 64 });
  const made = await runCli([
    'plan',
    '--base-url',
    sim.url,
    '--requests',
    '6',
    '--concurrency',
    '3',
    '--max-tokens',
    '4',
    '--quiet',
    '--output',
    planFile,
  ]);
  assert.equal(made.code, 0, made.stderr);
  planJson = readFileSync(planFile, 'utf8');
});
after(() => sim.stop());

const base = (): KubernetesOptions => ({
  name: 'bench',
  shards: 3,
  image: 'registry.example/servebench:0.1.0',
  planJson,
  baseUrl: 'http://vllm.llm.svc:8000/v1',
});

const byKind = (manifests: Manifest[], kind: string, name?: string): Manifest => {
  const found = manifests.find(
    (m) => m['kind'] === kind && (name === undefined || (m['metadata'] as { name: string }).name === name),
  );
  assert.ok(found, `no ${kind} ${name ?? ''}`);
  return found;
};

/** Checks one manifest against the Kubernetes API schema of its kind; throws what the schema says. */
function validateManifest(manifest: Manifest): void {
  const models: Record<string, new (data: never) => { validate(): void }> = {
    ConfigMap,
    PersistentVolumeClaim,
    Service,
    Deployment,
    Job,
  };
  const Model = models[manifest['kind'] as string];
  assert.ok(Model, `no schema for kind ${String(manifest['kind'])}`);
  new Model(structuredClone(manifest) as never).validate();
}

interface Container {
  name: string;
  args: string[];
  env?: unknown[];
  resources: { requests: Record<string, string>; limits: Record<string, string> };
}
const podSpec = (job: Manifest): Record<string, unknown> =>
  (job['spec'] as { template: { spec: Record<string, unknown> } }).template.spec;
const container = (job: Manifest): Container => (podSpec(job)['containers'] as Container[])[0]!;

test('every manifest validates against the Kubernetes API schema, with and without Redis, key and namespace', () => {
  const variants: KubernetesOptions[] = [
    base(),
    { ...base(), namespace: 'bench-ns', apiKeySecret: 'llm-key', storageClass: 'nfs-client', allowPartial: true },
    { ...base(), redis: 'none', startAt: '2026-12-02T03:00:00Z' },
    {
      ...base(),
      redis: 'redis://redis.shared.svc:6379',
      rendezvousTimeoutS: 900,
      maxClockUncertaintyMs: 25,
      cpu: '2',
      memory: '2Gi',
    },
  ];
  const external = container(byKind(kubernetesManifests(variants[3]!), 'Job', 'bench'));
  assert.ok(external.args.join(' ').includes('--rendezvous-timeout 900 --max-clock-uncertainty 25'));
  for (const options of variants) {
    const manifests = kubernetesManifests(options);
    assert.deepEqual(
      manifests.map((m) => m['kind']),
      options.redis === undefined
        ? ['ConfigMap', 'PersistentVolumeClaim', 'Deployment', 'Service', 'Job', 'Job']
        : ['ConfigMap', 'PersistentVolumeClaim', 'Job', 'Job'],
    );
    for (const manifest of manifests) validateManifest(manifest);
  }
});

test('the schema check can fail: a broken Job is refused', () => {
  const job = byKind(kubernetesManifests(base()), 'Job', 'bench');
  const wrongType = structuredClone(job) as { spec: Record<string, unknown> };
  wrongType.spec['completions'] = 'three';
  assert.throws(() => validateManifest(wrongType), /completions must be integer/);
  const noName = structuredClone(job);
  delete (podSpec(noName)['containers'] as Record<string, unknown>[])[0]!['name'];
  assert.throws(() => validateManifest(noName), /name/);
  const badMode = structuredClone(job) as { spec: Record<string, unknown> };
  badMode.spec['completionMode'] = 'indexed';
  assert.throws(() => validateManifest(badMode), /completionMode/);
});

test('the Indexed Job: N completions in parallel, never retried, spread over nodes, resources stated', () => {
  const manifests = kubernetesManifests({ ...base(), shards: 5 });
  const job = byKind(manifests, 'Job', 'bench');
  const spec = job['spec'] as Record<string, unknown>;
  assert.equal(spec['completionMode'], 'Indexed');
  assert.equal(spec['completions'], 5);
  assert.equal(spec['parallelism'], 5);
  assert.equal(spec['backoffLimitPerIndex'], 0);
  assert.equal(spec['podFailurePolicy'], undefined);
  const pod = podSpec(job);
  assert.equal(pod['restartPolicy'], 'Never');
  const labels = (spec['template'] as { metadata: { labels: Record<string, string> } }).metadata.labels;
  assert.deepEqual(pod['topologySpreadConstraints'], [
    {
      maxSkew: 1,
      topologyKey: 'kubernetes.io/hostname',
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: labels },
    },
  ]);
  const { resources } = container(job);
  const stated = { cpu: KUBERNETES_DEFAULTS.cpu, memory: KUBERNETES_DEFAULTS.memory };
  assert.deepEqual(resources, { requests: stated, limits: stated });
  // The index is stated from the annotation too, for clusters that do not set it.
  assert.deepEqual(container(job).env, [
    {
      name: 'JOB_COMPLETION_INDEX',
      valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } },
    },
  ]);
  const pvc = byKind(manifests, 'PersistentVolumeClaim');
  assert.deepEqual((pvc['spec'] as { accessModes: string[] }).accessModes, ['ReadWriteMany']);
  const configMap = byKind(manifests, 'ConfigMap');
  assert.equal((configMap['data'] as Record<string, string>)['plan.json'], planJson);
});

test("each index's args expand to its own shard files and --shard auto/N", () => {
  const shards = 4;
  const job = byKind(kubernetesManifests({ ...base(), shards, apiKeySecret: 'llm-key' }), 'Job', 'bench');
  for (let index = 0; index < shards; index++) {
    const args = podArgsForIndex(job, index);
    assert.deepEqual(args, [
      'run',
      '--plan',
      '/servebench/plan/plan.json',
      '--shard',
      `auto/${shards}`,
      '--base-url',
      'http://vllm.llm.svc:8000/v1',
      '--output',
      `/servebench/shards/shard-${index}.ndjson`,
      '--journal',
      `/servebench/shards/shard-${index}.journal.ndjson`,
      '--quiet',
      '--rendezvous',
      'redis://bench-redis:6379/bench',
      '--api-key-file',
      '/servebench/key/api-key',
    ]);
  }
  // The merge names every shard file, so a missing one is named.
  const merge = byKind(kubernetesManifests({ ...base(), shards }), 'Job', 'bench-merge');
  assert.equal((merge['spec'] as { suspend: boolean }).suspend, true);
  assert.deepEqual(container(merge).args, [
    'merge',
    ...shardFilePaths(shards),
    '--output',
    '/servebench/shards/result.json',
  ]);
  assert.deepEqual(shardFilePaths(2), ['/servebench/shards/shard-0.ndjson', '/servebench/shards/shard-1.ndjson']);
});

test('the rendezvous: external URL, none with --start-at, and their refusals', () => {
  const external = byKind(kubernetesManifests({ ...base(), redis: 'redis://r.shared:6379' }), 'Job', 'bench');
  assert.ok(podArgsForIndex(external, 0).join(' ').includes('--rendezvous redis://r.shared:6379/bench'));
  const at = byKind(kubernetesManifests({ ...base(), redis: 'none', startAt: '1796180400000' }), 'Job', 'bench');
  const args = podArgsForIndex(at, 1).join(' ');
  assert.ok(args.includes('--start-at 1796180400000') && !args.includes('--rendezvous'));
  const refused: [Partial<KubernetesOptions>, RegExp][] = [
    [{ redis: 'none' }, /^--redis none needs --start-at/],
    [{ startAt: '2026-12-02T03:00:00Z' }, /^--start-at is for --redis none/],
    [{ redis: 'none', startAt: '2026-12-02 03:00' }, /^--start-at "2026-12-02 03:00": expected ISO 8601/],
    [{ redis: 'redis://:hunter2@r:6379/x' }, /^--redis: a password in the URL would be written/],
    [{ redis: 'http://r:6379' }, /^--redis: expected deploy, none or a redis:/],
    [{ baseUrl: 'http://user:pw@vllm/v1' }, /^--base-url: must not carry credentials/],
    [{ redis: 'none', startAt: '1', rendezvousTimeoutS: 10 }, /^--rendezvous-timeout needs a rendezvous/],
  ];
  for (const [change, message] of refused)
    assert.throws(
      () => kubernetesManifests({ ...base(), ...change }),
      (error: unknown) => error instanceof UsageError && message.test(error.message) && !error.message.includes('\n'),
      JSON.stringify(change),
    );
});

test('bad names and quantities are refused in one line naming the flag', () => {
  const cases: [Partial<KubernetesOptions>, string][] = [
    [{ name: 'Bench' }, '--name'],
    [{ name: '1bench' }, '--name'],
    [{ name: 'bench-' }, '--name'],
    [{ name: 'b'.repeat(57) }, '--name'],
    [{ name: 'a_b' }, '--name'],
    [{ namespace: 'Bad_NS' }, '--namespace'],
    [{ shards: 0 }, '--shards'],
    [{ shards: 1.5 }, '--shards'],
    [{ image: 'a b' }, '--image'],
    [{ apiKeySecret: 'Key!' }, '--api-key-secret'],
    [{ cpu: '0' }, '--cpu'],
    [{ memory: '1GB' }, '--memory'],
    [{ storage: '-1Gi' }, '--storage'],
  ];
  for (const [change, flag] of cases)
    assert.throws(
      () => kubernetesManifests({ ...base(), ...change }),
      (error: unknown) =>
        error instanceof UsageError && error.message.startsWith(flag) && !error.message.includes('\n'),
      JSON.stringify(change),
    );
  assert.equal(kubernetesManifests({ ...base(), name: 'b'.repeat(56) }).length, 6);
});

test('a plan over the 1 MiB a ConfigMap holds goes in gzipped; one that does not fit even so is refused, saying what to do', () => {
  const room = CONFIGMAP_LIMIT_BYTES - Buffer.byteLength('plan.json');
  // Trailing blanks keep the plan valid JSON at any size.
  const atLimit = planJson + ' '.repeat(room - Buffer.byteLength(planJson));
  const asText = kubernetesManifests({ ...base(), planJson: atLimit });
  assert.equal((byKind(asText, 'ConfigMap', 'bench-plan')['data'] as Record<string, string>)['plan.json'], atLimit);
  // One byte more: gzipped, in binaryData, and the pods read plan.json.gz (run --plan unzips it).
  const over = `${atLimit} `;
  const zipped = kubernetesManifests({ ...base(), planJson: over });
  const configMap = byKind(zipped, 'ConfigMap', 'bench-plan');
  assert.equal(configMap['data'], undefined);
  const stored = (configMap['binaryData'] as Record<string, string>)['plan.json.gz']!;
  assert.equal(gunzipSync(Buffer.from(stored, 'base64')).toString('utf8'), over);
  for (const manifest of zipped) validateManifest(manifest);
  assert.ok(podArgsForIndex(byKind(zipped, 'Job', 'bench'), 0).includes('/servebench/plan/plan.json.gz'));
  // A plan whose text does not compress (dataset rows of random text) is refused in one line.
  const plan = JSON.parse(planJson) as { requests: { count: number }; prompts: unknown };
  const n = plan.requests.count;
  const noise = (i: number): string => randomBytes(Math.ceil(1_200_000 / n)).toString('base64') + String(i);
  plan.prompts = {
    kind: 'dataset',
    cache_bust: false,
    messages: Array.from({ length: n }, (_, i) => [{ role: 'user', content: noise(i) }]),
    expected_tokens: Array.from({ length: n }, () => null),
  };
  assert.throws(
    () => kubernetesManifests({ ...base(), planJson: JSON.stringify(plan) }),
    (error: unknown) =>
      error instanceof UsageError &&
      /^the plan is \d+ bytes \(\d+ gzipped, in base64\), over the 1 MiB a ConfigMap holds .*make a plan of fewer requests/.test(
        error.message,
      ),
  );
  assert.throws(() => kubernetesManifests({ ...base(), planJson: '{"schema": "other"}' }), /not a servebench run plan/);
});

test('the YAML reads back as the same objects under YAML 1.1 (kubectl) and 1.2, plan text intact', () => {
  const manifests = kubernetesManifests({ ...base(), apiKeySecret: 'llm-key' });
  const yaml = renderManifestsYaml(manifests, 'made by a test\nsecond line');
  assert.ok(yaml.startsWith('# made by a test\n# second line\n---\n'));
  for (const version of ['1.1', '1.2'] as const) {
    const docs = parseAllDocuments(yaml, { version });
    assert.ok(Array.isArray(docs));
    assert.deepEqual(
      docs.map((doc) => doc.toJS() as unknown),
      manifests,
    );
  }
  // `no` in Redis's args is a string only when quoted for YAML 1.1.
  assert.ok(yaml.includes('- "no"'));
});

test("expanding $(VAR) follows the kubelet's rules", () => {
  const vars = new Map([
    ['A', 'alpha'],
    ['JOB_COMPLETION_INDEX', '7'],
  ]);
  const cases: [string, string][] = [
    ['shard-$(JOB_COMPLETION_INDEX).ndjson', 'shard-7.ndjson'],
    ['$(A)$(A)', 'alphaalpha'],
    ['$(UNSET)', '$(UNSET)'],
    ['$$(A)', '$(A)'],
    ['$$$(A)', '$alpha'],
    ['$(A', '$(A'],
    ['$((A)', '$((A)'],
    ['cost $5', 'cost $5'],
    ['end$', 'end$'],
    ['$', '$'],
    ['', ''],
  ];
  for (const [text, expanded] of cases) assert.equal(expandKubernetesReferences(text, vars), expanded, text);
});

test('property: $$-escaped text expands to itself; text without $ is left alone', () => {
  const vars = new Map([['A', 'x$(A)']]);
  const text = fc.string({ unit: fc.constantFrom('$', '(', ')', 'A', 'b', ' ') });
  fc.assert(
    // A function replacer: in a replacement string '$$' would be one '$'.
    fc.property(
      text,
      (s) =>
        expandKubernetesReferences(
          s.replaceAll('$', () => '$$'),
          vars,
        ) === s,
    ),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(
      fc.string().filter((s) => !s.includes('$')),
      (s) => expandKubernetesReferences(s, vars) === s,
    ),
  );
});

test('env values may use the variables stated before them, as the kubelet resolves them', () => {
  const job = {
    kind: 'Job',
    spec: {
      template: {
        spec: {
          containers: [
            {
              name: 'c',
              env: [
                { name: 'DIR', value: '/d/$(JOB_COMPLETION_INDEX)' },
                { name: 'FILE', value: '$(DIR)/f-$(LATER)' },
                { name: 'LATER', value: 'z' },
              ],
              args: ['$(FILE)', '$(LATER)'],
            },
          ],
        },
      },
    },
  };
  assert.deepEqual(podArgsForIndex(job, 3), ['/d/3/f-$(LATER)', 'z']);
});

test('servebench k8s prints YAML with the expected kinds; no secret reaches the output', async () => {
  const secret = 'sk-test-7f3a9c1e-never-in-a-manifest';
  const keyFile = join(dir, 'key');
  writeFileSync(keyFile, `${secret}\n`, { mode: 0o600 });
  const common = [
    'k8s',
    '--shards',
    '3',
    '--name',
    'bench',
    '--image',
    'servebench:test',
    '--api-key-secret',
    'llm-key',
  ];
  // From run flags: the plan made as `servebench plan` makes it, sized against the simulator.
  const fromFlags = await runCli([
    ...common,
    '--base-url',
    sim.url,
    '--target-url',
    'http://vllm.llm.svc:8000/v1',
    '--api-key-file',
    keyFile,
    '--requests',
    '6',
    '--concurrency',
    '3',
    '--max-tokens',
    '4',
  ]);
  assert.equal(fromFlags.code, 0, fromFlags.stderr);
  // From the saved plan: its text as is.
  const fromPlan = await runCli([...common, '--base-url', 'http://vllm.llm.svc:8000/v1', '--plan', planFile]);
  assert.equal(fromPlan.code, 0, fromPlan.stderr);
  const names: string[] = [];
  for (const run of [fromFlags, fromPlan]) {
    assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret));
    const docs = parseAllDocuments(run.stdout, { version: '1.1' });
    assert.ok(Array.isArray(docs));
    // stdout is the YAML alone: what planning says went to stderr.
    assert.deepEqual(
      docs.flatMap((doc) => doc.errors),
      [],
    );
    const objects = docs.map((doc) => doc.toJS() as Manifest);
    assert.deepEqual(
      objects.map((m) => m['kind']),
      ['ConfigMap', 'PersistentVolumeClaim', 'Deployment', 'Service', 'Job', 'Job'],
    );
    for (const object of objects) validateManifest(object);
    const job = byKind(objects, 'Job', 'bench');
    assert.ok(podArgsForIndex(job, 2).includes('/servebench/shards/shard-2.ndjson'));
    assert.ok(podArgsForIndex(job, 2).includes('http://vllm.llm.svc:8000/v1'));
    const rendezvous = podArgsForIndex(job, 2)[podArgsForIndex(job, 2).indexOf('--rendezvous') + 1]!;
    names.push(/^redis:\/\/bench-redis:6379\/(bench-[0-9a-f]{8})$/.exec(rendezvous)?.[1] ?? rendezvous);
  }
  // Each invocation meets under a NAME of its own: Redis refuses a shard joining a started NAME.
  assert.match(names[0]!, /^bench-[0-9a-f]{8}$/);
  assert.notEqual(names[0], names[1]);
  const saved = parseAllDocuments(fromPlan.stdout, { version: '1.1' });
  assert.ok(Array.isArray(saved));
  assert.equal((saved[0]!.toJS() as { data: Record<string, string> }).data['plan.json'], planJson);
});

test('servebench k8s --output writes the file; bad usage is one line, exit 2', async () => {
  const out = join(dir, 'bench.yaml');
  const args = [
    'k8s',
    '--shards',
    '2',
    '--name',
    'bench',
    '--image',
    'i',
    '--base-url',
    'http://t/v1',
    '--plan',
    planFile,
  ];
  const written = await runCli([...args, '--output', out]);
  assert.equal(written.code, 0, written.stderr);
  assert.equal(written.stdout, '');
  assert.ok(readFileSync(out, 'utf8').includes('kind: Job'));
  const refusals: [string[], RegExp][] = [
    [[...args, '--output', planFile], /refusing to overwrite an input/],
    [[...args, '--seed', '4'], /--plan fixes .*--seed cannot be given/],
    [[...args, '--journal', 'j'], /--journal does not apply to k8s/],
    [['k8s', '--name', 'b', '--image', 'i', '--base-url', 'http://t/v1', '--plan', planFile], /--shards is required/],
    [[...args, '--name', 'Bad'], /--name "Bad": must be/],
  ];
  for (const [argv, message] of refusals) {
    const run = await runCli(argv);
    assert.equal(run.code, 2, argv.join(' '));
    assert.match(run.stderr, message);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  }
});

test("the shard pods' init container waits for the deployed Redis: it returns once a port answers, and gives up with one line", async () => {
  const job = byKind(kubernetesManifests({ ...base(), rendezvousTimeoutS: 1 }), 'Job', 'bench');
  const init = (podSpec(job)['initContainers'] as { command: string[] }[])[0]!;
  const [node, flag, script, host, port, seconds] = init.command;
  assert.deepEqual([node, flag, host, port, seconds], ['node', '-e', 'bench-redis', '6379', '1']);
  // Run locally as the pod would (the image's node), against a real listening socket on 127.0.0.1.
  const server = createServer((socket) => socket.end());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const open = (server.address() as AddressInfo).port;
  const reached = spawnSync(process.execPath, ['-e', script!, '127.0.0.1', String(open), '5'], { encoding: 'utf8' });
  assert.equal(reached.status, 0, reached.stderr);
  await new Promise((done) => server.close(done));
  // The port is closed now: after its deadline it exits 1 with one line.
  const refused = spawnSync(process.execPath, ['-e', script!, '127.0.0.1', String(open), '1'], { encoding: 'utf8' });
  assert.equal(refused.status, 1);
  assert.equal(refused.stderr, `no Redis at 127.0.0.1:${open} after 1 s\n`);
  // No init container without a deployed Redis.
  const external = byKind(kubernetesManifests({ ...base(), redis: 'redis://r:6379/x' }), 'Job', 'bench');
  assert.equal(podSpec(external)['initContainers'], undefined);
});
