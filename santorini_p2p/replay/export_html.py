"""The HTML export: one self-contained page that steps through a game, offline.

The page holds everything inline: the SVG board (``svg.board_svg``, the console's look), a
small script, the style sheet, the game as JSON, and the text export (the signed log) to copy.
Its Content-Security-Policy forbids every fetch, so no request leaves the page. Buttons, the
arrow keys (Home/End too), a slider and the turn list step through the game; the players
panel shows names, fingerprints, gods with their powers and clocks at each step.

Given the game's engine review (``replay.review``), the page also draws the evaluation graph
(the first side's win probability after each turn, the marked turns as dots; a click goes to
the turn, hovering shows the engine's best turn), marks the turn list (?! inaccuracy,
? mistake, ?? blunder, (missed win)) and says the best turn and evaluations under the board.

What a god's power did on a turn (``engine.turn_effects``: a worker forced, removed or out,
a block removed) is drawn on the board (``svg.turn_overlay``), listed under the turn and said
under the board, each line behind a word badge; so are the restrictions the powers put on the
turn to play in the position shown (``engine.standing_effects``: frozen or bound workers,
squares where no one may build or win, the tower count).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from typing import Final

from santorini_p2p import __version__
from santorini_p2p.engine import (
    GODS,
    Effect,
    Phase,
    Position,
    describe_effect,
    parse_turn,
    standing_effects,
)
from santorini_p2p.replay.export_text import export_text
from santorini_p2p.replay.review import Review, win_probability
from santorini_p2p.replay.svg import (
    BOUND_COLOUR,
    BUILD_COLOUR,
    FORCED_COLOUR,
    FROZEN_COLOUR,
    LEVEL_COLOURS,
    MARK_COLOUR,
    NO_BUILD_COLOUR,
    REMOVED_COLOUR,
    UNBUILT_COLOUR,
    WORKER_COLOURS,
    board_svg,
    overlay_kinds,
    standing_overlay,
    step_overlay,
)
from santorini_p2p.replay.timeline import (
    Timeline,
    format_seconds,
    move_numbers,
    pass_line,
    squares_of,
    step_before,
    step_effects,
)

__all__ = ["CSP", "PAGE_BUDGET", "export_html"]

PAGE_BUDGET: Final = 100_000
"""The page carries the signed record (the text export) only while it stays this small."""

CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)
"""The page's Content-Security-Policy: inline style and script only, no fetch of any kind."""

