"""Standings of a club event with Buchholz and Sonneborn-Berger, as text and as an offline page.

Points: a win 1, a draw 1/2, a bye 1, a loss 0 (EVENT.md 6). Buchholz is the sum of the
final scores of a player's opponents; Sonneborn-Berger the sum of the scores of the opponents
they beat and half the scores of those they drew. A bye adds to neither. Players are ranked
by points, then Buchholz, then Sonneborn-Berger, then wins; players equal on all four share a
rank. Every figure is an exact fraction (no floats): the same games give the same table.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from fractions import Fraction

from santorini_p2p.tournament.event import EventHeader

__all__ = ["Board", "Standing", "points_text", "render_html", "render_text", "standings"]


@dataclass(frozen=True, slots=True)
class Board:
    """One board of a round: players by index, and the winner (None: a draw) once known."""

    round: int
    number: int
    first: int
    second: int
    done: bool = False
    winner: int | None = None
    reason: str = ""
    reversed: bool = False
    """The game was played the other way round: ``second`` made its first action."""


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the table: rank (shared when equal), player index and figures."""

    rank: int
    shared: bool
    player: int
    points: Fraction
    buchholz: Fraction
    sonneborn_berger: Fraction
    wins: int
    draws: int
    losses: int
    byes: int


def points_text(x: Fraction) -> str:
    """A score as people write it: ``2``, ``2.5``, ``1.75``."""
    if x.denominator == 1:
        return str(x.numerator)
    whole, rest = divmod(x.numerator * 100 // x.denominator, 100)
    return f"{whole}.{rest:02d}".rstrip("0")


def _score(board: Board, player: int) -> Fraction:
    if board.winner is None:
        return Fraction(1, 2)
    return Fraction(1 if board.winner == player else 0)


def standings(players: int, boards: list[Board], byes: list[int]) -> list[Standing]:
    """Rank the players from the boards with results and the byes given."""
    played = [b for b in boards if b.done]
    points = [Fraction(0)] * players
    wins, draws, losses = [0] * players, [0] * players, [0] * players
    bye_count = [0] * players
    for p in byes:
        points[p] += 1
        bye_count[p] += 1
    for b in played:
        for p in (b.first, b.second):
            s = _score(b, p)
            points[p] += s
            if b.winner is None:
                draws[p] += 1
            elif b.winner == p:
                wins[p] += 1
            else:
                losses[p] += 1
    buch = [Fraction(0)] * players
    sb = [Fraction(0)] * players
    for b in played:
        for p, o in ((b.first, b.second), (b.second, b.first)):
            buch[p] += points[o]
            sb[p] += _score(b, p) * points[o]
    key = [(-points[i], -buch[i], -sb[i], -wins[i]) for i in range(players)]
    order = sorted(range(players), key=lambda i: (key[i], i))
    out: list[Standing] = []
    for pos, i in enumerate(order):
        rank = pos + 1
        if out and key[out[-1].player] == key[i]:
            rank = out[-1].rank
        shared = sum(1 for k in key if k == key[i]) > 1
        out.append(
            Standing(
                rank, shared, i, points[i], buch[i], sb[i], wins[i], draws[i], losses[i],
                bye_count[i],
            )
        )  # fmt: skip
    return out


def _rank(s: Standing) -> str:
    return f"{s.rank}=" if s.shared else str(s.rank)


def render_text(h: EventHeader, table: list[Standing], status: str) -> str:
    """The standings as a plain-text table under the event's name and ``status`` line."""
    names = [p.name for p in h.players]
    width = max(6, *(len(n) for n in names))
    lines = [
        f"{h.name}: {status}",
        f"{'rank':<5} {'player':<{width}} {'points':>6} {'buchholz':>8} {'s-b':>6}  w-d-l  byes",
    ]
    for s in table:
        lines.append(
            f"{_rank(s):<5} {names[s.player]:<{width}} {points_text(s.points):>6} "
            f"{points_text(s.buchholz):>8} {points_text(s.sonneborn_berger):>6}  "
            f"{s.wins}-{s.draws}-{s.losses}  {s.byes:>4}"
        )
    return "\n".join(lines) + "\n"


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 52em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { padding: .3em .8em; border-bottom: 1px solid #ddd; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: #777; }
code { font-size: .9em; }
"""


def render_html(
    h: EventHeader, table: list[Standing], boards: list[Board], byes: dict[int, int], status: str
) -> str:
    """One self-contained page: the standings, then every round's boards and results.

    ``byes`` maps a round to the player who had its bye. The page loads nothing.
    """
    e = html.escape
    names = [p.name for p in h.players]
    prints = [p.fingerprint for p in h.players]
    rows = "\n".join(
        f"<tr><td>{_rank(s)}</td><td>{e(names[s.player])}</td>"
        f"<td class=n>{points_text(s.points)}</td><td class=n>{points_text(s.buchholz)}</td>"
        f"<td class=n>{points_text(s.sonneborn_berger)}</td>"
        f"<td class=n>{s.wins}-{s.draws}-{s.losses}</td><td class=n>{s.byes}</td></tr>"
        for s in table
    )
    rounds: list[str] = []
    for r in sorted({b.round for b in boards} | set(byes)):
        items = []
        for b in (b for b in boards if b.round == r):
            if not b.done:
                res = "<span class=muted>to play</span>"
            elif b.winner is None:
                res = "&frac12;&ndash;&frac12;"
            else:
                res = "1&ndash;0" if b.winner == b.first else "0&ndash;1"
            swap = "; played the other way round" if b.reversed else ""
            how = f" <span class=muted>({e(b.reason)}{swap})</span>" if b.done else ""
            items.append(
                f"<tr><td>{b.number}</td><td>{e(names[b.first])}</td><td>{res}{how}</td>"
                f"<td>{e(names[b.second])}</td></tr>"
            )
        if r in byes:
            items.append(f"<tr><td>bye</td><td>{e(names[byes[r]])}</td><td>1</td><td></td></tr>")
        rounds.append(
            f"<h3>Round {r}</h3>\n<table><tr><th>board</th><th>first</th><th>result</th>"
            f"<th>second</th></tr>\n" + "\n".join(items) + "\n</table>"
        )
    players = "\n".join(
        f"<tr><td>{i + 1}</td><td>{e(n)}</td><td><code>{e(f)}</code></td></tr>"
        for i, (n, f) in enumerate(zip(names, prints, strict=True))
    )
    gods = h.gods if not h.pool else f"{h.gods} from {', '.join(h.pool)}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(h.name)}: standings</title><style>{_STYLE}</style></head>
<body>
<h1>{e(h.name)}</h1>
<p>{e(status[:1].upper() + status[1:])}. {e(h.format)}, {h.rounds} rounds; gods {e(gods)};
time {e(h.time_text)}.</p>
<h2>Standings</h2>
<table><tr><th>rank</th><th>player</th><th>points</th><th>Buchholz</th>
<th>Sonneborn-Berger</th><th>w-d-l</th><th>byes</th></tr>
{rows}
</table>
<h2>Rounds</h2>
{chr(10).join(rounds)}
<h2>Players</h2>
<table><tr><th>seed</th><th>player</th><th>fingerprint</th></tr>
{players}
</table>
<p class=muted>Every result comes from a replay signed by both players; anyone holding the
replays re-checks the event with <code>santorini tournament verify EVENT_DIR REPLAY_DIR</code>.</p>
</body></html>
"""
