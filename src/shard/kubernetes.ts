/**
 * The Kubernetes manifests of one sharded run, as plain objects (no I/O): the plan in a ConfigMap,
 * a ReadWriteMany volume for the shard files, an Indexed Job of N shard pods, an optional Redis
 * for the rendezvous, and a suspended merge Job that names every shard file. kubernetes-yaml.ts
 * renders them; docs/kubernetes.md says how to apply them and why each choice was made.
 */
// Types only, erased from the build (kubernetes-models is a devDependency): every object literal
// below is checked field by field against the Kubernetes API's own types, so a misspelt field
// fails the build instead of being dropped by the API server.
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import { parsePlan } from '../plan/run-plan.js';
import { gzipSync } from 'node:zlib';
import { UsageError } from '../util/errors.js';

type ObjectMeta = NonNullable<IJob['metadata']>;

/** One Kubernetes object, as `kubectl apply` reads it. */
export type Manifest = Record<string, unknown>;

/** What `servebench k8s` asks for. */
export interface KubernetesOptions {
  /** Names every object (`<name>`, `<name>-plan`, `<name>-shards`, `<name>-redis`, `<name>-merge`). */
  readonly name: string;
  readonly namespace?: string | null;
  readonly shards: number;
  readonly image: string;
  /** The plan file's text (servebench.run-plan/v1), stored as is. */
  readonly planJson: string;
  /** The target as the pods reach it. */
  readonly baseUrl: string;
  /** A Secret the user creates, holding the key under `api-key`; mounted as a file, never read here. */
  readonly apiKeySecret?: string | null;
  /** `deploy` (a Redis in the namespace), `none` (start at `startAt`), or an external `redis://` URL. */
  readonly redis?: string;
  /** With `redis: 'none'`: the start instant every shard is given (ISO 8601 with a zone, or epoch ms). */
  readonly startAt?: string | null;
  /** Seconds a shard waits for all N to join (`--rendezvous-timeout`); null: the run's default. */
  readonly rendezvousTimeoutS?: number | null;
  /**
   * The rendezvous NAME (one NAME serves one run: Redis remembers a started rendezvous for 24 h);
   * default `name`. `servebench k8s` gives each invocation its own (`<name>-<8 hex>`), so applying
   * new manifests against a Redis that saw the last run is not refused as late.
   */
  readonly rendezvousName?: string;
  /** `--max-clock-uncertainty` for every shard, ms; null: the run's default. */
  readonly maxClockUncertaintyMs?: number | null;
  /** Per shard pod, requests and limits alike. */
  readonly cpu?: string;
  readonly memory?: string;
  readonly storageClass?: string | null;
  /** Size of the shard volume. */
  readonly storage?: string;
  /** The merge Job merges what is there and labels the result partial. */
  readonly allowPartial?: boolean;
}

/** The defaults, stated once (docs/kubernetes.md and the flag table quote them). */
export const KUBERNETES_DEFAULTS = {
  /** One shard is one Node.js event loop plus its stream workers: one whole CPU, so it is never throttled in pieces. */
  cpu: '1',
  memory: '1Gi',
  storage: '10Gi',
  redis: 'deploy',
  /** The merge streams the shard files; the bench target is under 2 GB peak RSS for 10M records. */
  mergeCpu: '1',
  mergeMemory: '3Gi',
} as const;

/** The API server refuses a ConfigMap whose keys and values together exceed 1 MiB. */
export const CONFIGMAP_LIMIT_BYTES = 1024 * 1024;

/** Most shards: the merge Job names every file, and its object must stay far below etcd's 1.5 MiB. */
export const MAX_SHARDS = 10_000;

/** Where the pods see their files. */
const POD_PATHS = {
  planDir: '/servebench/plan',
  shards: '/servebench/shards',
  apiKey: '/servebench/key/api-key',
} as const;

/** The uid and gid of the image's user (Dockerfile); the pods run as them. */
const POD_USER = 10001;

