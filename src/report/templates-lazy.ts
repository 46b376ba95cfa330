// The report template engine, loaded with the first report that renders a template: nunjucks costs
// ~25-30 ms of CPU to load, which every daemon start paid although most reports are never sent.
type Templates = typeof import('./template.ts');

let loading: Promise<Templates> | undefined;

export function loadTemplates(): Promise<Templates> {
  loading ??= import('./template.ts');
  return loading;
}
