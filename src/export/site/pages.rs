//! The HTML of a site: a session's page is the HTML export's page ([`crate::export::html`])
//! with the site's navigation, a banner for a damaged log, a timeline of its turns and its
//! links to the sessions it came from and gave rise to; `index.html` lists every session.

use std::fmt::Write as _;

use html_escape::{encode_double_quoted_attribute as attr, encode_text as text};

use super::read::Row;
use crate::export::Transcript;
use crate::export::markdown::duration;
use crate::wording::utc;

/// How one session relates to another the site holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// What the other session is to this one: `subagent of`, `forked from`,
    /// `recovered from`, `subagent`, `fork`, `recovered as`.
    pub relation: &'static str,
    /// The other session's page, relative to the site's directory.
    pub page: String,
    /// The other session's id.
    pub id: String,
}

const PAGE_STYLE: &str = "
nav.site{font-size:.9rem;margin:0 0 .6rem}
nav.site a{color:var(--accent)}
.banner{padding:.5rem .7rem;border:2px solid var(--err);background:var(--errbg);border-radius:6px;font-weight:600}
ul.lineage{margin:.3rem 0 1rem;padding-left:1.2rem}
ul.lineage a,ol.timeline a{color:var(--accent)}
ol.timeline{font-size:.85rem;padding-left:1.6rem;margin:.3rem 0 1rem}
ol.timeline .when{color:var(--muted)}
article:target{outline:3px solid var(--accent2)}
";

/// A session's page: the transcript with the site's additions.
/// `damaged`: the finding of a corrupt or refused log and what the page shows of it.
pub fn session_page(
    t: &Transcript,
    row: &Row,
    links: &[Link],
    damaged: Option<(&str, &str)>,
) -> String {
    let mut top =
        String::from("<nav class=\"site\"><a href=\"../index.html\">All sessions</a></nav>\n");
    if let Some((f, reading)) = damaged {
        let _ = writeln!(
            top,
            "<p class=\"banner\" id=\"damaged\">DSH does not load this log: {} {}. {}</p>",
            text(&row.status),
            text(f),
            text(reading)
        );
    }
    let mut after = String::new();
    if !links.is_empty() {
        after.push_str("<ul class=\"lineage\">\n");
        for l in links {
            let _ = writeln!(
                after,
                "<li>{} <a href=\"../{}\">{}</a></li>",
                text(&capitalised(l.relation)),
                attr(&l.page),
                text(&l.id)
            );
        }
        after.push_str("</ul>\n");
    }
    if !t.turns.is_empty() {
        after.push_str("<details class=\"timeline-box\" open><summary>Timeline</summary><ol class=\"timeline\">\n");
        for turn in &t.turns {
            let u = turn.counts.usage;
            let tokens = u.input + u.output + u.cache_read + u.cache_write;
            let _ = writeln!(
                after,
                "<li><a href=\"#turn-{}\">Turn {}</a> <span class=\"when\">{}</span> · {} · {} tokens · {}</li>",
                turn.number(),
                turn.number(),
                turn.counts
                    .start_time
                    .map(utc)
                    .unwrap_or_else(|| "time unknown".to_owned()),
                duration(turn.counts.duration_ms()),
                tokens,
                text(&turn.counts.reason)
            );
        }
        after.push_str("</ol></details>\n");
    }
    crate::export::html::render_with(
        t,
        &crate::export::html::Extra {
            style: PAGE_STYLE,
            top: &top,
            after_findings: &after,
        },
    )
}

/// The page of a unit that could not be read at all.
pub fn unreadable_page(row: &Row, why: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n<meta name=\"color-scheme\" content=\"light dark\">\n<title>{file}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<nav class=\"site\"><a href=\"../index.html\">All sessions</a></nav>\n<h1>{file}</h1>\n<p class=\"banner\" id=\"damaged\">This log could not be read: {why}</p>\n</body>\n</html>\n",
        file = text(&row.file),
        why = text(why),
    )
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