const REDIS_IMAGE = 'redis:7';
const REDIS_PORT = 6379;
const INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
/** The longest suffix added to the name (`-shards`), so every derived name stays a 63-character label. */
const LONGEST_SUFFIX = '-shards'.length;
const LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUANTITY = /^(\d+(\.\d+)?|\.\d+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

/** Every manifest of the run, in the order `kubectl apply` should create them. */
export function kubernetesManifests(options: KubernetesOptions): Manifest[] {
  const o = checkOptions(options);
  const objects: object[] = [planConfigMap(o), shardVolume(o)];
  if (o.redis === 'deploy') objects.push(redisDeployment(o), redisService(o));
  objects.push(shardJob(o), mergeJob(o));
  // Plain objects to callers: the public API names no type of a devDependency.
  return objects as Manifest[];
}

/** The options with defaults filled in and every value checked. */
interface Checked {
  name: string;
  namespace: string | null;
  shards: number;
  image: string;
  planJson: string;
  plan: PlanStorage;
  baseUrl: string;
  apiKeySecret: string | null;
  redis: string;
  startAt: string | null;
  rendezvousTimeoutS: number | null;
  maxClockUncertaintyMs: number | null;
  rendezvousName: string;
  cpu: string;
  memory: string;
  storageClass: string | null;
  storage: string;
  allowPartial: boolean;
}

/**
 * Checks everything but the plan, so a command can refuse a bad name or quantity before it makes
 * the plan. @throws UsageError, one line naming the flag.
 */
export function checkKubernetesOptions(options: Omit<KubernetesOptions, 'planJson'>): void {
  checkOptions({ ...options, planJson: '' }, false);
}

function checkOptions(options: KubernetesOptions, withPlan = true): Checked {
  const { name, shards, image } = options;
  if (!LABEL.test(name) || name.length > 63 - LONGEST_SUFFIX)
    throw new UsageError(
      `--name ${JSON.stringify(name)}: must be lowercase letters, digits and '-', start with a letter, end with a letter or digit, at most ${63 - LONGEST_SUFFIX} characters (it names a Service, which must be a DNS-1035 label, with suffixes up to '-shards')`,
    );
  const namespace = options.namespace ?? null;
  if (namespace !== null && (!DNS_LABEL.test(namespace) || namespace.length > 63))
    throw new UsageError(
      `--namespace ${JSON.stringify(namespace)}: must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)`,
    );
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_SHARDS)
    throw new UsageError(`--shards: ${shards} is out of range [1, ${MAX_SHARDS}]`);
  if (image.trim() === '' || /\s/.test(image))
    throw new UsageError(`--image ${JSON.stringify(image)}: must be an image reference without blanks`);
  const apiKeySecret = options.apiKeySecret ?? null;
  if (apiKeySecret !== null && (!DNS_SUBDOMAIN.test(apiKeySecret) || apiKeySecret.length > 253))
    throw new UsageError(
      `--api-key-secret ${JSON.stringify(apiKeySecret)}: must be a Secret's name (a DNS-1123 subdomain: lowercase letters, digits, '-' and '.')`,
    );
  const storageClass = options.storageClass ?? null;
  if (storageClass !== null && (!DNS_SUBDOMAIN.test(storageClass) || storageClass.length > 253))
    throw new UsageError(
      `--storage-class ${JSON.stringify(storageClass)}: must be a StorageClass name (a DNS-1123 subdomain)`,
    );
  const cpu = quantity('--cpu', options.cpu ?? KUBERNETES_DEFAULTS.cpu);
  const memory = quantity('--memory', options.memory ?? KUBERNETES_DEFAULTS.memory);
  const storage = quantity('--storage', options.storage ?? KUBERNETES_DEFAULTS.storage);
  const plan: PlanStorage = withPlan ? checkPlan(options.planJson) : { key: 'plan.json', text: '' };
  const baseUrl = checkBaseUrl(options.baseUrl);
  const rendezvousName = options.rendezvousName ?? name;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(rendezvousName))
    throw new UsageError(`the rendezvous name ${JSON.stringify(rendezvousName)}: 1 to 64 of A-Z a-z 0-9 . _ -`);
  const redis = checkRedis(options.redis ?? KUBERNETES_DEFAULTS.redis, rendezvousName);
  const startAt = options.startAt ?? null;
  if (redis === 'none' && startAt === null)
    throw new UsageError(
      '--redis none needs --start-at TIME: without a rendezvous every shard must be told when to start',
    );
  if (redis !== 'none' && startAt !== null)
    throw new UsageError('--start-at is for --redis none: with a rendezvous the first shard chooses the start');
  if (startAt !== null) checkStartAt(startAt);
  const rendezvousTimeoutS = options.rendezvousTimeoutS ?? null;
  if (rendezvousTimeoutS !== null && redis === 'none')
    throw new UsageError('--rendezvous-timeout needs a rendezvous (--redis deploy or a redis:// URL)');
  const maxClockUncertaintyMs = options.maxClockUncertaintyMs ?? null;
  if (maxClockUncertaintyMs !== null && redis === 'none')
    throw new UsageError('--max-clock-uncertainty needs a rendezvous (--redis deploy or a redis:// URL)');
  return {
    name,
    namespace,
    shards,
    image,
    planJson: options.planJson,
    plan,
    baseUrl,
    apiKeySecret,
    redis,
    startAt,
    rendezvousTimeoutS,
    maxClockUncertaintyMs,
    rendezvousName,
    cpu,
    memory,
    storageClass,
    storage,
    allowPartial: options.allowPartial === true,
  };
}

