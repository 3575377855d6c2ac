/**
 * The scripts' styles, adopted into their shadow roots. Every colour and size a site may change
 * is a `--sitesearch-*` custom property (docs/THEMING.md); custom properties cross the shadow
 * boundary, nothing else of the host page's CSS does.
 */

// With data-theme="auto", the page's own background and text (--ss-page-*, dom.ts) come before
// the scheme's; muted text and borders are mixed from them.
const LIGHT = "--a:var(--sitesearch-accent,#2456d6);--af:var(--sitesearch-accent-fg,#fff);" +
  "--bg:var(--sitesearch-bg,var(--ss-page-bg,#fff));" +
  "--fg:var(--sitesearch-fg,var(--ss-page-fg,#1b2331));" +
  "--mu:var(--sitesearch-muted,color-mix(in srgb,var(--fg) 68%,var(--bg)));" +
  "--bd:var(--sitesearch-border,color-mix(in srgb,var(--fg) 20%,var(--bg)));" +
  "--mk:var(--sitesearch-mark-bg,#ffe58a);--mkf:var(--sitesearch-mark-fg,#1b2331);" +
  "--sh:var(--sitesearch-shadow,0 12px 32px rgba(15,23,42,.16));--pbg:transparent;--pp:0;";

const DARK = "--a:var(--sitesearch-accent,#82aaff);--af:var(--sitesearch-accent-fg,#0d1117);" +
  "--bg:var(--sitesearch-bg,var(--ss-page-bg,#161b22));" +
  "--fg:var(--sitesearch-fg,var(--ss-page-fg,#e6edf3));" +
  "--mu:var(--sitesearch-muted,color-mix(in srgb,var(--fg) 68%,var(--bg)));" +
  "--bd:var(--sitesearch-border,color-mix(in srgb,var(--fg) 22%,var(--bg)));" +
  "--mk:var(--sitesearch-mark-bg,#8a6d00);--mkf:var(--sitesearch-mark-fg,#fff);" +
  "--sh:var(--sitesearch-shadow,0 12px 32px rgba(0,0,0,.55));" +
  // Dark text colours need a dark ground even when the host page stays light.
  "--pbg:var(--bg);--pp:1.25em;";

/** Resets the host against any page CSS (`* { all: unset }` included) and sets the tokens. */
export const BASE = `:host{all:initial!important;display:block!important}
:host([hidden]){display:none!important}
.root{${LIGHT}--r:var(--sitesearch-radius,8px);
font:var(--sitesearch-font-size,16px)/1.45 var(--sitesearch-font,system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif);
color:var(--fg);text-align:start;-webkit-text-size-adjust:100%}
:host([data-theme=dark]) .root{${DARK}}
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
mark{background:var(--mk);color:var(--mkf);border-radius:2px;padding:0 .05em}
.sr{position:absolute!important;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip-path:inset(50%);white-space:nowrap;border:0}
.icon{width:1.15em;height:1.15em;fill:currentColor;flex:none}
button,input,textarea{font:inherit;color:inherit;margin:0;letter-spacing:inherit}
a{color:var(--a)}
:focus-visible{outline:2px solid var(--a);outline-offset:2px}
kbd{font:inherit;font-size:.72em;line-height:1;padding:.3em .45em;border:1px solid var(--bd);border-bottom-width:2px;border-radius:4px;color:var(--mu);background:var(--bg)}
.field{display:flex;align-items:center;gap:.55em;height:2.75em;padding:0 .8em;background:var(--bg);border:1px solid var(--bd);border-radius:var(--r);color:var(--mu);cursor:text}
.field:focus-within{border-color:var(--a);box-shadow:0 0 0 3px color-mix(in srgb,var(--a) 25%,transparent)}
.input{flex:1;min-width:0;height:100%;border:0;background:none;outline:none;color:var(--fg);font-size:1em;padding:0;appearance:none;-webkit-appearance:none}
.input::placeholder{color:var(--mu);opacity:1}
.input::-webkit-search-cancel-button,.input::-webkit-search-decoration{-webkit-appearance:none;appearance:none}
`;