_DOT: Final = " \u00b7 "
_SLOT: Final = "\x00record\x00"  # names never hold control characters (SPEC.md 4)
_STYLE: Final = """
:root{--bg:#1e1e1e;--fg:#e6e6e6;--dim:#a0a0a0;--line:#3a3a3a;--panel:#262626}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);
font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
header{padding:10px 14px;border-bottom:1px solid var(--line)}
h1{font-size:1.25em;margin:0 0 2px}h2{font-size:1em;margin:14px 0 6px;color:var(--dim)}
.meta{color:var(--dim);margin:0}
#verify{margin:8px 0 0;padding:6px 10px;border-radius:6px;font-weight:600}
#verify.ok{background:#14361f;color:#86efac}#verify.bad{background:#4a1515;color:#fca5a5}
main{display:grid;grid-template-columns:minmax(0,560px) minmax(0,1fr);gap:16px;padding:12px 14px}
@media (max-width:820px){main{grid-template-columns:minmax(0,1fr)}}
.board{width:100%;height:auto;display:block;max-width:560px}
#controls{display:flex;gap:6px;align-items:center;margin:8px 0;flex-wrap:wrap}
#controls button{min-width:44px;min-height:40px;font-size:18px;border-radius:6px;
border:1px solid var(--line);background:var(--panel);color:var(--fg);cursor:pointer}
#slider{flex:1 1 160px;min-width:120px}
#status{min-height:2.8em;color:var(--fg)}
.seat{display:grid;grid-template-columns:30px 1fr auto;gap:2px 8px;padding:6px;
border-radius:6px;border:1px solid var(--line);margin-bottom:6px;background:var(--panel)}
.seat.tomove{border-color:#facc15}.seat.out{opacity:.55}
.chip{grid-row:span 2;width:28px;height:28px;border-radius:50%;color:#fff;font-weight:700;
display:flex;align-items:center;justify-content:center}
.name{font-weight:600;overflow-wrap:anywhere}.fp{color:var(--dim);font-family:monospace}
.clock{font-family:monospace;text-align:right}
.god{grid-column:2/4;color:var(--dim);font-size:.92em}.god b{color:var(--fg)}
#turns{list-style:none;margin:0;padding:0;max-height:40vh;overflow:auto;
border:1px solid var(--line);border-radius:6px}
#turns button{all:unset;box-sizing:border-box;display:block;width:100%;padding:2px 6px;
cursor:pointer;
font-family:monospace;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#turns button.cur{background:#facc15;color:#000}
#turns .bad{color:#fca5a5;font-family:monospace;padding:2px 6px}
table{border-collapse:collapse;font-size:.9em;width:100%;table-layout:fixed}
th:first-child{width:3em}td,th{padding:2px 8px 2px 0;text-align:left;vertical-align:top;
overflow-wrap:anywhere}.key{font-family:monospace;overflow-wrap:anywhere;word-break:break-all}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:11px;background:var(--panel);
padding:8px;border-radius:6px;max-height:50vh;overflow:auto}
details{margin-top:10px}summary{cursor:pointer;color:var(--dim)}
#graph{width:100%;height:auto;display:block;max-width:560px;margin-top:8px;cursor:pointer}
.mark-inaccuracy{color:#facc15}.mark-mistake{color:#fb923c}.mark-blunder{color:#f87171}
.mark-missed{color:#c084fc}
#effects{list-style:none;margin:0 0 6px;padding:0}#effects li{margin:2px 0}
.fxl{display:block;white-space:normal;font-family:system-ui,sans-serif;font-size:.9em;
padding-left:1.5em;color:var(--fg)}#turns button.cur .fxl{color:#000}
.fxk{display:inline-block;min-width:4.6em;margin-right:6px;padding:0 4px;border-radius:4px;
font-size:.8em;font-weight:700;text-align:center;color:#000;background:#e6e6e6}
.fxk.standing{background:#3a3a3a;color:var(--fg);border:1px solid var(--dim)}
""" + (
    f".fxk.forced{{background:{FORCED_COLOUR}}}.fxk.removed,.fxk.out{{background:{REMOVED_COLOUR};"
    f"color:#fff}}.fxk.unbuilt{{background:{UNBUILT_COLOUR}}}\n"
)