const STYLE: &str = "
:root{--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--card:#f6f8fa;--accent:#0969da;--accent2:#bf8700;--err:#cf222e;--errbg:#ffebe9}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--card:#151b23;--accent:#4493f8;--accent2:#d29922;--err:#ff7b72;--errbg:#3a1214}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:80rem;padding:1rem;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,\"Segoe UI\",sans-serif}
h1{font-size:1.4rem;margin:.2rem 0 .6rem}
a{color:var(--accent)}
.banner{padding:.5rem .7rem;border:2px solid var(--err);background:var(--errbg);border-radius:6px;font-weight:600}
.bar{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0}
input,select,button{font:inherit;padding:.25rem .4rem;background:var(--card);color:var(--fg);border:1px solid var(--line);border-radius:4px}
input[type=search]{min-width:16rem}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.85rem}
th,td{border-bottom:1px solid var(--line);padding:.25rem .4rem;text-align:left;vertical-align:top}
th{cursor:pointer;user-select:none;white-space:nowrap;background:var(--card)}
th[aria-sort=ascending]::after{content:' ▲'}
th[aria-sort=descending]::after{content:' ▼'}
td.n{text-align:right;white-space:nowrap}
td.title{min-width:16rem}
td.p{max-width:16rem;overflow-wrap:anywhere}
td.st{min-width:8rem}
td.title .id{font:.75rem ui-monospace,monospace;color:var(--muted);display:block;word-break:break-all}
td.t{white-space:nowrap}
tr.group th{background:var(--bg);cursor:default;font-size:.95rem;padding-top:.8rem;text-align:left}
.st-corrupt,.st-refused,.st-unreadable{color:var(--err);font-weight:600}
.st-torn-tail{color:var(--accent2)}
.muted{color:var(--muted)}
ol#hits{padding-left:1.6rem}
ol#hits li{margin:.3rem 0}
ol#hits .snippet{color:var(--muted);font-size:.85rem;display:block;overflow-wrap:anywhere}
";

