"""Apollo (RULES.md section 6): a move onto an opponent worker swaps the two."""

from __future__ import annotations

from santorini_p2p.engine.power import Board, Power


class Apollo(Power):
    """The swap: the forced worker takes the square Apollo's worker left."""

    name = "apollo"
    text = (
        "Your worker may move into an opponent worker's space by forcing it to the "
        "space yours just vacated."
    )
    forces = True

    def displace(self, frm: int, to: int, bd: Board) -> int:
        """The opponent goes to the square Apollo's worker left."""
        return frm
