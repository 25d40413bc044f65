/**
 * Properties of the one argument parser, over every command's table: any argv built from a table's
 * specs parses back to the values it was built from; an unknown flag, a missing value, a number
 * outside its range and a refused flag are each refused with one line naming the flag.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { COMMAND_SPECS } from '../../src/cli/command-flags.js';
import { parseCommand, type ArgValue } from '../../src/cli/args/parse.js';
import { acceptedFlags, isListType, refusedFlags, type CommandSpec, type FlagSpec } from '../../src/cli/args/spec.js';
import { main } from '../../src/cli/main.js';
import { UsageError } from '../../src/util/errors.js';

const RUNS = 150;

/** One flag occurrence as typed (its argv words) and the value it stands for. */
interface Typed {
  flag: FlagSpec;
  words: string[];
  value: ArgValue;
}

function bounds(flag: FlagSpec): { min: number; max: number } {
  const integer = flag.type === 'int' || flag.type === 'int-list';
  const min = Math.max(flag.min ?? -Number.MAX_VALUE, integer ? -Number.MAX_SAFE_INTEGER : -Number.MAX_VALUE);
  const max = Math.min(flag.max ?? Number.MAX_VALUE, integer ? Number.MAX_SAFE_INTEGER : Number.MAX_VALUE);
  return { min, max };
}

const noNegativeZero = (x: number): number => (x === 0 ? 0 : x);

function number(flag: FlagSpec): fc.Arbitrary<number> {
  const { min, max } = bounds(flag);
  if (flag.type === 'int' || flag.type === 'int-list') return fc.integer({ min, max });
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map(noNegativeZero);
}

const DAY = 86_400_000;

/** A valid value of `flag`, as its text and the value the parser should give. */
function valueOf(flag: FlagSpec): fc.Arbitrary<{ text: string; value: ArgValue }> {
  switch (flag.type) {
    case 'boolean':
      throw new Error('a switch has no value');
    case 'int':
    case 'float':
      return number(flag).map((n) => ({ text: String(n), value: n }));
    case 'date':
      return fc.integer({ min: 0, max: 40_000 }).map((days) => {
        const text = new Date(days * DAY).toISOString().slice(0, 10);
        return { text, value: text };
      });
    case 'string': {
      const text =
        flag.choices !== undefined
          ? fc.constantFrom(...flag.choices)
          : fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '' && !s.includes('\n'));
      return text.map((t) => ({ text: t, value: t }));
    }
    case 'int-list':
    case 'float-list':
      return fc
        .uniqueArray(number(flag), { minLength: 1, maxLength: 5 })
        .map((items) => ({ text: items.join(','), value: items }));
    case 'string-list':
      return fc
        .uniqueArray(fc.constantFrom(...(flag.choices ?? ['a', 'b', 'c'])), { minLength: 1, maxLength: 4 })
        .map((items) => ({ text: items.join(','), value: items }));
  }
}

/** One occurrence of `flag`: `--name`, `--name value`, `--name=value`, or a bare optional-value flag. */
function occurrence(flag: FlagSpec): fc.Arbitrary<Typed> {
  if (flag.type === 'boolean') {
    const forms = flag.short === undefined ? [`--${flag.name}`] : [`--${flag.name}`, `-${flag.short}`];
    return fc.constantFrom(...forms).map((word) => ({ flag, words: [word], value: true }));
  }
  const given = fc.tuple(valueOf(flag), fc.boolean()).map(([{ text, value }, inline]) => ({
    flag,
    // A value starting with a dash can only be written inline (`--seed=-1`).
    words: inline || text.startsWith('-') ? [`--${flag.name}=${text}`] : [`--${flag.name}`, text],
    value,
  }));
  return flag.optionalValue === true
    ? fc.oneof(given, fc.constant<Typed>({ flag, words: [`--${flag.name}`], value: true }))
    : given;
}

/** The value a flag ends with after its occurrences, as the table says repeats combine. */
function combined(flag: FlagSpec, values: ArgValue[]): ArgValue {
  if (flag.repeatable !== true || !isListType(flag.type)) return values.at(-1);
  if (values.includes(true)) return true;
  return values.flatMap((v) => v as readonly (string | number)[]) as ArgValue;
}

/** An argv for `spec`: some of its flags (repeatable ones possibly several times), in any order, and positionals. */
function argvFor(spec: CommandSpec): fc.Arbitrary<{ argv: string[]; typed: Typed[]; positionals: string[] }> {
  const flags = acceptedFlags(spec);
  const p = spec.positionals;
  const positionals: fc.Arbitrary<string[]> =
    p === undefined
      ? fc.constant<string[]>([])
      : fc.array(
          fc.stringMatching(/^[a-z0-9_/]{1,10}$/).map((s) => `${s}.json`),
          { minLength: p.min, maxLength: p.max ?? p.min + 3 },
        );
  const picked = fc
    .subarray([...flags])
    .chain((chosen) =>
      fc.tuple(
        ...chosen.map((flag) =>
          fc.array(occurrence(flag), { minLength: 1, maxLength: flag.repeatable === true ? 3 : 2 }),
        ),
      ),
    );
  return fc.tuple(picked, positionals).chain(([groups, files]) =>
    fc.shuffledSubarray(groups.flat(), { minLength: groups.flat().length }).map((typed) => {
      // Files first: a bare optional-value flag is then never followed by a word it could take.
      return { argv: [...files, ...typed.flatMap((t) => t.words)], typed, positionals: files };
    }),
  );
}

