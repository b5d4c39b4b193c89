"""The computer at work on whole games: the arena plays many, the review judges one.

This layer sits above ``ai`` (the search, which needs only the engine) and ``replay`` (signed
logs), and uses both: an arena game is written as a signed log, and a review reads one.
"""
