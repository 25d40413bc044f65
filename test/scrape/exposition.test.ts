import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_PROBLEMS, parseExposition, type MetricType, type Sample } from '../../src/scrape/exposition.js';

const samplesOf = (text: string): Sample[] => parseExposition(text).samples;

describe('parseExposition: each syntax point', () => {
  it('reads a sample without labels, with labels, and with a timestamp', () => {
    assert.deepEqual(samplesOf('up 1\nhttp_requests_total{method="post",code="200"} 1027 1395066363000\n'), [
      { name: 'up', labels: {}, value: 1 },
      { name: 'http_requests_total', labels: { method: 'post', code: '200' }, value: 1027 },
    ]);
  });

  it('reads metric names with colons (vLLM, SGLang, llama.cpp)', () => {
    assert.deepEqual(samplesOf('vllm:num_requests_running{model_name="m"} 3.0\nllamacpp:requests_processing 2\n'), [
      { name: 'vllm:num_requests_running', labels: { model_name: 'm' }, value: 3 },
      { name: 'llamacpp:requests_processing', labels: {}, value: 2 },
    ]);
  });

  it('reads # TYPE lines, skips # HELP lines and other comments', () => {
    const e = parseExposition(
      '# HELP a_total Things, with a \\\\ and a \\n in the help.\n# TYPE a_total counter\n# just a comment\n#\na_total 5\n# TYPE g gauge\ng 1\n# TYPE h histogram\n# TYPE s summary\n# TYPE u untyped\n',
    );
    assert.deepEqual(
      [...e.types],
      [
        ['a_total', 'counter'],
        ['g', 'gauge'],
        ['h', 'histogram'],
        ['s', 'summary'],
        ['u', 'untyped'],
      ],
    );
    assert.equal(e.samples.length, 2);
    assert.deepEqual(e.problems, []);
  });

  it('unescapes \\\\, \\" and \\n in label values and keeps other characters as they are', () => {
    const [s] = samplesOf(
      'm{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\"",u="é 😀 {},= #"} 1\n',
    );
    assert.deepEqual(s?.labels, {
      path: 'C:\\DIR\\FILE.TXT',
      error: 'Cannot find file:\n"FILE.TXT"',
      u: 'é 😀 {},= #',
    });
  });

  it('reads NaN, +Inf, -Inf, exponents and signs', () => {
    const values = samplesOf(
      'a NaN\nb +Inf\nc -Inf\nd 1.458255915e9\ne -3982045\nf 8.128902e+06\ng 2.5E-3\nh .5\ni +7\n',
    ).map((s) => s.value);
    assert.deepEqual(values, [NaN, Infinity, -Infinity, 1.458255915e9, -3982045, 8128902, 0.0025, 0.5, 7]);
  });

  it('accepts CRLF line ends, blank lines, blanks around tokens and a trailing comma in labels', () => {
    assert.deepEqual(samplesOf('\r\n  a 1\r\n\r\n\tb{ x = "1" , y="2", } \t 2  \r\nc{} 3\n\n'), [
      { name: 'a', labels: {}, value: 1 },
      { name: 'b', labels: { x: '1', y: '2' }, value: 2 },
      { name: 'c', labels: {}, value: 3 },
    ]);
  });

  it("stops at OpenMetrics' # EOF and ignores exemplars", () => {
    const e = parseExposition(
      'a_bucket{le="0.1"} 8 # {trace_id="abc"} 0.05 123\nb 1 1700000000 # {x="y"} 1\n# EOF\nc 3\n',
    );
    assert.deepEqual(
      e.samples.map((s) => [s.name, s.value]),
      [
        ['a_bucket', 8],
        ['b', 1],
      ],
    );
    assert.deepEqual(e.problems, []);
  });

  it('drops the _created samples prometheus_client writes beside a counter, histogram or summary', () => {
    const text = [
      '# TYPE vllm:prompt_tokens_total counter',
      'vllm:prompt_tokens_total{model_name="m"} 10.0',
      '# TYPE vllm:prompt_tokens_created gauge',
      'vllm:prompt_tokens_created{model_name="m"} 1.7e9',
      '# TYPE h histogram',
      'h_bucket{le="+Inf"} 1',
      'h_created 1.7e9',
      '# TYPE other_created gauge',
      'other_created 5',
    ].join('\n');
    const e = parseExposition(text);
    assert.deepEqual(
      e.samples.map((s) => s.name),
      ['vllm:prompt_tokens_total', 'h_bucket', 'other_created'],
    );
    assert.equal(e.types.has('vllm:prompt_tokens_created'), false);
    assert.equal(e.types.get('other_created'), 'gauge');
  });

  it('reads a label named __proto__ as an ordinary label', () => {
    const [s] = samplesOf('m{__proto__="x"} 1\n');
    assert.equal(Object.getPrototypeOf(s!.labels), Object.prototype);
    assert.deepEqual(Object.entries(s!.labels), [['__proto__', 'x']]);
  });

  it('skips each malformed line whole and names it', () => {
    const e = parseExposition(
      [
        'good 1',
        '1bad 2',
        'novalue',
        'm{a="unterminated} 1',
        'm{a="x"',
        'm{a="\\q"} 1',
        'm{a="1",a="2"} 1',
        'm{a="1" b="2"} 1',
        'm{1a="x"} 1',
        'm{a=x} 1',
        'm abc',
        'm 1 2 3',
        'm 1 notatime',
        '# TYPE',
        '# TYPE m nonsense',
        'good 2',
      ].join('\n'),
    );
    assert.deepEqual(
      e.samples.map((s) => s.value),
      [1, 2],
    );
    assert.equal(e.problems.length, MAX_PROBLEMS);
    assert.deepEqual(
      e.problems.map((p) => Number(/^line (\d+): /.exec(p)?.[1])),
      [2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    );
    assert.match(e.problems[0]!, /^line 2: not a metric name \(1bad 2\)$/);
    assert.match(e.problems[4]!, /unknown escape \\q/);
  });

  it('keeps the first of two TYPE lines for one name and says so', () => {
    const e = parseExposition('# TYPE m counter\n# TYPE m gauge\nm 1\n');
    assert.equal(e.types.get('m'), 'counter');
    assert.deepEqual(e.problems, ['line 2: a second TYPE line for m (the first one holds)']);
  });

  it('cuts a long line in its problem', () => {
    const [p] = parseExposition(`m ${'x'.repeat(10_000)}`).problems;
    assert.ok(p !== undefined && p.length < 200, p);
  });
});

// --- property tests ---------------------------------------------------------------------------

const metricName = fc
  .stringMatching(/^[a-zA-Z_:][a-zA-Z0-9_:]{0,20}$/)
  .filter((n) => !n.endsWith('_created') && !n.endsWith('_total'));
const labelName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,12}$/);
const tricky = fc.constantFrom(
  '"',
  '\\',
  '\n',
  '\r',
  'é',
  '😀',
  ' ',
  '\t',
  '{',
  '}',
  ',',
  '=',
  '#',
  'a',
  '\\n',
  '\u0000',
);
const labelValue = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.array(tricky, { maxLength: 10 }).map((parts) => parts.join('')),
);
const labels = fc.uniqueArray(fc.tuple(labelName, labelValue), { selector: ([n]) => n, maxLength: 4 });
const value = fc.oneof(fc.double(), fc.integer({ min: -1e9, max: 1e9 }), fc.constantFrom(NaN, Infinity, -Infinity, -0));
const metricType = fc.constantFrom<MetricType>('counter', 'gauge', 'histogram', 'summary', 'untyped');
const family = fc.record({
  name: metricName,
  type: fc.option(metricType, { nil: undefined }),
  help: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
  samples: fc.array(fc.record({ labels, value, timestamp: fc.option(fc.integer(), { nil: undefined }) }), {
    maxLength: 4,
  }),
});
const blanks = fc.constantFrom(' ', '  ', '\t', ' \t ');

function renderValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return Object.is(v, -0) ? '-0' : String(v);
}

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

describe('parseExposition: properties', () => {
  it('parses back exactly what a rendering of random families says', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(family, { selector: (f) => f.name, maxLength: 6 }),
        blanks,
        fc.constantFrom('\n', '\r\n'),
        (families, blank, eol) => {
          const lines: string[] = [];
          const expectedSamples: Sample[] = [];
          const expectedTypes = new Map<string, MetricType>();
          for (const f of families) {
            if (f.help !== undefined) lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`);
            if (f.type !== undefined) {
              lines.push(`# TYPE ${f.name} ${f.type}`);
              expectedTypes.set(f.name, f.type);
            }
            for (const s of f.samples) {
              const body = s.labels.map(([n, v]) => `${n}="${escapeLabel(v)}"`).join(',');
              const ts = s.timestamp === undefined ? '' : `${blank}${s.timestamp}`;
              lines.push(`${f.name}${s.labels.length > 0 ? `{${body}}` : ''}${blank}${renderValue(s.value)}${ts}`);
              expectedSamples.push({ name: f.name, labels: Object.fromEntries(s.labels), value: s.value });
            }
            lines.push('');
          }
          const e = parseExposition(lines.join(eol));
          assert.deepEqual(e.problems, []);
          assert.deepStrictEqual(e.samples, expectedSamples);
          assert.deepStrictEqual(e.types, expectedTypes);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws on garbage, keeps at most 10 problems, each naming its line', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ unit: 'binary' }),
            fc.array(tricky).map((p) => p.join('')),
          ),
          { maxLength: 30 },
        ),
        (parts) => {
          const e = parseExposition(parts.join('\n'));
          assert.ok(e.problems.length <= MAX_PROBLEMS);
          for (const p of e.problems) assert.match(p, /^line \d+: /);
          for (const s of e.samples) assert.match(s.name, /^[a-zA-Z_:][a-zA-Z0-9_:]*$/);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never yields a sample from a broken line, and keeps every good one around it', () => {
    const breakers: ((line: string) => string)[] = [
      (line) => line.replace(/ \S+$/, ' not-a-number'),
      (line) => line.replace(/ \S+$/, ''),
      (line) => line.replace(/ \S+$/, ' 1 2 3'),
      (line) => `9${line}`,
      (line) => line.replace(/^([^ ]+) /, '$1{a="unterminated '),
      (line) => line.replace(/^([^ ]+) /, '$1{a="\\x"} '),
      (line) => line.replace(/^([^ ]+) /, '$1{a=unquoted} '),
    ];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), value, fc.nat(breakers.length - 1)), { minLength: 1, maxLength: 25 }),
        (plan) => {
          const lines = plan.map(([good, v, breaker], i) => {
            const line = `m_${i} ${renderValue(v)}`;
            return good ? line : breakers[breaker]!(line);
          });
          const e = parseExposition(lines.join('\n'));
          const expected = plan.flatMap(([good, v], i) => (good ? [{ name: `m_${i}`, labels: {}, value: v }] : []));
          assert.deepStrictEqual(e.samples, expected);
          const broken = plan.flatMap(([good], i) => (good ? [] : [i + 1])).slice(0, MAX_PROBLEMS);
          assert.deepEqual(
            e.problems.map((p) => Number(/^line (\d+): /.exec(p)?.[1])),
            broken,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