function quantity(flag: string, value: string): string {
  if (!QUANTITY.test(value) || Number.parseFloat(value) === 0)
    throw new UsageError(
      `${flag} ${JSON.stringify(value)}: must be a positive Kubernetes quantity (e.g. 2, 500m, 1Gi)`,
    );
  return value;
}

/** How the plan sits in its ConfigMap: as text, or gzipped (base64 in binaryData) when the text is over the limit. */
type PlanStorage = { key: 'plan.json'; text: string } | { key: 'plan.json.gz'; base64: string };

/**
 * The plan must be one the pods can run, and fit in a ConfigMap: as text when it does, else
 * gzipped (`run --plan` reads either; a plan's number columns compress many times over).
 */
function checkPlan(planJson: string): PlanStorage {
  let value: unknown;
  try {
    value = JSON.parse(planJson);
  } catch {
    throw new UsageError('the plan is not JSON: write one with servebench plan --output');
  }
  parsePlan(value);
  if (Buffer.byteLength('plan.json') + Buffer.byteLength(planJson) <= CONFIGMAP_LIMIT_BYTES)
    return { key: 'plan.json', text: planJson };
  const base64 = gzipSync(planJson, { level: 9 }).toString('base64');
  if (Buffer.byteLength('plan.json.gz') + base64.length <= CONFIGMAP_LIMIT_BYTES)
    return { key: 'plan.json.gz', base64 };
  throw new UsageError(
    `the plan is ${Buffer.byteLength(planJson)} bytes (${base64.length} gzipped, in base64), over the 1 MiB a ConfigMap holds (${CONFIGMAP_LIMIT_BYTES} bytes with its key): make a plan of fewer requests, or several (docs/kubernetes.md, "A plan over 1 MiB")`,
  );
}

function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--base-url ${JSON.stringify(text)}: not a URL (e.g. http://vllm.default.svc:8000/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--base-url: must be http:// or https://, got ${url.protocol}`);
  // A credential in the URL would be written into the manifests: keys go in --api-key-secret.
  if (url.username !== '' || url.password !== '')
    throw new UsageError(
      '--base-url: must not carry credentials (they would be written into the manifests); use --api-key-secret',
    );
  return text;
}

/** `deploy`, `none`, or an external rendezvous URL, which gets `/<name>` when it names no rendezvous. */
function checkRedis(value: string, name: string): string {
  if (value === 'deploy' || value === 'none') return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `--redis: expected deploy, none or a redis://HOST:PORT/NAME URL, got ${JSON.stringify(value)}`,
    );
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new UsageError(
      `--redis: expected deploy, none or a redis://HOST:PORT/NAME URL, got ${JSON.stringify(value)}`,
    );
  if (url.password !== '')
    throw new UsageError(
      '--redis: a password in the URL would be written into the manifests; use a Redis without one in the cluster, or --redis deploy',
    );
  if (url.hostname === '') throw new UsageError('--redis: the URL names no host');
  return url.pathname === '' || url.pathname === '/' ? `${value.replace(/\/$/, '')}/${name}` : value;
}

function checkStartAt(text: string): void {
  const epoch = /^\d+$/.test(text);
  const iso =
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text));
  if (!epoch && !iso)
    throw new UsageError(
      `--start-at ${JSON.stringify(text)}: expected ISO 8601 with a zone (2026-12-02T03:00:00Z) or epoch milliseconds`,
    );
}

function metadata(o: Checked, name: string, component: string): ObjectMeta {
  return {
    name,
    ...(o.namespace === null ? {} : { namespace: o.namespace }),
    labels: labels(o, component),
  };
}

/** The labels every object carries; `kubectl … -l app.kubernetes.io/instance=<name>` finds them all. */
function labels(o: Checked, component: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'servebench',
    'app.kubernetes.io/instance': o.name,
    'app.kubernetes.io/component': component,
  };
}

