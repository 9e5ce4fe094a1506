"""Training loops for the learning agents."""
