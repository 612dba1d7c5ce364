"""Games (seed 002, slide "N:M relationships"): users join games under a player limit held in one transaction."""
