// Jinja2-compatible rendering rules (spec 02 §9.3).
import { describe, expect, it } from 'vitest';
import { pyRepr, toJson } from '../../src/report/pyfmt.ts';
import {
  compileTemplate,
  renderTemplate,
  TemplateError,
  templateCacheSize,
} from '../../src/report/template.ts';
import { pyFloatRepr, pyNumber } from '../../src/util/pyjson.ts';

const vars = {
  name: 'j',
  yes: true,
  no: false,
  nothing: null,
  zero: 0,
  empty: '',
  env: { HOSTNAME: 'h1' },
  list: ['a', "b'c"],
  half: 1.5,
  neg: -100,
};
const r = (src: string, v: Record<string, unknown> = vars) => renderTemplate(src, v);

describe('printing values', () => {
  it('prints None, True and False the Python way', () => {
    expect(r('{{ nothing }}|{{ yes }}|{{ no }}')).toBe('None|True|False');
  });

  it('prints numbers Python-style', () => {
    expect(r('{{ neg }} {{ half }} {{ zero }}')).toBe('-100 1.5 0');
    expect(r('{{ x }}', { x: 0.1 + 0.2 })).toBe('0.30000000000000004');
    expect(r('{{ x }}', { x: 1e-7 })).toBe('1e-07');
    expect(r('{{ x }}', { x: 2.5e20 })).toBe('2.5e+20');
  });

  it('prints lists and maps as Python reprs', () => {
    expect(r('{{ list }}')).toBe(`['a', "b'c"]`);
    expect(r('{{ m }}', { m: { a: null, b: [true, 1] } })).toBe("{'a': None, 'b': [True, 1]}");
  });

  it('renders undefined names and attributes, and attributes of null, as empty and falsy', () => {
    expect(r('[{{ missing }}][{{ env.NOPE }}][{{ nothing.attr }}][{{ missing.a.b }}]')).toBe('[][][][]');
    expect(r('{% if missing %}A{% elif nothing.attr %}B{% elif env.NOPE %}C{% else %}D{% endif %}')).toBe(
      'D',
    );
  });

  it('does not leak JS prototype members as template values', () => {
    expect(r('[{{ constructor }}][{{ env.constructor }}][{{ env.hasOwnProperty }}]')).toBe('[][][]');
  });

  it('reads attributes and items of maps', () => {
    expect(r('{{ env.HOSTNAME }}/{{ env["HOSTNAME"] }}/{{ list[1] }}')).toBe("h1/h1/b'c");
  });

  it('knows the Python spellings True, False and None', () => {
    expect(r('{{ yes == True }} {{ no == False }} {{ nothing is none }} {{ None }}')).toBe(
      'True True True None',
    );
  });
});

describe('truthiness and control flow', () => {
  it('treats "", null, 0, false and undefined as falsy', () => {
    for (const name of ['empty', 'nothing', 'zero', 'no', 'missing']) {
      expect(r(`{% if ${name} %}T{% else %}F{% endif %}`)).toBe('F');
    }
    expect(r('{% if yes %}T{% endif %}{% if name %}N{% endif %}')).toBe('TN');
  });

  it('supports if / elif / else / not / and / or', () => {
    const t = '{% if no %}1{% elif nothing or yes %}2{% else %}3{% endif %}';
    expect(r(t)).toBe('2');
    expect(r('{% if not no and yes %}ok{% endif %}')).toBe('ok');
  });

  it('keeps whitespace unless `-` trims it (trim_blocks and lstrip_blocks are off)', () => {
    expect(r('  {% if yes %}\n  x\n  {% endif %}\n!')).toBe('  \n  x\n  \n!');
    expect(r('  {%- if yes -%}  x  {%- endif -%}  !')).toBe('x!');
    expect(r('a  {{- name -}}  b')).toBe('ajb');
  });
});

describe('template source', () => {
  it('removes exactly one trailing newline of the source', () => {
    expect(r('x\n')).toBe('x');
    expect(r('x\n\n')).toBe('x\n');
    expect(r('x')).toBe('x');
    expect(r('x\r\n')).toBe('x');
  });

  it('does not autoescape', () => {
    expect(r('{{ s }}', { s: '<b>&"\'</b>' })).toBe('<b>&"\'</b>');
  });

  it('compiles each distinct source once', () => {
    const src = `cache probe ${Math.random()} {{ name }}`;
    const before = templateCacheSize();
    const a = compileTemplate(src);
    expect(compileTemplate(src)).toBe(a);
    expect(r(src)).toBe(r(src));
    expect(templateCacheSize()).toBe(before + 1);
  });

  it('reports syntax and render errors as TemplateError', () => {
    expect(() => r('{% if %}')).toThrow(TemplateError);
    expect(() => r('{{ env.x.y() }}')).toThrow(TemplateError);
    expect(() => r('{{ missing | tojson }}')).toThrow(/not JSON serializable/);
  });
});

describe('tojson', () => {
  it('escapes everything outside printable ASCII, and HTML-significant characters', () => {
    expect(r('{{ s | tojson }}', { s: 'a<b>&\'"\\\n\r\t\b\f\u0001\u007f\u00e9\u{1f600}' })).toBe(
      '"a\\u003cb\\u003e\\u0026\\u0027\\"\\\\\\n\\r\\t\\b\\f\\u0001\\u007f\\u00e9\\ud83d\\ude00"',
    );
  });

  it('emits maps with sorted keys and Python separators', () => {
    expect(r('{{ m | tojson }}', { m: { b: 1, a: [true, null, 2.5, 'x'], c: {} } })).toBe(
      '{"a": [true, null, 2.5, "x"], "b": 1, "c": {}}',
    );
  });

  it('indents like json.dumps(indent=n)', () => {
    expect(toJson({ b: [1], a: 'x' }, 2)).toBe('{\n  "a": "x",\n  "b": [\n    1\n  ]\n}');
  });

  it('works as a filter block around template text', () => {
    expect(r('{"text": {% filter tojson %}Job {{ name }}\nok{% endfilter %}}')).toBe(
      '{"text": "Job j\\nok"}',
    );
  });

  it('prints values inside a filter block the Python way', () => {
    expect(r('{% filter tojson %}{{ yes }} {{ nothing }}{% endfilter %}')).toBe('"True None"');
  });
});

describe('Python number and repr helpers', () => {
  it('formats floats like repr()', () => {
    const cases: [number, string][] = [
      [1.5, '1.5'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [123456789012345680, '1.2345678901234568e+17'],
      [1e16, '1e+16'],
      [9999999999999998, '9999999999999998.0'],
      [-0.5, '-0.5'],
      [0, '0.0'],
      [Number.NaN, 'nan'],
      [Number.POSITIVE_INFINITY, 'inf'],
    ];
    for (const [n, s] of cases) expect(pyFloatRepr(n)).toBe(s);
  });

  it('prints integral numbers as ints', () => {
    expect(pyNumber(42)).toBe('42');
    expect(pyNumber(-100)).toBe('-100');
  });

  it('quotes strings like repr()', () => {
    expect(pyRepr('a')).toBe("'a'");
    expect(pyRepr("it's")).toBe('"it\'s"');
    expect(pyRepr('both \' and "')).toBe("'both \\' and \"'");
    expect(pyRepr('a\nb')).toBe("'a\\nb'");
  });
});