const SCRIPT: &str = r#"
(function(){
const tbody=document.querySelector('#sessions tbody');
const rows=[...tbody.querySelectorAll('tr.session')];
const groups=[...tbody.querySelectorAll('tr.group')];
const original=[...tbody.children];
const filter=document.getElementById('filter'),status=document.getElementById('status');
function apply(){
  const f=filter.value.toLowerCase().trim(),s=status.value;let shown=0;
  for(const r of rows){const ok=(!f||r.textContent.toLowerCase().includes(f))&&(!s||r.dataset.status===s);r.hidden=!ok;if(ok)shown++;}
  for(const g of groups){g.hidden=tbody.dataset.sorted==='1'||!rows.some(r=>!r.hidden&&r.dataset.project===g.dataset.project);}
  document.getElementById('shown').textContent=shown;
}
filter.addEventListener('input',apply);status.addEventListener('change',apply);
for(const th of document.querySelectorAll('#sessions thead th[data-key]')){
  th.addEventListener('click',()=>{
    const key=th.dataset.key,num=th.dataset.num==='1';
    const dir=th.getAttribute('aria-sort')==='descending'?'ascending':'descending';
    for(const o of document.querySelectorAll('#sessions thead th'))o.removeAttribute('aria-sort');
    th.setAttribute('aria-sort',dir);
    const v=r=>num?Number(r.dataset[key]||-1):(r.dataset[key]||'');
    const sorted=rows.slice().sort((a,b)=>{const x=v(a),y=v(b);const c=x<y?-1:x>y?1:0;return dir==='ascending'?c:-c;});
    tbody.dataset.sorted='1';
    for(const r of sorted)tbody.appendChild(r);
    apply();
  });
}
document.getElementById('grouped').addEventListener('click',()=>{
  for(const o of document.querySelectorAll('#sessions thead th'))o.removeAttribute('aria-sort');
  tbody.dataset.sorted='';for(const r of original)tbody.appendChild(r);apply();
});
let index=null;
function load(){
  return index||(index=new Promise((ok,fail)=>{
    const s=document.createElement('script');s.src='search.js';
    s.onload=()=>ok(window.DSH_SEARCH.map(([p,t,q,x])=>({p,t,q,x,st:null})));
    s.onerror=()=>{index=null;fail(new Error('search.js could not be loaded'));};
    document.head.appendChild(s);
  }));
}
function starts(s){if(!s.st){const st=[0];for(let i=s.x.indexOf('\n');i>=0;i=s.x.indexOf('\n',i+1))st.push(i+1);s.st=st;}return s.st;}
function find(idx,q,max){
  q=q.toLowerCase().replace(/\s+/g,' ').trim();const hits=[];if(!q)return hits;
  for(const s of idx){
    let i=s.x.indexOf(q),last=-1;
    while(i>=0&&hits.length<max){
      const st=starts(s);let lo=0,hi=st.length-1;
      while(lo<hi){const mid=(lo+hi+1)>>1;if(st[mid]<=i)lo=mid;else hi=mid-1;}
      if(lo!==last){
        const end=lo+1<st.length?st[lo+1]-1:s.x.length;
        hits.push({page:s.p,title:s.t,seq:s.q[lo],href:s.p+'#seq-'+s.q[lo],snippet:s.x.slice(Math.max(st[lo],i-50),Math.min(end,i+q.length+70))});
        last=lo;
      }
      i=s.x.indexOf(q,i+q.length);
    }
    if(hits.length>=max)break;
  }
  return hits;
}
window.dshSearch=(q,max)=>load().then(idx=>find(idx,q,max||200));
const out=document.getElementById('hits'),said=document.getElementById('found');
// The index is read while the user types the first query, not when it is sent.
document.getElementById('q').addEventListener('focus',()=>load().catch(()=>{}),{once:true});
document.getElementById('search').addEventListener('submit',e=>{
  e.preventDefault();const q=document.getElementById('q').value;
  window.dshSearch(q).then(hits=>{
    out.textContent='';said.textContent=hits.length+(hits.length===1?' message':' messages')+(hits.length>=200?' (the first 200)':'');
    for(const h of hits){const li=document.createElement('li');const a=document.createElement('a');a.href=h.href;a.textContent=(h.title||h.page)+' — seq '+h.seq;const sn=document.createElement('span');sn.className='snippet';sn.textContent=h.snippet;li.append(a,sn);out.append(li);}
  },err=>{said.textContent=String(err.message);});
});
apply();
})();
"#;