function planConfigMap(o: Checked): IConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(o, `${o.name}-plan`, 'plan'),
    // Immutable: a run's plan never changes under running shards, and kubelets stop watching it.
    immutable: true,
    ...(o.plan.key === 'plan.json'
      ? { data: { 'plan.json': o.plan.text } }
      : { binaryData: { 'plan.json.gz': o.plan.base64 } }),
  };
}

function shardVolume(o: Checked): IPersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: metadata(o, `${o.name}-shards`, 'shards'),
    spec: {
      // Every shard pod, wherever it runs, writes its file here, and the merge pod reads them all.
      accessModes: ['ReadWriteMany'],
      ...(o.storageClass === null ? {} : { storageClassName: o.storageClass }),
      resources: { requests: { storage: o.storage } },
    },
  };
}

function redisDeployment(o: Checked): IDeployment {
  const selector = labels(o, 'rendezvous');
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadata(o, `${o.name}-redis`, 'rendezvous'),
    spec: {
      replicas: 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: selector },
        spec: {
          automountServiceAccountToken: false,
          containers: [
            {
              name: 'redis',
              image: REDIS_IMAGE,
              // The rendezvous lives for one run: nothing is saved to disk.
              args: ['--save', '', '--appendonly', 'no'],
              ports: [{ name: 'redis', containerPort: REDIS_PORT }],
              readinessProbe: { tcpSocket: { port: REDIS_PORT }, periodSeconds: 2 },
              resources: {
                requests: { cpu: '100m', memory: '64Mi' },
                limits: { memory: '256Mi' },
              },
            },
          ],
        },
      },
    },
  };
}

function redisService(o: Checked): IService {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadata(o, `${o.name}-redis`, 'rendezvous'),
    spec: {
      selector: labels(o, 'rendezvous'),
      ports: [{ name: 'redis', port: REDIS_PORT, targetPort: REDIS_PORT }],
    },
  };
}

/** No container needs more than the image's user has. */
const CONTAINER_SECURITY: NonNullable<IContainer['securityContext']> = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
};

/** How long a shard pod waits for the Redis it deploys with, when no --rendezvous-timeout says. */
const REDIS_WAIT_DEFAULT_S = 300;

/**
 * The init container's program (run by the image's node): connect to HOST PORT once a second
 * until it answers, or exit 1 after S seconds. The Redis Deployment starts with the shards, and
 * a shard that finds no Redis exits at once (one line, exit 2): this keeps it from starting first.
 */
const WAIT_FOR_TCP = [
  'const [host, port, seconds] = process.argv.slice(1);',
  'const deadline = Date.now() + Number(seconds) * 1000;',
  'const attempt = () => {',
  "  const socket = require('node:net').connect(Number(port), host, () => { socket.end(); process.exit(0); });",
  "  socket.on('error', () => {",
  '    if (Date.now() < deadline) return void setTimeout(attempt, 1000);',
  '    console.error(`no Redis at ${host}:${port} after ${seconds} s`);',
  '    process.exit(1);',
  '  });',
  '};',
  'attempt();',
].join('\n');

/** The shard pods' init container when the Redis is deployed with them. */
function waitForRedis(o: Checked): IContainer {
  return {
    name: 'wait-for-redis',
    image: o.image,
    command: [
      'node',
      '-e',
      WAIT_FOR_TCP,
      `${o.name}-redis`,
      String(REDIS_PORT),
      String(o.rendezvousTimeoutS ?? REDIS_WAIT_DEFAULT_S),
    ],
    resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '64Mi' } },
    securityContext: CONTAINER_SECURITY,
  };
}

/** `shard-$(JOB_COMPLETION_INDEX)…` as the pods' args write it; the kubelet expands it per pod. */
const SHARD_FILE = `${POD_PATHS.shards}/shard-$(JOB_COMPLETION_INDEX)`;

function shardArgs(o: Checked): string[] {
  const args = [
    'run',
    '--plan',
    `${POD_PATHS.planDir}/${o.plan.key}`,
    '--shard',
    `auto/${o.shards}`,
    '--base-url',
    o.baseUrl,
    '--output',
    `${SHARD_FILE}.ndjson`,
    '--journal',
    `${SHARD_FILE}.journal.ndjson`,
    '--quiet',
  ];
  if (o.redis === 'deploy') args.push('--rendezvous', `redis://${o.name}-redis:${REDIS_PORT}/${o.rendezvousName}`);
  else if (o.redis !== 'none') args.push('--rendezvous', o.redis);
  if (o.rendezvousTimeoutS !== null) args.push('--rendezvous-timeout', String(o.rendezvousTimeoutS));
  if (o.maxClockUncertaintyMs !== null) args.push('--max-clock-uncertainty', String(o.maxClockUncertaintyMs));
  if (o.startAt !== null) args.push('--start-at', o.startAt);
  if (o.apiKeySecret !== null) args.push('--api-key-file', POD_PATHS.apiKey);
  return args;
}