/** The search bar, its live dropdown, the floating button and the dialog. */
export const WIDGET = BASE + `.bar{position:relative}
.pop{position:absolute;z-index:20;inset-inline-start:0;top:calc(100% + 6px);width:min(600px,calc(100vw - 32px));min-width:100%;background:var(--bg);border:1px solid var(--bd);border-radius:var(--r);box-shadow:var(--sh);overflow:hidden}
.pop.end{inset-inline-start:auto;inset-inline-end:0}
.pop.narrow{width:100%}
.list{list-style:none;margin:0;padding:.35em;max-height:min(70vh,28em);overflow:auto;overscroll-behavior:contain}
.list.wait{opacity:.6;transition:opacity .2s .15s}
.opt{border-radius:calc(var(--r) - 2px);scroll-margin:.35em}
.opt>a{display:flex;flex-direction:column;justify-content:center;min-height:44px;padding:.5em .7em;text-decoration:none;color:var(--fg)}
.opt.on{background:color-mix(in srgb,var(--a) 13%,var(--bg))}
.t{display:block;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.featured{display:block;font-size:.7em;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:var(--mu)}
.s{font-size:.86em;color:var(--mu);overflow:hidden;overflow-wrap:anywhere;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical}
.p{font-size:.78em;color:var(--mu);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.opt.more>a{font-size:.9em;color:var(--a);font-weight:600}
.msg{margin:0;padding:.8em 1em;color:var(--mu);font-size:.92em}
.head,.fix{display:flex;align-items:center;justify-content:space-between;margin:0;padding:.55em .9em .2em;color:var(--mu);font-size:.8em;font-weight:600}
.fix{font-weight:400;font-style:italic}
.clear{border:0;background:none;min-height:44px;padding:0 .6em;color:var(--a);cursor:pointer;font-size:1em}
:host([data-sitesearch=button]){position:fixed!important;right:16px!important;bottom:16px!important;z-index:var(--sitesearch-z,2147483000)!important}
.fab{display:inline-flex;align-items:center;gap:.55em;height:2.9em;padding:0 .75em 0 1em;border:1px solid var(--bd);border-radius:999px;background:var(--bg);color:var(--fg);box-shadow:var(--sh);cursor:pointer;font-weight:600}
.fab:hover{border-color:var(--a)}
@media (max-width:480px){.fab{width:2.9em;padding:0;justify-content:center}.fab span,.fab kbd{display:none}}
dialog{width:min(40em,calc(100vw - 2em));max-height:min(80vh,42em);margin:10vh auto auto;padding:0;border:1px solid var(--bd);border-radius:calc(var(--r) + 4px);background:var(--bg);color:var(--fg);box-shadow:var(--sh);overflow:hidden}
dialog[open]{display:flex;flex-direction:column}
dialog::backdrop{background:rgba(15,23,42,.5)}
.panel,.panel .bar,.panel .pop{display:flex;flex-direction:column;min-height:0}
.panel{padding:.75em}
.close{flex:none;min-width:44px;min-height:44px;padding:0 .5em;border:0;border-radius:5px;background:none;color:var(--mu);cursor:pointer;font-size:.72em;line-height:1}
.panel .pop{position:static;width:auto;border:0;box-shadow:none;margin-top:.4em;overflow:hidden}
.panel .list{max-height:none;min-height:0;padding:0}
.hint{flex:none;margin:.6em .2em 0;color:var(--mu);font-size:.78em}
`;

/** The results page: box, answer, count, hits, pagination, notices. */
export const RESULTS = BASE +
  `.rp{display:flex;flex-direction:column;gap:1.25em;background:var(--pbg);padding:var(--pp);border-radius:var(--r)}
.rform{display:flex;gap:.5em;min-width:0}
.rform .field{flex:1;min-width:0}
.btn{height:2.75em;padding:0 1.15em;border:1px solid var(--a);border-radius:var(--r);background:var(--a);color:var(--af);font-weight:600;cursor:pointer;white-space:nowrap}
.btn:disabled{opacity:.55;cursor:default}
.btn.ghost{background:none;color:var(--a)}
.count{margin:0;color:var(--mu);font-size:.92em;outline:none;overflow-wrap:anywhere}
.rp[aria-busy=true] .hits{opacity:.55;transition:opacity .2s .15s}
.count:empty{display:none}
.fix{margin:-.9em 0 0;color:var(--mu);font-size:.92em;font-style:italic}
.hits{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:1.35em}
.hit h3{margin:0;font-size:1.12em;font-weight:600;line-height:1.3}
.hit h3 a{text-decoration:none}
.hit h3 a:hover{text-decoration:underline}
.path{margin:.15em 0 .3em;font-size:.8em;color:var(--mu);overflow-wrap:anywhere}
.featured{margin:0 0 .1em;font-size:.72em;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:var(--mu)}
.desc{margin:0 0 .25em;overflow-wrap:anywhere}
.snip{margin:0;color:var(--mu);font-size:.93em;overflow-wrap:anywhere}
.hit h3{overflow-wrap:anywhere}
.pager{display:flex;flex-wrap:wrap;gap:.4em;align-items:center}
.pager a,.pager .gap{min-width:44px;height:44px;display:inline-flex;align-items:center;justify-content:center;padding:0 .7em;border:1px solid var(--bd);border-radius:var(--r);text-decoration:none;color:var(--fg)}
.pager a:hover{border-color:var(--a)}
.pager a[aria-current]{background:var(--a);border-color:var(--a);color:var(--af);font-weight:600}
.pager .gap{border-color:transparent;color:var(--mu)}
.facets{display:flex;flex-direction:column;gap:.6em}
.facets:empty{display:none}
.fgroup{display:flex;flex-wrap:wrap;gap:.4em;align-items:center}
.fname{font-size:.8em;font-weight:600;color:var(--mu);margin-inline-end:.3em}
.chip{min-height:44px;padding:0 .85em;border:1px solid var(--bd);border-radius:22px;background:var(--bg);color:var(--fg);cursor:pointer;font-size:.9em}
.chip:hover{border-color:var(--a)}
.chip[aria-pressed=true]{background:var(--a);border-color:var(--a);color:var(--af);font-weight:600}
.chip .n{color:inherit;opacity:.7;margin-inline-start:.35em}
.notice{margin:0;padding:.9em 1.1em;border:1px solid var(--bd);border-radius:var(--r);background:color-mix(in srgb,var(--fg) 4%,var(--bg))}
.notice .btn{margin-inline-start:.75em;font-size:.9em}
.answer{padding:1em 1.15em;border:1px solid color-mix(in srgb,var(--a) 35%,var(--bd));border-radius:calc(var(--r) + 2px);background:color-mix(in srgb,var(--a) 5%,var(--bg))}
.badge{display:flex;align-items:center;gap:.4em;margin:0;font-size:.78em;font-weight:700;letter-spacing:.05em;text-transform:uppercase;color:var(--a)}
`;

