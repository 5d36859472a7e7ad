/** The reference page's style sheet, served as `/docs/styles.css`. System fonts only: nothing is fetched. */
export const DOCS_STYLES = String.raw`
:root { color-scheme: light dark; --bg: #fbfbfa; --fg: #1b1b1f; --muted: #55555f; --card: #fff; --line: #d6d6dc; --accent: #0b57d0; --ok: #0a6b2f; --fail: #a4161a; --code: #f1f1f4; }
@media (prefers-color-scheme: dark) { :root { --bg: #151518; --fg: #ececf1; --muted: #b4b4c0; --card: #1e1e23; --line: #3a3a44; --accent: #8ab4ff; --ok: #6fdc9a; --fail: #ff8a8f; --code: #2a2a31; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--fg); }
code, pre, textarea, input, select { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9rem; }
code { background: var(--code); padding: 0 0.25em; border-radius: 3px; }
pre { background: var(--code); padding: 0.75rem; border-radius: 6px; overflow: auto; max-height: 24rem; margin: 0.5rem 0; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: var(--card); padding: 0.5rem; z-index: 2; }
.top { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: center; justify-content: space-between; padding: 1rem 1.5rem; border-bottom: 1px solid var(--line); background: var(--card); }
.top h1 { margin: 0; font-size: 1.4rem; } .version { color: var(--muted); font-size: 0.9rem; font-weight: normal; }
.token { display: grid; grid-template-columns: auto minmax(12rem, 22rem) auto; gap: 0.25rem 0.5rem; align-items: center; }
.token .help { grid-column: 1 / -1; margin: 0; }
.help { color: var(--muted); font-size: 0.875rem; }
.layout { display: grid; grid-template-columns: 20rem 1fr; min-height: calc(100vh - 5rem); }
nav { border-right: 1px solid var(--line); padding: 1rem; position: sticky; top: 0; max-height: 100vh; overflow: auto; font-size: 0.85rem; }
nav li a { display: flex; gap: 0.4rem; align-items: baseline; word-break: break-all; }
nav h2 { font-size: 1rem; margin: 1rem 0 0.25rem; } nav ul { list-style: none; padding: 0; margin: 0; } nav li { margin: 0.2rem 0; } nav a { text-decoration: none; }
main { padding: 1rem 1.5rem 4rem; max-width: 72rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1rem 1.25rem; margin: 1rem 0; }
.explore { display: grid; grid-template-columns: minmax(14rem, 22rem) 1fr; gap: 1.5rem; }
.products { list-style: none; padding: 0; margin: 0; max-height: 32rem; overflow: auto; }
.product { width: 100%; display: flex; gap: 0.5rem; align-items: baseline; text-align: left; padding: 0.4rem 0.5rem; margin: 0.1rem 0; }
.product .title { flex: 1; } .product .price { color: var(--muted); font-size: 0.85rem; }
.product[aria-current] { border-color: var(--accent); box-shadow: inset 3px 0 0 var(--accent); }
button, input, select, textarea { color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 0.35rem 0.6rem; }
button { cursor: pointer; font: inherit; } button:hover { border-color: var(--accent); }
button.primary { background: var(--accent); color: var(--card); border-color: var(--accent); font-weight: 600; }
textarea { width: 100%; }
fieldset { border: 1px solid var(--line); border-radius: 6px; } legend { padding: 0 0.3rem; }
.field { display: flex; gap: 0.75rem; align-items: center; } .field label { min-width: 5rem; font-weight: 600; }
.badge { font-size: 0.75rem; border: 1px solid currentColor; border-radius: 999px; padding: 0 0.5rem; color: var(--fail); margin-left: 0.5rem; }
.badge.lock { color: var(--muted); }
.status.ok .verdict { color: var(--ok); } .status.fail .verdict { color: var(--fail); }
.method { display: inline-block; min-width: 4.2rem; text-align: center; font-size: 0.75rem; font-weight: 700; border-radius: 4px; padding: 0.1rem 0.3rem; color: #fff; background: #3d6fb6; }
.method.post { background: #1f7a4d; } .method.patch { background: #8a5a00; } .method.delete { background: #a4161a; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; } th, td { border-bottom: 1px solid var(--line); padding: 0.35rem; text-align: left; vertical-align: top; }
details { margin: 0.5rem 0; } summary { cursor: pointer; }
@media (max-width: 52rem) { .layout, .explore { grid-template-columns: 1fr; } nav { position: static; max-height: none; border-right: 0; } }
`;