for (const spec of COMMAND_SPECS) {
  test(`${spec.name}: any argv built from its table parses back to the values it was built from`, () => {
    fc.assert(
      fc.property(argvFor(spec), ({ argv, typed, positionals }) => {
        const parsed = parseCommand(argv, spec);
        const byFlag = new Map<FlagSpec, ArgValue[]>();
        for (const t of typed) byFlag.set(t.flag, [...(byFlag.get(t.flag) ?? []), t.value]);
        for (const flag of acceptedFlags(spec)) {
          const values = byFlag.get(flag);
          assert.deepEqual(
            parsed.values[flag.name],
            values === undefined ? flag.default : combined(flag, values),
            `--${flag.name} in ${JSON.stringify(argv)}`,
          );
        }
        assert.deepEqual([...parsed.given].sort(), [...new Set(typed.map((t) => t.flag.name))].sort());
        assert.deepEqual(parsed.positionals, positionals);
      }),
      { numRuns: RUNS },
    );
  });

  test(`${spec.name}: an unknown flag anywhere among valid arguments is refused, naming it`, () => {
    const known = new Set([...acceptedFlags(spec).map((f) => f.name), ...(spec.inherits?.except ?? [])]);
    const unknown = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((name) => !known.has(name));
    fc.assert(
      fc.property(argvFor(spec), unknown, fc.nat(), fc.boolean(), ({ typed, positionals }, name, at, inline) => {
        const groups = [...positionals.map((f) => [f]), ...typed.map((t) => t.words)];
        groups.splice(at % (groups.length + 1), 0, inline ? [`--${name}=1`] : [`--${name}`]);
        assert.throws(
          () => parseCommand(groups.flat(), spec),
          (error: unknown) => error instanceof UsageError && error.message === `Unknown option '--${name}'`,
        );
      }),
      { numRuns: RUNS },
    );
  });

  const valued = acceptedFlags(spec).filter((f) => f.type !== 'boolean');
  if (valued.length > 0) {
    test(`${spec.name}: a value flag at the end without its value is refused, naming it`, () => {
      fc.assert(
        fc.property(fc.constantFrom(...valued.filter((f) => f.optionalValue !== true)), (flag) => {
          assert.throws(
            () => parseCommand([`--${flag.name}`], spec),
            (error: unknown) =>
              error instanceof UsageError && error.message === `Option '--${flag.name} <value>' argument missing`,
          );
        }),
        { numRuns: 30 },
      );
    });
  }

  const bounded = acceptedFlags(spec).filter(
    (f) =>
      (f.type === 'int' || f.type === 'float' || f.type === 'int-list' || f.type === 'float-list') &&
      (f.min !== undefined || f.max !== undefined),
  );
  if (bounded.length > 0) {
    test(`${spec.name}: a number outside its flag's range is refused in one line naming the flag`, () => {
      const outside = fc.constantFrom(...bounded).chain((flag) => {
        const { min, max } = bounds(flag);
        const below = flag.min === undefined ? [] : [fc.double({ max: min, noNaN: true }).filter((x) => x < min)];
        const above = flag.max === undefined ? [] : [fc.double({ min: max, noNaN: true }).filter((x) => x > max)];
        return fc.tuple(fc.constant(flag), fc.oneof(...below, ...above));
      });
      fc.assert(
        fc.property(outside, ([flag, x]) => {
          const text = Number.isFinite(x) ? String(noNegativeZero(x)) : x > 0 ? '1e999' : '-1e999';
          assert.throws(
            () => parseCommand([`--${flag.name}=${text}`], spec),
            (error: unknown) => {
              assert.ok(error instanceof UsageError, String(error));
              assert.ok(
                error.message.startsWith(`--${flag.name}${spec.wording === 'must-be' ? ' ' : ':'}`),
                error.message,
              );
              assert.ok(!error.message.includes('\n'));
              return true;
            },
          );
        }),
        { numRuns: RUNS },
      );
    });
  }
}

test('every --flag a usage line mentions is a flag of its command', () => {
  for (const spec of COMMAND_SPECS) {
    const names = new Set(acceptedFlags(spec).map((f) => f.name));
    for (const [, name] of spec.usage.matchAll(/--([a-z][a-z-]*)/g))
      assert.ok(names.has(name!), `${spec.name}: usage names --${name}, which its table lacks`);
  }
});

test('sweep refuses the run flags it sets itself, naming the flag, whatever else is given', () => {
  const sweep = COMMAND_SPECS.find((s) => s.name === 'sweep')!;
  const refused = refusedFlags(sweep);
  fc.assert(
    fc.property(argvFor(sweep), fc.constantFrom(...refused), ({ argv }, name) => {
      assert.throws(
        () => parseCommand([`--${name}`, ...argv], sweep),
        (error: unknown) =>
          error instanceof UsageError && error.message.startsWith(`--${name} does not apply to a sweep`),
      );
    }),
    { numRuns: 50 },
  );
});

test('servebench COMMAND --bogus: one line naming the flag on stderr, exit 2, for every command', async () => {
  for (const spec of COMMAND_SPECS) {
    let out = '';
    let err = '';
    const code = await main([spec.name, '--bogus-flag'], {
      stdout: (t) => void (out += t),
      stderr: (t) => void (err += t),
      env: {},
      cwd: process.cwd(),
      isTTY: false,
      onSignal: () => () => {},
      now: () => new Date(),
    });
    assert.equal(code, 2, spec.name);
    assert.equal(err, `servebench ${spec.name}: Unknown option '--bogus-flag'\n`);
    assert.equal(out, '');
  }
});