/// `index.html`: every session, grouped by project (the projects most recently active
/// first, each project's sessions newest first), sortable by a click on a column head and
/// filtered as one types, with a search box over `search.js`.
pub fn index_page(rows: &[Row], notes_count: usize) -> String {
    let mut groups: Vec<(Option<&str>, Vec<&Row>)> = Vec::new();
    {
        let mut by: std::collections::BTreeMap<Option<&str>, Vec<&Row>> =
            std::collections::BTreeMap::new();
        for r in rows {
            by.entry(r.project.as_deref()).or_default().push(r);
        }
        for (p, mut rs) in by {
            rs.sort_by(|a, b| {
                (b.last.or(b.created), &a.page).cmp(&(a.last.or(a.created), &b.page))
            });
            groups.push((p, rs));
        }
        groups.sort_by(|a, b| {
            let newest = |g: &[&Row]| g.first().and_then(|r| r.last.or(r.created));
            newest(&b.1).cmp(&newest(&a.1)).then(a.0.cmp(&b.0))
        });
    }
    let damaged = rows
        .iter()
        .filter(|r| matches!(r.status.as_str(), "corrupt" | "refused" | "unreadable"))
        .count();
    let mut out = String::with_capacity(512 * rows.len() + 16 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline' 'self' file:\">\n<meta name=\"color-scheme\" content=\"light dark\">\n<title>DSH sessions</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>DSH sessions</h1>\n<p class=\"muted\">{} in {}, {} damaged{}. Written by dsh-session {}.</p>\n",
        crate::wording::count(rows.len() as u64, "session"),
        crate::wording::count(groups.len() as u64, "project"),
        damaged,
        if notes_count > 0 {
            format!(", {} passed over (see the export's notes)", notes_count)
        } else {
            String::new()
        },
        env!("CARGO_PKG_VERSION")
    );
    out.push_str("<form id=\"search\" class=\"bar\" role=\"search\"><input type=\"search\" id=\"q\" placeholder=\"Search every message (any language)\" aria-label=\"search\"><button type=\"submit\">Search</button><span id=\"found\" class=\"muted\"></span></form>\n<ol id=\"hits\"></ol>\n");
    let _ = writeln!(
        out,
        "<div class=\"bar\"><input type=\"search\" id=\"filter\" placeholder=\"Filter sessions\" aria-label=\"filter\"><select id=\"status\" aria-label=\"status\"><option value=\"\">any status</option><option>valid</option><option>torn-tail</option><option>corrupt</option><option>refused</option><option>unreadable</option></select><button type=\"button\" id=\"grouped\">By project</button><span class=\"muted\"><span id=\"shown\">{}</span> shown</span></div>",
        rows.len()
    );
    out.push_str("<div class=\"table-wrap\"><table id=\"sessions\"><thead><tr><th data-key=\"title\">title</th><th data-key=\"project\">project</th><th data-key=\"created\" data-num=\"1\">created</th><th data-key=\"last\" data-num=\"1\">last activity</th><th data-key=\"turns\" data-num=\"1\">turns</th><th data-key=\"models\">models</th><th data-key=\"tokens\" data-num=\"1\">tokens</th><th data-key=\"cost\" data-num=\"1\">cost</th><th data-key=\"status\">status</th></tr></thead>\n<tbody>\n");
    for (project, rs) in &groups {
        let p = project.unwrap_or("(no cwd)");
        let _ = writeln!(
            out,
            "<tr class=\"group\" data-project=\"{}\"><th colspan=\"9\">{} <span class=\"muted\">({})</span></th></tr>",
            attr(p),
            text(p),
            crate::wording::count(rs.len() as u64, "session")
        );
        for r in rs {
            let title = r
                .title
                .clone()
                .or_else(|| r.id.clone())
                .unwrap_or_else(|| r.file.clone());
            let status = match &r.rule {
                Some(rule) => format!("{} ({rule})", r.status),
                None => r.status.clone(),
            };
            let _ = writeln!(
                out,
                "<tr class=\"session\" data-project=\"{}\" data-title=\"{}\" data-created=\"{}\" data-last=\"{}\" data-turns=\"{}\" data-models=\"{}\" data-tokens=\"{}\" data-cost=\"{}\" data-status=\"{}\"><td class=\"title\"><a href=\"{}\">{}</a>{}</td><td class=\"p\">{}</td><td class=\"t\">{}</td><td class=\"t\">{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"st st-{}\">{}</td></tr>",
                attr(p),
                attr(&title.to_lowercase()),
                r.created.unwrap_or(-1),
                r.last.unwrap_or(-1),
                r.turns,
                attr(&r.models.join(" ")),
                r.tokens,
                r.cost.unwrap_or(-1.0),
                attr(&r.status),
                attr(&r.page),
                text(&title),
                match (&r.title, &r.id) {
                    (Some(_), Some(id)) => format!("<span class=\"id\">{}</span>", text(id)),
                    _ => String::new(),
                },
                text(p),
                r.created.map(minute).unwrap_or_default(),
                r.last.map(minute).unwrap_or_default(),
                r.turns,
                text(&r.models.join(", ")),
                r.tokens,
                match (r.cost, &r.currency) {
                    (Some(c), Some(currency)) => format!("{c:.4} {}", text(currency)),
                    _ => String::new(),
                },
                attr(&r.status),
                text(&status)
            );
        }
    }
    let _ = write!(
        out,
        "</tbody></table></div>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    );
    out
}

/// `2026-11-30 14:02Z`: a time to the minute.
fn minute(ms: i64) -> String {
    let t = utc(ms);
    match t.get(..16) {
        Some(m) => format!("{}Z", m.replacen('T', " ", 1)),
        None => t,
    }
}
