/*! SiteSearch answer.js src:8e953be6cab1beb8 */
var w=class extends Error{status;code;param;retryAfter;constructor(r,t,o=t,i=null,n=null){super(o),this.status=r,this.code=t,this.param=i,this.retryAfter=n}},T=e=>e instanceof DOMException&&e.name==="AbortError";async function L(e,r){try{return await fetch(e,r)}catch(t){throw T(t)?t:new w(0,"NETWORK_ERROR","The server could not be reached. Try again.")}}async function D(e){let t=(await e.json().catch(()=>null))?.error;return new w(e.status,t?.code??`HTTP_${e.status}`,t?.message??`The request failed (${e.status}).`,t?.param??null,typeof t?.retry_after=="number"?t.retry_after:null)}async function Y(e){return await import(new URL("/sse.js",e).href)}async function P(e,r,t,o,i){let n=await L(new URL("/api/summarize",e.origin).href,{method:"POST",headers:{"Content-Type":"application/json","X-API-Key":e.key,Accept:"text/event-stream"},body:JSON.stringify({...r,stream:!0}),signal:t,credentials:"omit"});if(!n.ok||!n.body)throw await D(n);if(!/event-stream/.test(n.headers.get("content-type")??"")){let l=await n.json();return o(l),l}let f=null,s=!1,{sseEvents:d}=await Y(e.origin);for await(let{event:l,data:u}of d(n.body)){let m=JSON.parse(u);if(l==="meta")o(f=m);else if(l==="delta"||l==="text"&&!s)s||=l==="delta",typeof m?.text=="string"&&i(m.text);else if(l==="done"){if(!f)break;return{...f,...m}}else if(l==="error")throw new w(m?.status??500,m?.code??"STREAM_ERROR")}throw new w(500,"STREAM_INCOMPLETE")}async function O(e,r){let t=[...(r.comment??"").trim()].slice(0,500).join("");try{let o=await L(new URL("/api/feedback",e.origin).href,{method:"POST",headers:{"Content-Type":"application/json","X-API-Key":e.key},body:JSON.stringify({...r,comment:t||void 0}),credentials:"omit"});return await o.body?.cancel(),o.ok}catch{return!1}}var U={search:"Search",searchLabel:"Search this site",searchPlaceholder:"Search this site\u2026",close:"Close",clear:"Clear",hintLive:"\u2191 \u2193 to choose \xB7 Enter to open \xB7 Esc to close",hintSubmit:"Enter to search \xB7 Esc to close",suggestions:"Suggestions",searchResults:"Search results",recentSearches:"Recent searches",loading:"Loading\u2026",searching:"Searching\u2026",typeToSearch:"Type what you are looking for.",featured:"Featured",filters:"Filters",clearFilters:"Clear filters",skipToContent:"Skip to content",resultsFor:{one:"{count} result for \u201C{query}\u201D",other:"{count} results for \u201C{query}\u201D"},resultsAvailable:{one:"{count} result available.",other:"{count} results available."},seeAll:{one:"See {count} result",other:"See all {count} results"},noResultsFor:"No results for \u201C{query}\u201D.",noResults:"No results.",noResultsHint:"Check the spelling, or try fewer or different words.",pageOf:"Page {page} of {pages}",page:"Page {page}",previous:"Previous",next:"Next",pagination:"Pages of results",pastLastPage:"This page is past the last result.",firstPage:"Go to the first page",tryAgain:"Try again",showingResultsFor:"Showing results for \u201C{corrected}\u201D",searchInsteadFor:"Search instead for \u201C{query}\u201D",showResultsFor:"Show results for \u201C{query}\u201D",errBusy:"Search is busy right now. Please try again in a minute.",errQuota:"This site's search has reached its monthly limit.",errNetwork:"Search could not be reached. Check your connection and try again.",errInvalid:"That search could not be run. Try shorter or different words.",errUnavailable:"Search is not available on this page.",errServer:"Search is having trouble right now. Please try again shortly.",aiAnswer:"AI answer",thinking:"Thinking\u2026",answerNeedsJs:"The AI answer appears here (it needs JavaScript).",noAnswer:"No answer found on this site.",aiPaused:"AI answers are paused for this site this month. The search results below are not affected.",aiRateLimit:"Too many AI answers were asked for from here just now. Please try again in a minute.",aiFailed:"The AI answer could not be loaded right now. The search results below are complete.",aiDisclaimer:"AI answers can be wrong. Check the linked pages.",ask:"Ask",askAi:"Ask AI",followupLabel:"Ask a follow-up question",followupPlaceholder:"Ask a follow-up question\u2026",sources:"Sources",source:"Source",sourceN:"Source {n}: {title}",sourcePage:"Page",sourceDocument:"Document",sourceExternal:"General AI knowledge",helpful:"Was this answer helpful?",yes:"Yes",no:"No",thanks:"Thanks for the feedback.",feedbackFailed:"The feedback could not be sent.",feedbackComment:"What was missing or wrong? (optional)",send:"Send",skip:"Skip",showMore:"Show more",showLess:"Show less",navLabel:"Main",navHome:"Home",navDashboard:"Dashboard",navApiReference:"API reference",navResultsDemo:"Results demo",navDemoSite:"Demo site",footerTagline:"SiteSearch: hosted site search with AI answers."};var Z=new Set(["ar","ckb","dv","fa","he","ps","sd","ug","ur","yi"]),V=e=>String(e??"").trim().split(/[-_]/)[0].toLowerCase();function ee(e){return Z.has(V(e))}function F(e,r=U){return{lang:e,dir:ee(e)?"rtl":"ltr",table:r}}var j=new Map;function te(e,r){let t=j.get(e);return t||j.set(e,t=new Intl.NumberFormat(e)),t.format(r)}function re(e,r,t){return r.replace(/\{(\w+)\}/g,(o,i)=>{let n=t[i];return typeof n=="number"?te(e.lang,n):typeof n!="string"?o:e.dir==="rtl"?`\u2068${n}\u2069`:n})}function H(e,r,t={}){return re(e,e.table[r],t)}var $=F("en");function oe(e){$=e}var c=(e,r)=>H($,e,r);function q(e){let r=e?.code;return c(r==="AI_CREDITS_EXHAUSTED"?"aiPaused":r==="SUMMARY_RATE_LIMIT_EXCEEDED"?"aiRateLimit":"aiFailed")}function M(e,r){try{let t=typeof e=="string"?e:"",o=new URL(r&&t.startsWith("/")?r+t:t,new URL(r||"/",location.href));return o.protocol==="http:"||o.protocol==="https:"?o.href:null}catch{return null}}function a(e,r={},...t){let o=document.createElement(e);for(let[i,n]of Object.entries(r))n===!0?o.setAttribute(i,""):typeof n=="string"&&o.setAttribute(i,n);return R(o,t),o}function R(e,r){for(let t of r)t==null||t===!1||e.appendChild(typeof t=="object"?t:document.createTextNode(String(t)))}function B(e){try{console.warn("[SiteSearch]",e)}catch{}}function ne(e){return(...r)=>{try{let t=e(...r);t instanceof Promise&&t.catch(B)}catch(t){B(t)}}}function y(e,r,t,o){e.addEventListener(r,ne(t),o)}var X="http://www.w3.org/2000/svg";function W(e,r="icon"){let t=document.createElementNS(X,"svg");t.setAttribute("viewBox","0 0 24 24"),t.setAttribute("aria-hidden","true"),t.setAttribute("focusable","false"),t.setAttribute("class",r);let o=document.createElementNS(X,"path");return o.setAttribute("d",e),t.appendChild(o),t}var ae="--a:var(--sitesearch-accent,#2456d6);--af:var(--sitesearch-accent-fg,#fff);--bg:var(--sitesearch-bg,var(--ss-page-bg,#fff));--fg:var(--sitesearch-fg,var(--ss-page-fg,#1b2331));--mu:var(--sitesearch-muted,color-mix(in srgb,var(--fg) 68%,var(--bg)));--bd:var(--sitesearch-border,color-mix(in srgb,var(--fg) 20%,var(--bg)));--mk:var(--sitesearch-mark-bg,#ffe58a);--mkf:var(--sitesearch-mark-fg,#1b2331);--sh:var(--sitesearch-shadow,0 12px 32px rgba(15,23,42,.16));--pbg:transparent;--pp:0;",ie="--a:var(--sitesearch-accent,#82aaff);--af:var(--sitesearch-accent-fg,#0d1117);--bg:var(--sitesearch-bg,var(--ss-page-bg,#161b22));--fg:var(--sitesearch-fg,var(--ss-page-fg,#e6edf3));--mu:var(--sitesearch-muted,color-mix(in srgb,var(--fg) 68%,var(--bg)));--bd:var(--sitesearch-border,color-mix(in srgb,var(--fg) 22%,var(--bg)));--mk:var(--sitesearch-mark-bg,#8a6d00);--mkf:var(--sitesearch-mark-fg,#fff);--sh:var(--sitesearch-shadow,0 12px 32px rgba(0,0,0,.55));--pbg:var(--bg);--pp:1.25em;",J=`:host{all:initial!important;display:block!important}
:host([hidden]){display:none!important}
.root{${ae}--r:var(--sitesearch-radius,8px);
font:var(--sitesearch-font-size,16px)/1.45 var(--sitesearch-font,system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif);
color:var(--fg);text-align:start;-webkit-text-size-adjust:100%}
:host([data-theme=dark]) .root{${ie}}
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
`,Re=J+`.bar{position:relative}
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
`,Te=J+`.rp{display:flex;flex-direction:column;gap:1.25em;background:var(--pbg);padding:var(--pp);border-radius:var(--r)}
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
`,se=`.uq{margin:1.1em 0 0;padding-top:1em;border-top:1px solid var(--bd);font-weight:600}
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
`;var K=1600;function Pe(e,r,t){let o=new AbortController,i="",n=!1,f=a("div",{class:"turns"}),s=a("input",{type:"text",class:"input",placeholder:c("followupPlaceholder"),"aria-label":c("followupLabel"),autocomplete:"off",maxlength:"600"}),d=a("form",{class:"follow",hidden:!0},a("div",{class:"field"},s),a("button",{type:"submit",class:"btn"},c("ask"))),l=a("p",{class:"note",hidden:!0},c("aiDisclaimer")),u=a("button",{type:"button",class:"btn ghost more","aria-expanded":"false"}),m=a("div",{class:"fold"},f,u,d,l),k=b=>{m.classList.toggle("fold",b),u.setAttribute("aria-expanded",String(!b)),u.textContent=c(b?"showMore":"showLess")};k(!0),y(u,"click",()=>k(!m.classList.contains("fold")));let A=async(b,h)=>{n=!0,d.hidden=!0;let x=a("p",{class:"atext busy",dir:"auto"},c("thinking")),S=a("div",{"aria-busy":"true"},h==="followup"?a("p",{class:"uq"},b):null,x);f.appendChild(S);let I="",v=[],N=0,E=null;try{let p=await P(e,h==="initial"?{query:b,mode:h}:{query:b,mode:h,conversationId:i},o.signal,g=>{i=typeof g.conversationId=="string"?g.conversationId:i,v=Array.isArray(g.sources)?g.sources:[],N=v.length,E=G(v,t.baseUrl),E&&S.appendChild(E)},g=>{I+=g,x.replaceChildren(Q(I.slice(0,K),v,t.baseUrl))});if(Array.isArray(p.sources)){v=p.sources;let g=G(v,t.baseUrl);E?.remove(),(E=g)&&S.appendChild(g)}x.classList.remove("busy"),S.removeAttribute("aria-busy"),n=!1;let C=p.answered===!1||N===0&&v.length===0;if(C)x.replaceChildren(c("noAnswer"));else if(typeof p.answer=="string"){let g=p.truncated?" \u2026":"";x.replaceChildren(Q(p.answer.slice(0,K)+g,v,t.baseUrl))}!C&&i&&typeof p.turn=="number"&&S.appendChild(le(e,i,p.turn)),l.hidden=C,C&&h==="initial"&&(u.hidden=!0);let _=p.turnsRemaining;d.hidden=C||!(t.followups&&p.conversationEnabled===!0&&i&&(typeof _!="number"||_>0)),h==="followup"&&!d.hidden&&s.focus()}catch(p){if(n=!1,T(p))return;if(p instanceof w&&p.code==="SUMMARIES_DISABLED")return t.onFail();x.classList.remove("busy"),S.removeAttribute("aria-busy"),x.replaceChildren(q(p)),h==="initial"&&(u.hidden=!0),d.hidden=h==="initial"||!t.followups}};return y(d,"submit",b=>{b.preventDefault();let h=s.value.trim();!h||n||(s.value="",A(h,"followup"))}),A(r,"initial"),{node:m,busy:()=>n,abort:()=>o.abort()}}function le(e,r,t){let o=a("div",{class:"fb",tabindex:"-1","aria-live":"polite"},c("helpful")),i=(s,d)=>O(e,{conversationId:r,turn:t,helpful:s,comment:d}),n=()=>{o.replaceChildren(c("thanks")),o.focus({preventScroll:!0})},f=()=>{let s=i(!1),d=`fbc-${r}-${t}`,l=a("textarea",{id:d,class:"fbtext",rows:"3",maxlength:String(500),dir:"auto"}),u=a("button",{type:"button",class:"btn ghost"},c("skip")),m=a("form",{class:"fbc"},a("label",{for:d},c("feedbackComment")),l,a("div",{class:"fbact"},a("button",{type:"submit",class:"btn"},c("send")),u));y(m,"submit",k=>{k.preventDefault();let A=l.value.trim();n(),A&&s.then(()=>i(!1,A))}),y(u,"click",n),y(l,"keydown",k=>{k.key==="Escape"&&n()}),o.replaceChildren(m),l.focus()};for(let s of[!0,!1]){let d=c(s?"yes":"no"),l=a("button",{type:"button",class:"btn ghost thumb","aria-label":d,title:d},W(ce,s?"icon":"icon down"));y(l,"click",()=>s?(n(),i(!0)):f()),o.appendChild(l)}return o}var ce="M2 21h4V9H2v12Zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6C6.2 8 6 8.5 6 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2Z";function de(e,r){if(e?.type==="page"){let t=M(String(e.url??""),r),o=String(e.title||e.url||c("sourcePage"));return t?a("a",{href:t},o):o}return e?.type==="document"?String(e.title||c("sourceDocument")):e?.type==="external"?String(e.label||c("sourceExternal")):null}function G(e,r){let t=e.map((o,i)=>{let n=de(o,r),f=o?.type==="external"?null:a("span",{class:"n"},String(i+1));return n===null?null:a("li",{},f,n)});return t.some(o=>o)?a("div",{class:"srcs"},a("span",{},c("sources")),a("ul",{},...t)):null}function Q(e,r,t){let o=document.createDocumentFragment(),i=0;for(let n of e.matchAll(/\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\]/g)){let f=n[1].split(",").map(s=>Number(s.trim()));if(f.every(s=>s>=1&&s<=r.length)){R(o,[e.slice(i,n.index).replace(/\s+$/,"")]);for(let s of f){let d=r[s-1],l=d.type==="page"?M(String(d.url??""),t):null,u=String(d.title||d.label||"");o.appendChild(l?a("a",{class:"cite",href:l,title:u,"aria-label":c("sourceN",{n:s,title:u})},String(s)):a("span",{class:"cite",title:u},String(s)))}i=n.index+n[0].length}}return R(o,[e.slice(i)]),o}export{Pe as conversation,se as css,oe as setLocale};
