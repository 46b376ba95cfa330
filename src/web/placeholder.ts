// Served at `/` until the dashboard module (src/web/ui/page.ts) exists: a minimal page that
// points at the JSON API. It holds no data (the route is public).
export function placeholderHtml(version: string): string {
  const v = version.replace(/[<>&"]/g, '');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cronstable</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:0 .25rem}</style>
</head>
<body>
<h1>cronstable <small>${v}</small></h1>
<p>The dashboard is not part of this build. The JSON API is available:
<code>/status</code>, <code>/jobs</code>, <code>/cluster</code>, <code>/metrics</code>, <code>/calendar.ics</code>.</p>
</body>
</html>
`;
}