/** Pod settings both Jobs share: the image's user, no API token, no service variables. */
function podBase(): Omit<IPodSpec, 'containers'> {
  return {
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    // Service links would add variables the kubelet also expands in args; the args need none.
    enableServiceLinks: false,
    securityContext: {
      runAsNonRoot: true,
      runAsUser: POD_USER,
      runAsGroup: POD_USER,
      // The Secret's files are root-owned: the pod's group lets the image's user read them.
      fsGroup: POD_USER,
    },
  };
}

function shardVolumes(o: Checked): { volumes: IVolume[]; mounts: IVolumeMount[] } {
  const volumes: IVolume[] = [
    { name: 'plan', configMap: { name: `${o.name}-plan` } },
    { name: 'shards', persistentVolumeClaim: { claimName: `${o.name}-shards` } },
  ];
  const mounts: IVolumeMount[] = [
    { name: 'plan', mountPath: POD_PATHS.planDir, readOnly: true },
    { name: 'shards', mountPath: POD_PATHS.shards },
  ];
  if (o.apiKeySecret !== null) {
    volumes.push({
      name: 'key',
      secret: { secretName: o.apiKeySecret, items: [{ key: 'api-key', path: 'api-key' }], defaultMode: 0o440 },
    });
    mounts.push({ name: 'key', mountPath: '/servebench/key', readOnly: true });
  }
  return { volumes, mounts };
}

function shardJob(o: Checked): IJob {
  const podLabels = labels(o, 'shard');
  const { volumes, mounts } = shardVolumes(o);
  const resources = { cpu: o.cpu, memory: o.memory };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata(o, o.name, 'shard'),
    spec: {
      completionMode: 'Indexed',
      completions: o.shards,
      parallelism: o.shards,
      // A shard is never retried (a retry would join after the start and be refused), and one
      // failed shard does not stop the others: the merge names the missing one.
      backoffLimitPerIndex: 0,
      template: {
        metadata: { labels: podLabels },
        spec: {
          ...podBase(),
          // Spread over nodes, but never left Pending for it: the rendezvous waits for all N.
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: podLabels },
            },
          ],
          ...(o.redis === 'deploy' ? { initContainers: [waitForRedis(o)] } : {}),
          containers: [
            {
              name: 'shard',
              image: o.image,
              args: shardArgs(o),
              env: [
                // Kubernetes sets it for Indexed Jobs since 1.22; stated too for older clusters.
                {
                  name: 'JOB_COMPLETION_INDEX',
                  valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${INDEX_ANNOTATION}']` } },
                },
              ],
              // Requests equal limits: the Guaranteed class, so with whole CPUs and the static CPU
              // manager a shard gets cores of its own.
              resources: { requests: resources, limits: resources },
              volumeMounts: mounts,
              securityContext: CONTAINER_SECURITY,
            },
          ],
          volumes,
        },
      },
    },
  };
}

/** The shard files the merge reads, every one named so a missing one is named. */
export function shardFilePaths(shards: number): string[] {
  return Array.from({ length: shards }, (_, index) => `${POD_PATHS.shards}/shard-${index}.ndjson`);
}

function mergeJob(o: Checked): IJob {
  const { volumes, mounts } = shardVolumes({ ...o, apiKeySecret: null });
  const args = ['merge', ...shardFilePaths(o.shards), '--output', `${POD_PATHS.shards}/result.json`];
  if (o.allowPartial) args.push('--allow-partial');
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata(o, `${o.name}-merge`, 'merge'),
    spec: {
      // Created suspended with the rest; resumed once the shard Job has finished (docs/kubernetes.md).
      suspend: true,
      completions: 1,
      parallelism: 1,
      backoffLimit: 0,
      template: {
        metadata: { labels: labels(o, 'merge') },
        spec: {
          ...podBase(),
          containers: [
            {
              name: 'merge',
              image: o.image,
              args,
              resources: {
                requests: { cpu: KUBERNETES_DEFAULTS.mergeCpu, memory: KUBERNETES_DEFAULTS.mergeMemory },
                limits: { memory: KUBERNETES_DEFAULTS.mergeMemory },
              },
              volumeMounts: mounts,
              securityContext: CONTAINER_SECURITY,
            },
          ],
          volumes,
        },
      },
    },
  };
}