/** The answer inside the results page's box, with answer.js (the module the page loads for it). */
export const ANSWER =
  `.uq{margin:1.1em 0 0;padding-top:1em;border-top:1px solid var(--bd);font-weight:600}
.atext{margin:.45em 0 0;white-space:pre-wrap;overflow-wrap:anywhere}
.atext.busy::after{content:"\\258D";color:var(--a);animation:blink 1s steps(2,start) infinite}
@keyframes blink{to{visibility:hidden}}
@media (prefers-reduced-motion:reduce){.atext.busy::after{animation:none}}
.srcs{margin:.8em 0 0;font-size:.86em;color:var(--mu)}
.srcs ul{list-style:none;display:flex;flex-wrap:wrap;gap:.4em;margin:.35em 0 0;padding:0}
.srcs li{display:flex;align-items:center;max-width:100%;min-height:44px;padding:.2em .75em;border:1px solid var(--bd);border-radius:22px;background:var(--bg);overflow-wrap:anywhere}
.srcs a{text-decoration:none}
.srcs .n,.cite{display:inline-flex;align-items:center;justify-content:center;min-width:1.5em;height:1.5em;padding:0 .3em;margin-inline-end:.45em;border-radius:999px;background:color-mix(in srgb,var(--a) 14%,var(--bg));color:var(--a);font-size:.78em;font-weight:700;line-height:1;text-decoration:none;vertical-align:.12em}
.cite{margin:0 0 0 .25em;font-size:.7em}
a.cite:hover{background:var(--a);color:var(--af)}
.srcs a:hover{text-decoration:underline}
.follow{display:flex;gap:.5em;margin-top:1.1em}
.follow .field{flex:1;min-width:0}
.note{margin:.8em 0 0;font-size:.78em;color:var(--mu)}
.fb{display:flex;flex-wrap:wrap;align-items:center;gap:.4em;margin:.6em 0 0;font-size:.82em;color:var(--mu)}.fb .btn{height:44px;min-width:44px;padding:0 .6em;font-size:1em}
.thumb .down{transform:rotate(180deg)}
.fb:focus{outline:none}
.fbc{display:flex;flex-direction:column;gap:.45em;width:100%;font-size:1.1em}
.fbc label{color:var(--fg);font-weight:600}
.fbtext{width:100%;min-height:4.6em;padding:.5em .7em;border:1px solid var(--bd);border-radius:var(--r);background:var(--bg);color:var(--fg);resize:vertical}
.fbtext:focus{border-color:var(--a);outline:none;box-shadow:0 0 0 3px color-mix(in srgb,var(--a) 25%,transparent)}
.fbact{display:flex;flex-wrap:wrap;gap:.5em}
.more{display:none}
@media (max-width:600px){.fold .atext{display:-webkit-box;-webkit-line-clamp:4;-webkit-box-orient:vertical;overflow:hidden}
.fold .srcs,.fold .fb,.fold .follow,.fold .note,.fold .turns>:not(:first-child){display:none!important}
.more{display:inline-flex;align-items:center;height:44px;margin-top:.4em;padding:0 .2em;border:0;font-size:.92em}}
`;