_SCRIPT: Final = """
(function(){
"use strict";
if(!document.getElementById("sq-a1"))return;
var D=JSON.parse(document.getElementById("game").textContent);
var N=D.steps.length, cur=-1;
var used=[], acc=D.players.map(function(){return 0;});
used.push(acc.slice());
for(var k0=0;k0<N;k0++){var t0=D.steps[k0];
  if(t0[7]!==null)acc[t0[4]]+=t0[7];used.push(acc.slice());}
var FILES="abcde", LETTERS=D.players4?"AB":"ABC";
var slider=document.getElementById("slider"), list=document.getElementById("turns");
var buttons=list.querySelectorAll("button");
function cells(board){
  var out=[], ranks=board.split("/");
  for(var r=0;r<5;r++){
    var row=ranks[r], i=0, sq=[];
    while(i<row.length){var c="c"+row[i++];
      if(i<row.length&&/[XABC]/.test(row[i]))c+=row[i++];sq.push(c);}
    out.push(sq);
  }
  return out;
}
function clock(ms){var s=Math.ceil(Math.max(0,ms)/1000);
  return Math.floor(s/60)+":"+String(s%60).padStart(2,"0");}
function secs(ms){return (ms%1000?(ms/1000).toFixed(3).replace(/0+$/,""):String(ms/1000))+" s";}
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;
  if(text!==undefined)e.textContent=text;return e;}
function show(i){
  i=Math.max(0,Math.min(N,i|0)); if(i===cur)return; cur=i;
  var s=i?D.steps[i-1]:null, pos=(s?s[0]:D.start).split(" "), order=s?s[6]:D.startOrder;
  var grid=cells(pos[0]);
  for(var r=0;r<5;r++)for(var f=0;f<5;f++){
    var name=FILES[f]+(5-r);
    document.getElementById("sq-"+name).setAttribute("href","#"+grid[r][f]);
  }
  var marks=s&&s[2]==="act"?(s[3].match(/[a-e][1-5]/g)||[]):[];
  for(var k=0;k<25;k++){var n=FILES[k%5]+(1+Math.floor(k/5));
    document.getElementById("mk-"+n).setAttribute("visibility",marks.indexOf(n)>=0?"visible":"hidden");}
  var fx=i?D.fx[String(i)]:null, sx=D.standing[String(i)];
  document.getElementById("fx").innerHTML=(fx?fx[0]:"")+(sx?sx[0]:"");
  var gods=pos[2].split(","), toMove=+pos[1]-1, flags=pos[3];
  var won=/w(\\d)/.exec(flags), out=/x(\\d+)/.exec(flags), over=!!won;
  var seats=document.getElementById("seats"); seats.textContent="";
  for(var seat=0;seat<gods.length;seat++){
    var p=D.players[order[seat]], letter=LETTERS[D.players4?seat&1:seat];
    var box=el("div","seat"+(seat===toMove&&!over?" tomove":"")+
      (out&&out[1].indexOf(String(seat+1))>=0?" out":""));
    var chip=el("div","chip",letter);
    chip.style.background=D.colours[letter]; box.appendChild(chip);
    var who=el("div"); who.appendChild(el("span","name",p.name+" "));
    who.appendChild(el("span","fp",p.fp));
    box.appendChild(who);
    var mark=seat===toMove&&!over?" \\u25c0":"";
    var spent=used[i][order[seat]], c=el("div","clock",
      (D.timed?clock(s?s[5][seat]:D.bank):"used "+clock(spent))+mark);
    c.title=(D.timed?"bank left; ":"")+"time used "+secs(spent); box.appendChild(c);
    var g=gods[seat], god=el("div","god");
    if(g==="-")god.textContent="seat "+(seat+1)+", no god";
    else if(g==="?")god.textContent="seat "+(seat+1)+", god not chosen yet";
    else{god.appendChild(document.createTextNode("seat "+(seat+1)+", "));
      god.appendChild(el("b","",g));
      god.appendChild(document.createTextNode(": "+D.powers[g]));}
    box.appendChild(god); seats.appendChild(box);
  }
  var st=document.getElementById("status");
  var what=D.start.indexOf("?")>=0?"gods to choose":"workers to place";
  if(!s)st.textContent="start: "+what+" \\u00b7 "+D.moves+" moves";
  else{var who2=D.players[s[4]].name;
    var took=s[7]!==null?" \\u00b7 took "+secs(s[7]):"";
    st.textContent=s[2]==="pass"?s[3]:
      (s[8]?"move "+s[8]+" \\u00b7 ":"")+"seat "+s[1]+" ("+who2+"): "+s[3]+took;
    if(i===N&&D.result)st.textContent+=" \\u00b7 "+D.result;
    var rv=D.review&&D.review.turns[String(i)];
    if(rv)st.textContent+=" \\u00b7 "+(rv[0]?rv[0]+" \\u00b7 ":"")+"best "+rv[1]+
      " \\u00b7 "+rv[2]+" \\u2192 "+rv[3];}
  var fxl=document.getElementById("effects"); fxl.textContent="";
  (fx?fx[1]:[]).concat(sx?sx[1]:[]).forEach(function(l){var li=el("li");
    li.appendChild(el("span","fxk "+l[0],l[1]));li.appendChild(document.createTextNode(l[2]));
    fxl.appendChild(li);});
  if(D.review){var cx=String(D.review.x[i]),ln=document.getElementById("evcur");
    ln.setAttribute("x1",cx);ln.setAttribute("x2",cx);}
  slider.value=i;
  for(var b=0;b<buttons.length;b++)buttons[b].classList.toggle("cur",b===i-1);
  if(i>0){var bt=buttons[i-1];var top=bt.offsetTop-list.offsetTop;
    if(top<list.scrollTop||top>list.scrollTop+list.clientHeight-bt.offsetHeight)list.scrollTop=top-list.clientHeight/2;}
  document.body.setAttribute("data-step",String(i));
}
document.getElementById("first").onclick=function(){show(0);};
document.getElementById("prev").onclick=function(){show(cur-1);};
document.getElementById("next").onclick=function(){show(cur+1);};
document.getElementById("last").onclick=function(){show(N);};
slider.addEventListener("input",function(){show(+slider.value);});
list.addEventListener("click",function(e){var t=e.target.closest("button");
  if(t)show(+t.getAttribute("data-i"));});
var graph=document.getElementById("graph");
if(graph)graph.addEventListener("click",function(e){var t=e.target.closest("[data-i]");
  if(t)show(+t.getAttribute("data-i"));});
document.addEventListener("keydown",function(e){
  if(e.target===slider||e.altKey||e.ctrlKey||e.metaKey)return;
  var k=e.key, to=k==="ArrowRight"||k==="ArrowDown"?cur+1:k==="ArrowLeft"||k==="ArrowUp"?cur-1:
    k==="Home"?0:k==="End"?N:null;
  if(to!==null){e.preventDefault();show(to);}
});
show(D.initial);
document.body.setAttribute("data-ready","1");
})();
"""


