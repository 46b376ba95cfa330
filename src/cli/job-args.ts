// A small argparse work-alike for the job CLI (spec 03 §7): options before or after
// positionals, `--opt=value`, `-oVALUE`, unique long-option prefixes, negative numbers as
// positionals, mutually exclusive groups, and argparse's messages (usage errors exit 2).
import { pyFloat, pyInt } from '../jobapi/pyvalue.ts';

export type OptionType = 'flag' | 'string' | 'int' | 'float';

export interface OptionSpec {
  /** `--scope`, `-o`, ... */
  flags: string[];
  dest: string;
  type: OptionType;
  metavar?: string;
  help: string;
  required?: boolean;
}

export interface PositionalSpec {
  name: string;
  help: string;
  optional?: boolean;
}

export interface CommandSpec {
  /** `cronstable state get` */
  prog: string;
  description: string;
  options: OptionSpec[];
  positionals: PositionalSpec[];
  /** Groups of mutually exclusive option dests. */
  exclusive?: string[][];
}

export type OptionValue = string | number | bigint | boolean;

export type ParseResult =
  | {
      kind: 'ok';
      options: Record<string, OptionValue | undefined>;
      positionals: Record<string, string | undefined>;
    }
  | { kind: 'help' }
  | { kind: 'error'; message: string };

const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/;

function optionLabel(o: OptionSpec): string {
  return o.flags.join('/');
}

function metavarOf(o: OptionSpec): string {
  return o.metavar ?? o.dest.toUpperCase();
}

function usageItem(o: OptionSpec): string {
  const flag = o.flags.find((f) => f.startsWith('--')) ?? o.flags[0]!;
  const first = o.flags[0]!;
  return o.type === 'flag' ? first : `${first.startsWith('--') ? flag : first} ${metavarOf(o)}`;
}

/** argparse-style usage line. */
export function usageLine(spec: CommandSpec): string {
  const parts = ['[-h]'];
  const grouped = new Set((spec.exclusive ?? []).flat());
  const done = new Set<string>();
  for (const o of spec.options) {
    if (done.has(o.dest)) continue;
    if (grouped.has(o.dest)) {
      const group = spec.exclusive!.find((g) => g.includes(o.dest))!;
      const items = group.map((d) => spec.options.find((x) => x.dest === d)!).map(usageItem);
      parts.push(`[${items.join(' | ')}]`);
      for (const d of group) done.add(d);
      continue;
    }
    done.add(o.dest);
    parts.push(o.required ? usageItem(o) : `[${usageItem(o)}]`);
  }
  for (const p of spec.positionals) parts.push(p.optional ? `[${p.name}]` : p.name);
  return `usage: ${spec.prog} ${parts.join(' ')}`;
}

/** argparse-style `--help` text. */
export function helpText(spec: CommandSpec): string {
  const lines = [usageLine(spec), '', spec.description];
  if (spec.positionals.length > 0) {
    lines.push('', 'positional arguments:');
    for (const p of spec.positionals) lines.push(`  ${p.name.padEnd(22)}${p.help}`);
  }
  lines.push('', 'options:', `  ${'-h, --help'.padEnd(22)}show this help message and exit`);
  for (const o of spec.options) {
    const label = o.flags.map((f) => (o.type === 'flag' ? f : `${f} ${metavarOf(o)}`)).join(', ');
    lines.push(
      label.length >= 22 ? `  ${label}\n  ${''.padEnd(22)}${o.help}` : `  ${label.padEnd(22)}${o.help}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function convert(o: OptionSpec, raw: string): OptionValue | { error: string } {
  if (o.type === 'int') {
    const v = pyInt(raw);
    return v === null ? { error: `argument ${optionLabel(o)}: invalid int value: '${raw}'` } : v;
  }
  if (o.type === 'float') {
    const v = pyFloat(raw);
    return v === null ? { error: `argument ${optionLabel(o)}: invalid float value: '${raw}'` } : v;
  }
  return raw;
}

function looksLikeOption(arg: string): boolean {
  return arg.startsWith('-') && arg !== '-' && !NEGATIVE_NUMBER.test(arg);
}

/** Parses `argv` (which must not contain `--`: the caller splits or refuses it). */
export function parseCommand(spec: CommandSpec, argv: readonly string[]): ParseResult {
  if (argv.some((a) => a === '-h' || a === '--help')) return { kind: 'help' };
  const options: Record<string, OptionValue | undefined> = {};
  const seen: OptionSpec[] = [];
  const rest: string[] = [];
  const longFlags = spec.options.flatMap((o) =>
    o.flags.filter((f) => f.startsWith('--')).map((f) => ({ f, o })),
  );
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!looksLikeOption(arg)) {
      rest.push(arg);
      continue;
    }
    let opt: OptionSpec | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq >= 0 ? arg.slice(0, eq) : arg;
      inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
      const exact = longFlags.find((x) => x.f === name);
      if (exact) opt = exact.o;
      else {
        const matches = longFlags.filter((x) => x.f.startsWith(name));
        if (matches.length > 1)
          return {
            kind: 'error',
            message: `ambiguous option: ${name} could match ${matches.map((m) => m.f).join(', ')}`,
          };
        opt = matches[0]?.o;
      }
    } else {
      const short = arg.slice(0, 2);
      opt = spec.options.find((o) => o.flags.includes(short));
      if (opt && arg.length > 2) {
        if (opt.type === 'flag') opt = undefined;
        else inline = arg.slice(2).replace(/^=/, '');
      }
    }
    if (!opt) {
      rest.push(arg);
      continue;
    }
    if (opt.type === 'flag') {
      if (inline !== undefined)
        return {
          kind: 'error',
          message: `argument ${optionLabel(opt)}: ignored explicit argument '${inline}'`,
        };
      options[opt.dest] = true;
    } else {
      let raw = inline;
      if (raw === undefined) {
        const next = argv[i + 1];
        if (next === undefined || looksLikeOption(next))
          return { kind: 'error', message: `argument ${optionLabel(opt)}: expected one argument` };
        raw = next;
        i++;
      }
      const value = convert(opt, raw);
      if (typeof value === 'object' && value !== null && 'error' in value)
        return { kind: 'error', message: value.error };
      options[opt.dest] = value as OptionValue;
    }
    for (const group of spec.exclusive ?? []) {
      if (!group.includes(opt.dest)) continue;
      const other = seen.find((s) => s.dest !== opt.dest && group.includes(s.dest));
      if (other)
        return {
          kind: 'error',
          message: `argument ${optionLabel(opt)}: not allowed with argument ${optionLabel(other)}`,
        };
    }
    if (!seen.includes(opt)) seen.push(opt);
  }
  const unknown = rest.filter(looksLikeOption);
  const positionals: Record<string, string | undefined> = {};
  const values = rest.filter((a) => !looksLikeOption(a));
  let k = 0;
  const missing: string[] = [];
  for (const p of spec.positionals) {
    if (k < values.length) positionals[p.name] = values[k++];
    else if (!p.optional) missing.push(p.name);
  }
  const extra = [...unknown, ...values.slice(k)];
  const requiredOpts = spec.options.filter((o) => o.required && options[o.dest] === undefined);
  if (missing.length > 0 || requiredOpts.length > 0)
    return {
      kind: 'error',
      message: `the following arguments are required: ${[...requiredOpts.map(optionLabel), ...missing].join(', ')}`,
    };
  if (extra.length > 0) return { kind: 'error', message: `unrecognized arguments: ${extra.join(' ')}` };
  return { kind: 'ok', options, positionals };
}
