"""Artemis (RULES.md section 6): one more step, not back to where the worker started."""

from __future__ import annotations

from santorini_p2p.engine.position import Position, Turn
from santorini_p2p.engine.power import Board, Gen, Power
from santorini_p2p.engine.squares import BITS, NEIGHBOURS, bits


class Artemis(Power):
    """Both steps are normal moves; a win on either ends the turn; the build follows the last."""

    name = "artemis"
    example = "b2>c3>d4^e5 takes a second step"
    rank = 1
    win_from = 1
    text = "Your worker may move one additional time, but not back to its initial space."
    plain_shaped = True

    def moves(self, g: Gen, w: int, bd: Board, before: int, no_up: bool) -> None:
        """Both steps straight from bitboards when no restriction judges where a move ends."""
        lim = g.limits
        if lim.bound or lim.no_win or lim.no_down or lim.slide or lim.walks:
            super().moves(g, w, bd, before, no_up)
            return
        lv, domes, workers = bd
        base = domes
        for m in workers:
            base |= m
        wb = BITS[w]
        base ^= wb
        h = lv[w]
        climb = 0 if no_up or lim.no_up else 1
        ban = lim.ban_sides
        if g.counting and not (g.first or ban or lim.must_up):
            # Only counting (perft's last ply): each step's builds at once, no turn made.
            nbr = NEIGHBOURS
            n = 0
            for t in bits(self.step_mask(g, w, bd, no_up)):
                ht = lv[t]
                if ht == 3 and h < 3:
                    n += 1
                    continue
                free = nbr[t] & ~(base | BITS[t])
                n += free.bit_count()
                top = ht + climb
                rest = free & ~wb
                while rest:
                    b2 = rest & -rest
                    rest ^= b2
                    h2 = lv[b2.bit_length() - 1]
                    if h2 > top:
                        continue
                    if h2 == 3 and ht < 3:
                        n += 1
                    else:
                        n += (nbr[b2.bit_length() - 1] & ~(base | b2)).bit_count()
            g.count += n
            return
        for t in bits(self.step_mask(g, w, bd, no_up) & g.first_steps(w)):
            ht = lv[t]
            if ht == 3 and h < 3:
                g.emit(Turn(w, (t,), (), before), True)
                continue
            tb = BITS[t]
            up = ht > h
            free = NEIGHBOURS[t] & ~(base | tb)
            g.emit_builds(w, (t,), g.allowed(bd, free) if ban else free, before, up)
            top = ht + climb
            for t2 in bits(free & ~wb):
                h2 = lv[t2]
                if h2 > top:
                    continue
                if h2 == 3 and ht < 3:
                    g.emit(Turn(w, (t, t2), (), before), True)
                    continue
                free2 = NEIGHBOURS[t2] & ~(base | BITS[t2])
                g.emit_builds(
                    w, (t, t2), g.allowed(bd, free2) if ban else free2, before, up or h2 > ht
                )

    def moved(
        self, g: Gen, w: int, path: tuple[int, ...], bd: Board, before: int, up: bool
    ) -> None:
        """Stop after the first step, or take a second one from there."""
        super().moved(g, w, path, bd, before, up)
        if len(path) != 1:
            return
        t = path[0]
        if self.is_win(g, w, t, bd):
            return
        # An opponent's slide moves the worker on before its second step.
        (t,), bd = g.land(w, path, bd)
        lv, domes, workers = bd
        for t2 in bits(g.steps(t, bd) & ~BITS[w]):
            moved = list(workers)
            moved[g.side] ^= BITS[t] | BITS[t2]
            bd2 = (lv, domes, tuple(moved))
            super().moved(g, w, (t, t2), bd2, before, up or lv[t2] > lv[t])

    def quick_win(self, p: Position, mine: int, opp: int, no_up: bool) -> bool | None:
        """The plain win, or a step onto level 2 and then up onto level 3 (not back)."""
        if no_up:
            return False
        if super().quick_win(p, mine, opp, no_up):
            return True
        occ = mine | opp | p.domes
        top = p.ge3 & ~p.domes
        lvl2 = p.ge2 & ~p.ge3
        for w in bits(mine & p.ge1):
            for m in bits(NEIGHBOURS[w] & lvl2 & ~occ):
                if NEIGHBOURS[m] & top & ~occ & ~BITS[w]:
                    return True
        return False

    def extra_threats(self, p: Position, w: int, moves: int, occ: int, no_up: bool) -> int:
        """Level-3 squares two steps away: onto level 2, then up (not back to the start)."""
        if no_up or not p.level(w):
            return 0
        top = p.ge3 & ~p.domes
        out = 0
        for m in bits(moves & p.ge2 & ~p.ge3 & ~occ):
            out |= NEIGHBOURS[m] & top & ~occ & ~BITS[w]
        return out