def _json_script(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_Line = list[str]
"""One effect as the page shows it: [css class, badge word, words]."""


@dataclass(frozen=True, slots=True)
class _Powers:
    """What the powers did and impose, step by step, worked out once for the page.

    ``lines[k]`` and ``overlays[k]`` are step k + 1's turn effects and board overlay;
    ``standing[k]`` and ``marks[k]`` the restrictions in the position after step k (0: the
    start) in words and on the board.
    """

    lines: list[list[_Line]]
    overlays: list[str]
    standing: list[list[_Line]]
    marks: list[str]
    kinds: frozenset[str]
    """Every kind of mark drawn in the game (``svg.overlay_kinds`` and standing kinds)."""

    def sparse(self) -> dict[str, object]:
        """The page script's part: only the steps that have something, by step number."""
        fx = {
            str(k + 1): [o, ls]
            for k, (o, ls) in enumerate(zip(self.overlays, self.lines, strict=True))
            if o or ls
        }
        standing = {
            str(k): [m, ls]
            for k, (m, ls) in enumerate(zip(self.marks, self.standing, strict=True))
            if m or ls
        }
        return {"fx": fx, "standing": standing}


def _standing(p: Position | None) -> list[_Line]:
    if p is None or p.phase is not Phase.PLAY:
        return []
    return [["standing", e.kind.value, describe_effect(p, e)] for e in standing_effects(p)]


def _powers(t: Timeline) -> _Powers:
    lines: list[list[_Line]] = []
    overlays: list[str] = []
    kinds: set[str] = set()
    for s, effects in zip(t.steps, step_effects(t), strict=True):
        before = step_before(t, s.number)
        lines.append([_line(before, e) for e in effects] if before is not None else [])
        overlays.append(step_overlay(t, s.number, effects))
        if overlays[-1] and before is not None:
            kinds |= overlay_kinds(before, parse_turn(s.text), effects, s.position)
    positions = [t.start, *(s.position for s in t.steps)]
    standing = [_standing(p) for p in positions]
    marks = [standing_overlay(p) if p is not None else "" for p in positions]
    kinds |= {line[1] for ls in standing for line in ls}
    return _Powers(lines, overlays, standing, marks, frozenset(kinds))


def _line(before: Position, e: Effect) -> _Line:
    return [e.kind.value, e.kind.value, describe_effect(before, e)]


def _data(
    t: Timeline, step: int, powers: _Powers, review: Review | None = None
) -> dict[str, object]:
    h = t.header
    start = t.start
    players = t.players
    four = start is not None and start.players == 4
    bank = h.bank_ms if h is not None else 0
    timed = h is not None and (h.move_ms or h.bank_ms) != 0
    return {
        "players": [{"name": p.name, "fp": p.fingerprint} for p in players],
        "players4": four,
        "colours": WORKER_COLOURS,
        "powers": {g.name: g.power for g in GODS},
        "start": str(start) if start is not None else "00000/00000/00000/00000/00000 1 -,- -",
        "startOrder": list(t.start_order) or list(range(len(players))),
        "timed": timed,
        "bank": bank,
        "result": t.result_text if t.result is not None else "",
        "initial": step,
        "review": _review_data(t, review),
        **powers.sparse(),
        "moves": t.moves,
        "steps": [
            [
                s.position_text,
                s.seat + 1,
                s.kind,
                pass_line(s, t.header) if s.kind == "pass" else s.text,
                s.player,
                list(s.banks) if timed else 0,
                list(s.order),
                s.clock_ms,
                number,  # its move number in the game's numbering; 0: a note (a chat line ...)
            ]
            for s, number in zip(t.steps, move_numbers(t.steps), strict=True)
        ],
    }


_MARK_SIGN: Final = {
    "inaccuracy": ("?!", "mark-inaccuracy"),
    "mistake": ("?", "mark-mistake"),
    "blunder": ("??", "mark-blunder"),
    "missed win": ("(missed win)", "mark-missed"),
}
_GRAPH_W: Final = 560
_GRAPH_H: Final = 120


def _eval_text(e: float | str) -> str:
    return e if isinstance(e, str) else f"{round(100 * e)}%"


def _turn_steps(t: Timeline) -> list[int]:
    """The step number of each turn of play, in order (the plies a review counts)."""
    out: list[int] = []
    before = t.start
    for s in t.steps:
        if s.kind == "act" and before is not None and before.phase is Phase.PLAY:
            out.append(s.number)
        before = s.position
    return out


def _review_notes(t: Timeline, review: Review | None) -> dict[str, list[str]] | None:
    """Per turn's step number: its mark, the best turn, the evaluations before and after."""
    if review is None:
        return None
    numbers = _turn_steps(t)
    if len(numbers) != len(review.turns):
        return None
    return {
        str(number): [r.mark or "", r.best, _eval_text(r.eval_before), _eval_text(r.eval_after)]
        for r, number in zip(review.turns, numbers, strict=True)
    }


def _review_data(t: Timeline, review: Review | None) -> dict[str, object] | None:
    """The review for the page's script: the notes, and the graph's x at each step."""
    notes = _review_notes(t, review)
    if notes is None:
        return None
    numbers = _turn_steps(t)
    x: list[float] = []
    ply = 0
    for i in range(len(t.steps) + 1):
        while ply < len(numbers) and numbers[ply] <= i:
            ply += 1
        x.append(_graph_x(ply, len(numbers)))
    return {"turns": notes, "x": x}


def _graph_x(ply: int, plies: int) -> float:
    return round(_GRAPH_W * ply / max(1, plies), 1)


def _graph(t: Timeline, review: Review | None) -> str:
    """The evaluation graph: the first side's win probability after each turn, as an SVG."""
    if review is None or len(_turn_steps(t)) != len(review.turns):
        return ""
    numbers = _turn_steps(t)
    four = t.start is not None and t.start.players == 4
    plies = len(review.turns)
    points = [(0.0, _GRAPH_H / 2)]
    spots = []
    for k, (r, number) in enumerate(zip(review.turns, numbers, strict=True)):
        side = r.seat & 1 if four else r.seat
        value = win_probability(r.eval_after)
        first = value if side == 0 else 1.0 - value
        pad = 6
        x, y = _graph_x(k + 1, plies), round(pad + (_GRAPH_H - 2 * pad) * (1.0 - first), 1)
        points.append((x, y))
        tip = (
            f"{k + 1}. seat {r.seat + 1}: {r.turn}{' (' + r.mark + ')' if r.mark else ''} "
            f"\u00b7 best {r.best} \u00b7 {_eval_text(r.eval_before)} -> "
            f"{_eval_text(r.eval_after)}"
        )
        width = _GRAPH_W / plies
        spots.append(
            f'<rect data-i="{number}" x="{x - width:.1f}" y="0" width="{width:.1f}" '
            f'height="{_GRAPH_H}" fill="transparent"><title>{escape(tip)}</title></rect>'
        )
        if r.mark:
            colour = {"inaccuracy": "#facc15", "mistake": "#fb923c", "blunder": "#f87171"}.get(
                r.mark, "#c084fc"
            )
            spots.append(
                f'<circle data-i="{number}" cx="{x}" cy="{y}" r="4" fill="{colour}">'
                f"<title>{escape(tip)}</title></circle>"
            )
    line = " ".join(f"{x},{y}" for x, y in points)
    area = f"0,{_GRAPH_H} {line} {points[-1][0]},{_GRAPH_H}"
    name = t.players[0].name if t.players else "seat 1"
    # The axes: the first side's win probability up the left, the turns along the bottom.
    label = 'font-size="10" fill="#a3a3a3" font-family="sans-serif"'
    axes = "".join(
        f'<text x="3" y="{y}" {label}>{text}</text>'
        for y, text in ((11, "100%"), (_GRAPH_H / 2 - 3, "50%"), (_GRAPH_H - 3, "0%"))
    )
    step = 10 if plies <= 80 else 20
    axes += "".join(
        f'<line x1="{_graph_x(k, plies)}" y1="{_GRAPH_H - 4}" x2="{_graph_x(k, plies)}" '
        f'y2="{_GRAPH_H}" stroke="#737373"/>'
        f'<text x="{_graph_x(k, plies) + 2}" y="{_GRAPH_H - 6}" {label}>{k}</text>'
        for k in range(step, plies, step)
    )
    return (
        f'<svg id="graph" viewBox="0 0 {_GRAPH_W} {_GRAPH_H}" xmlns="http://www.w3.org/2000/svg" '
        f'role="img" aria-label="evaluation graph"><title>{escape(name)}\u2019s side: win '
        "probability after each turn (engine review)</title>"
        f'<rect width="{_GRAPH_W}" height="{_GRAPH_H}" fill="#262626"/>'
        f'<polygon points="{area}" fill="#e6e6e6" opacity="0.25"/>'
        f'<line x1="0" y1="{_GRAPH_H / 2}" x2="{_GRAPH_W}" y2="{_GRAPH_H / 2}" '
        'stroke="#3a3a3a"/>'
        f'<polyline points="{line}" fill="none" stroke="#e6e6e6" stroke-width="1.5"/>'
        f'<line id="evcur" x1="0" y1="0" x2="0" y2="{_GRAPH_H}" stroke="#facc15"/>'
        + axes
        + "".join(spots)
        + "</svg>"
    )


_LEGEND: Final = (
    ("forced", f'<span style="color:{FORCED_COLOUR}">- - \u2192</span> a worker forced'),
    ("removed", f'<span style="color:{REMOVED_COLOUR}">\u2715</span> a worker removed'),
    ("out", f'<span style="color:{REMOVED_COLOUR}">\u2715</span> a side out'),
    ("joined", f'<span style="color:{FORCED_COLOUR}">\u25cb</span> a worker joined'),
    ("unbuilt", f'<span style="color:{UNBUILT_COLOUR}">\u22121</span> a block removed'),
    ("builds", f'<span style="color:{BUILD_COLOUR}">+n</span> builds on a square'),
    ("path", "\u2192 a move of several steps"),
    ("frozen", f'<span style="color:{FROZEN_COLOUR}">padlock</span> a frozen worker'),
    ("bound", f'<span style="color:{BOUND_COLOUR}">link</span> a bound worker'),
    ("no build", f'<span style="color:{NO_BUILD_COLOUR}">\u2298</span> no build here'),
)
"""The board's marks for a power's doings, by the kind that draws each."""


def _overlay_legend(powers: _Powers) -> str:
    """The board's marks that this game draws, explained."""
    return "".join(f" \u00b7 {text}" for kind, text in _LEGEND if kind in powers.kinds)


def _players_title(t: Timeline) -> str:
    names = [p.name for p in t.players]
    return " vs ".join(names) if names else "an unreadable game"


def export_html(t: Timeline, *, step: int | None = None, review: Review | None = None) -> str:
    """Return the page for ``t``, opened at ``step`` (default: the last), with its ``review``.

    A review whose turns are not the game's (another game) is left out.
    """
    n = len(t.steps)
    at = n if step is None else max(0, min(n, step))
    powers = _powers(t)
    overlay = (powers.overlays[at - 1] if at else "") + powers.marks[at]
    h = t.header
    shown = t.steps[at - 1].position if at else t.start
    marks = squares_of(t.steps[at - 1].text) if at and t.steps[at - 1].kind == "act" else ()
    board = (
        board_svg(shown, marks, ids=True, title="the board", overlay=overlay)
        if shown is not None
        else "<p>This file has no position to show.</p>"
    )
    title = _players_title(t)
    meta = [t.date + " UTC" if t.date else "date not recorded"]
    if h is not None:
        meta.append(f"gods: {h.gods}" + (f" from {', '.join(h.pool)}" if h.pool else ""))
        timed = h.move_ms or h.bank_ms
        bank = format_seconds(h.bank_ms)
        meta.append(f"{format_seconds(h.move_ms)} s a move + {bank} s bank" if timed else "untimed")
        if h.options:
            meta.append("options: " + ", ".join(h.options))
    meta.append(f"{t.turns} turns")
    meta.append(t.result_text)
    if t.ok:
        verdict = (
            f"Verified: all {len(t.records)} records: every Ed25519 signature, the hash chain, "
            "each signer's right to its record, every action's legality and state hash."
        )
        css = "ok"
    else:
        verdict = (
            f"FAILS VERIFICATION: {t.verification}. Shown up to the last good record "
            f"({len(t.records)} record{'' if len(t.records) == 1 else 's'})."
        )
        css = "bad"
    notes = _review_notes(t, review)
    items = ""
    for s, number in zip(t.steps, move_numbers(t.steps), strict=True):
        judged = notes.get(str(s.number)) if notes is not None else None
        sign, tip = "", ""
        if judged is not None:
            mark, best, before, after = (escape(x) for x in judged)
            tip = f' title="best {best} \u00b7 {before} -> {after}"'
            if mark:
                text, css_class = _MARK_SIGN[judged[0]]
                sign = f' <span class="{css_class}">{escape(text)}</span>'
        effects = "".join(
            f'<span class="fxl"><span class="fxk {css_kind}">{escape(badge)}</span>'
            f"{escape(words)}</span>"
            for css_kind, badge, words in powers.lines[s.number - 1]
        )
        label = f"{number}." if number else "\u2013"  # a note (a chat line, a request) has none
        who = "" if s.kind == "pass" else f"seat {s.seat + 1}: "  # the rule passes the cards
        text = pass_line(s, t.header) if s.kind == "pass" else s.text
        items += (
            f'<li><button data-i="{s.number}"{tip}>{label} {who}'
            f"{escape(text)}{sign}{effects}</button></li>"
        )
    if not t.ok:
        items += f'<li class="bad">!! {escape(t.verification)}</li>'
    rows = "".join(
        f"<tr><td>{p.seat + 1}</td><td>{escape(p.name)}</td><td class=key>{p.fingerprint}</td>"
        f"<td class=key>{p.public_key.hex()}</td></tr>"
        for p in t.players
    )
    facts = []
    if h is not None:
        facts.append(f"game id <span class=key>{h.game_id.hex()}</span>")
        facts.append(f"protocol {h.protocol}")
    if t.records:
        facts.append(f"last chain hash <span class=key>{t.records[-1].hash.hex()}</span>")
    if t.steps:
        facts.append(f"final state hash <span class=key>{t.steps[-1].state_hash.hex()}</span>")
    legend = " ".join(
        f'<span style="background:{c};padding:0 6px;color:{"#fff" if i == 3 else "#000"}">'
        f"{i}</span>"
        for i, c in enumerate(LEVEL_COLOURS)
    )
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="generator" content="santorini-p2p {escape(__version__)}">
<title>{escape(title)}: Santorini replay</title>
<style>{_STYLE}</style></head>
<body data-step="{at}">
<header><h1>{escape(title)}</h1><p class="meta">{escape(_DOT.join(meta))}</p>
<div id="verify" class="{css}">{escape(verdict)}</div></header>
<main><section>
{board}
<div id="controls"><button id="first" title="first (Home)" aria-label="first">|\u25c0</button>
<button id="prev" title="back (Left)" aria-label="back">\u25c0</button>
<button id="next" title="forward (Right)" aria-label="forward">\u25b6</button>
<button id="last" title="last (End)" aria-label="last">\u25b6|</button>
<input id="slider" type="range" min="0" max="{n}" value="{at}" aria-label="step"></div>
<div id="status"></div>
<ul id="effects" aria-label="what the powers did and impose"></ul>
<p class="meta">levels {legend} \u00b7 <span style="color:{MARK_COLOUR}">\u25a1</span> squares
of the last action{_overlay_legend(powers)} \u00b7 keys: Left/Right, Home/End</p>
</section><section>
{_graph(t, review) if notes is not None else ""}
<h2>Players</h2><div id="seats"></div>
<h2>Turns</h2><ol id="turns">{items}</ol>
<h2>Result</h2><p>{escape(t.result_text)}</p>
<h2>Verification</h2><p>{escape(verdict)} Checked by santorini-p2p {escape(__version__)} when
this page was made; to check it yourself, save the signed record below as a
<code>.santorini.txt</code> file and run <code>santorini replay verify</code> on it.</p>
<table><tr><th>seat</th><th>player</th><th>fingerprint</th><th>public key</th></tr>{rows}</table>
<p class="meta">{_DOT.join(facts)}</p>
{_SLOT}
</section></main>
<script type="application/json" id="game">{_json_script(_data(t, at, powers, review))}</script>
<script>{_SCRIPT}</script>
</body></html>
"""
    record = (
        "<details><summary>Signed record (text export)</summary>"
        f"<pre>{escape(export_text(t))}</pre></details>"
    )
    full = page.replace(_SLOT, record, 1)
    if len(full.encode()) <= PAGE_BUDGET:
        return full
    note = (
        "<p class=meta>The signed record is left out to keep this page under "
        f"{PAGE_BUDGET // 1000} KB; <code>santorini replay export FILE --format text</code> "
        "writes it.</p>"
    )
    return page.replace(_SLOT, note, 1)
